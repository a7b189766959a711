def model(dbt, spark):
    # the supplier's sales.ledger is a Delta table: the Glue separator would read its raw files
    return dbt.source("supplier", "ledger")
