def model(dbt, spark):
    # one owner through its role (Iceberg), the other through its grant (Hive)
    orders = dbt.source("owner", "orders")
    customers = dbt.source("crm", "customers")
    return orders.join(customers, "customer_id").select("order_id", "name", "amount")
