def model(dbt, spark):
    dbt.config(spark_cross_account_catalog=False)
    return dbt.source("owner", "orders")
