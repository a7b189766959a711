def model(dbt, spark):
    return dbt.source("restricted", "orders")
