def model(dbt, spark):
    # a pinned version and the latest one (stock dbt-athena's dbt.ref takes no v=)
    return dbt.ref("versioned_orders", v=1).union(dbt.ref("versioned_orders"))
