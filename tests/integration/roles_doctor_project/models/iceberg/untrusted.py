def model(dbt, spark):
    dbt.config(
        spark_cross_account_roles={
            "settings_owner_catalog": "arn:aws:iam::654654654654:role/someone-elses"
        }
    )
    return dbt.source("owner", "orders")
