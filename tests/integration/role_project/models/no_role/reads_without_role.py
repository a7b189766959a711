def model(dbt, spark):
    # the same table without the role: the execution role holds no grant
    return dbt.source("owner", "orders")
