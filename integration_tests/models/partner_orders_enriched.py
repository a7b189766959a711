def model(dbt, spark):
    """Scenario 1: the partner's sales.orders (account 999999999999) joined with a local ref."""
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    orders = dbt.source("partner", "orders")
    customers = dbt.ref("local_customers")
    return orders.join(customers, "customer_id").select(
        "order_id", "customer_id", "name", "country", "amount"
    )
