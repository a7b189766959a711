def model(dbt, spark):
    """Scenario 3: does not opt in; reads the local sales.orders with stock dbt-athena code."""
    dbt.config(materialized="table")
    return dbt.source("local_sales", "orders")
