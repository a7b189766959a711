def model(dbt, spark):
    """Scenario 7: the Glue separator property overridden through engine_config, so
    `999999999999/sales` is a literal (missing) database name."""
    dbt.config(
        materialized="table",
        spark_cross_account_catalog=True,
        engine_config={"SparkProperties": {"spark.hadoop.aws.glue.catalog.separator": ""}},
    )
    return dbt.source("partner", "orders")
