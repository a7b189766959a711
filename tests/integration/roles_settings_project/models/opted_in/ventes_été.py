def model(dbt, spark):
    # a model name STS would refuse in a session name; the table gets an ASCII alias
    dbt.config(alias="ventes_ete")
    return dbt.source("owner", "orders")
