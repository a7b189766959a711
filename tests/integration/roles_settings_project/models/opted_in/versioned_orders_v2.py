def model(dbt, spark):
    return dbt.source("owner", "orders")
