def model(dbt, spark):
    return dbt.source("typo", "orders")
