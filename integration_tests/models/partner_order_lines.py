def model(dbt, spark):
    """Scenario 5: schema and table with hyphens and upper case, in a catalog spelled in
    mixed case (Partner_Catalog)."""
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("partner_lines", "order_lines")
