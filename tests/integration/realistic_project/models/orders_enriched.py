def model(dbt, spark):
    """Two partners' catalogs joined with the SQL staging table."""
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    orders = dbt.source("partner", "orders")
    products = dbt.source("supplier", "products")
    customers = dbt.ref("stg_customers")
    return (
        orders.join(products, "sku")
        .join(customers, "customer_id")
        .select("order_id", "customer_id", "name", "country", "product", "amount")
    )
