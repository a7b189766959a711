def model(dbt, spark):
    # the role requires the external id ext-42; the model sends none
    dbt.config(
        spark_cross_account_roles={
            "settings_owner_catalog": "arn:aws:iam::654654654654:role/dbt-reader-ext"
        }
    )
    return dbt.source("owner", "orders")
