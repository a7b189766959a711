def model(dbt, spark):
    """Incremental (append): each run adds the partner's orders it has not seen."""
    dbt.config(
        materialized="incremental",
        incremental_strategy="append",
        spark_cross_account_catalog=True,
    )
    orders = dbt.source("partner", "orders").select("order_id", "amount")
    if dbt.is_incremental:
        seen = spark.table(f"`{dbt.this.schema}`.`{dbt.this.identifier}`")
        high = seen.agg({"order_id": "max"}).collect()[0][0]
        orders = orders.where(orders.order_id > high)
    return orders
