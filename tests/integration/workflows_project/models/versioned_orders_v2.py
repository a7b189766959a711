def model(dbt, spark):
    return dbt.source("supplier", "orders")
