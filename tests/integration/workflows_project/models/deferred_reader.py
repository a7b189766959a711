def model(dbt, spark):
    return dbt.ref("upstream_orders")
