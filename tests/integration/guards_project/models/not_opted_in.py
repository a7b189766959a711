def model(dbt, spark):
    return dbt.source("partner", "orders")
