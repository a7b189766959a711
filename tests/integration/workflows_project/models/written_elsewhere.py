def model(dbt, spark):
    # an opted-in Python model whose own database is the partner's catalog
    dbt.config(database="partner_catalog")
    return dbt.source("partner", "orders")
