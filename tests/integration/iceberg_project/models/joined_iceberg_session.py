def model(dbt, spark):
    # the model's own table_type: iceberg (dbt-athena makes spark_catalog Iceberg's
    # SparkSessionCatalog and writes the table as Iceberg)
    dbt.config(table_type="iceberg")
    orders = dbt.source("partner", "orders").union(dbt.source("supplier", "orders"))  # Iceberg
    customers = dbt.source("supplier", "customers")  # Hive, another owner
    lines = dbt.source("partner_lines", "order_lines")  # Iceberg, upper case and hyphens
    return (
        orders.join(customers, "customer_id")
        .join(lines, "order_id")
        .select("order_id", "name", "sku", "amount")
    )
