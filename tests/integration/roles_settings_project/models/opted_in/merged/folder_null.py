def model(dbt, spark):
    # the folder maps another catalog to null: the project's role still reads the owner
    orders = dbt.source("owner", "orders")
    customers = dbt.source("second", "customers")
    return orders.join(customers, "customer_id").select("order_id", "name", "amount")
