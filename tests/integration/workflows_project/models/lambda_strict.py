def model(dbt, spark):
    return dbt.source("federated", "orders")
