def model(dbt, spark):
    return dbt.source("from_env", "orders")
