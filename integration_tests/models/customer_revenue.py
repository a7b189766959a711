def model(dbt, spark):
    """Scenario 2: an opted-in Python model that refs another Python model (local catalog)."""
    from pyspark.sql import functions as F

    dbt.config(materialized="table", spark_cross_account_catalog=True)
    enriched = dbt.ref("partner_orders_enriched")
    return enriched.groupBy("name").agg(
        F.count("order_id").alias("orders"), F.sum("amount").alias("revenue")
    )
