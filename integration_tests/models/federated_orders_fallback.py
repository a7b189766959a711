def model(dbt, spark):
    """Scenario 4: a LAMBDA catalog cannot be read cross-account. Without
    spark_cross_account_fallback this is a compile error; with 'local' it is a compile-time
    warning and the local sales.orders is read, as stock dbt-athena does."""
    dbt.config(
        materialized="table",
        spark_cross_account_catalog=True,
        spark_cross_account_fallback="local",
    )
    return dbt.source("federated", "orders")
