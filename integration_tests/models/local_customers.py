def model(dbt, spark):
    """Scenario 2 (upstream): a stock Python model writing to the local catalog."""
    dbt.config(materialized="table")
    return dbt.source("local_sales", "customers")
