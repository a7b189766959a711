def model(dbt, spark):
    dbt.config(
        spark_cross_account_roles={
            "settings_owner_catalog": {
                "role_arn": "arn:aws:iam::654654654654:role/dbt-reader-ext",
                "external_id": "ext-42",
            }
        }
    )
    return dbt.source("owner", "orders")
