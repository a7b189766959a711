def model(dbt, spark):
    return dbt.source("padded", "orders")
