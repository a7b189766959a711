def model(dbt, spark):
    """Scenario 7: the owner (888888888888) has not granted the local account: AccessDenied."""
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("restricted", "orders")
