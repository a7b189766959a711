def model(dbt, spark):
    # the model's own table_type: hive (its session catalog is the Hive Glue client; the
    # Iceberg extension in engine_config puts Iceberg's classes in the session)
    dbt.config(
        table_type="hive",
        engine_config={
            "SparkProperties": {
                "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
            }
        },
    )
    orders = dbt.source("partner", "orders").union(dbt.source("supplier", "orders"))  # Iceberg
    customers = dbt.source("supplier", "customers")  # Hive, another owner
    lines = dbt.source("partner_lines", "order_lines")  # Iceberg, upper case and hyphens
    return (
        orders.join(customers, "customer_id")
        .join(lines, "order_id")
        .select("order_id", "name", "sku", "amount")
    )
