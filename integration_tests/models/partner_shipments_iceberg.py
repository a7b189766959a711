def model(dbt, spark):
    """Scenario 8: the partner's Iceberg sales.shipments (read through an Iceberg catalog for
    account 999999999999, registered at run time) joined with its Hive sales.orders. The
    model's own table_type is iceberg: dbt-athena writes it as an Iceberg table."""
    dbt.config(materialized="table", spark_cross_account_catalog=True, table_type="iceberg")
    shipments = dbt.source("partner", "shipments")
    orders = dbt.source("partner", "orders")
    return shipments.join(orders, "order_id").select("order_id", "carrier", "amount")
