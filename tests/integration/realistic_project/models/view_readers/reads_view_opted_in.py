def model(dbt, spark):
    """Opted in: stopped at compile time (its ref is a view)."""
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.ref("stg_customers_eu")
