def model(dbt, spark):
    """Not opted in: reads the SQL view through stock dbt-athena (fails as on Athena)."""
    dbt.config(materialized="table")
    return dbt.ref("stg_customers_eu")
