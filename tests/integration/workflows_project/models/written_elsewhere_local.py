def model(dbt, spark):
    dbt.config(database="partner_catalog", spark_cross_account_fallback="local")
    return dbt.source("supplier", "orders")
