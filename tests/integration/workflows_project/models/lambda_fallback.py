def model(dbt, spark):
    dbt.config(spark_cross_account_fallback="local")
    return dbt.source("federated", "orders")
