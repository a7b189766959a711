def model(dbt, spark):
    """Scenario 4: a LAMBDA catalog cannot be read cross-account: compile-time warning and
    the legacy two-part name, so the local sales.orders is read."""
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("federated", "orders")
