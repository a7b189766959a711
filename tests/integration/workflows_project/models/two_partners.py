def model(dbt, spark):
    # one model, two owner accounts: a supplier's and a partner's catalog
    return dbt.source("partner", "orders").union(dbt.source("supplier", "orders"))
