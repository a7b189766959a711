def model(dbt, spark):
    dbt.config(
        spark_cross_account_roles={
            "role_owner_catalog": {
                "role_arn": "arn:aws:iam::321321321321:role/dbt-reader-with-id",
                "external_id": "not-partner-42",
            }
        }
    )
    return dbt.source("owner", "orders")
