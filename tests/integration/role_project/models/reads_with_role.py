def model(dbt, spark):
    # the owner grants nothing: read through its reader role (the project's setting)
    return dbt.source("owner", "orders")
