def model(dbt, spark):
    # two owner accounts' Hive tables joined with a local one
    orders = dbt.source("partner", "orders")
    customers = dbt.source("supplier", "customers")
    regions = dbt.source("reference", "regions")
    return (
        orders.join(customers, "customer_id")
        .join(regions, "customer_id")
        .select("order_id", "name", "region", "amount")
    )
