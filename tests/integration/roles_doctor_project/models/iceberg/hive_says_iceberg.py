def model(dbt, spark):
    dbt.config(
        spark_cross_account_roles={
            "settings_owner_catalog": "arn:aws:iam::654654654654:role/dbt-reader"
        }
    )
    return dbt.source("owner", "customers")
