def model(dbt, spark):
    dbt.config(
        spark_cross_account_roles={
            "role_owner_catalog": "arn:aws:iam::321321321321:role/someone-elses"
        }
    )
    return dbt.source("owner", "orders")
