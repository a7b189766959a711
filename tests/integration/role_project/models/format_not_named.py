def model(dbt, spark):
    # read through the role, but the source does not name the format: a compile error
    return dbt.source("owner_unnamed", "orders")
