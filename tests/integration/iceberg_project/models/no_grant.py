def model(dbt, spark):
    # the owner 666666666666 has not granted the local account
    dbt.config(
        engine_config={
            "SparkProperties": {
                "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
            }
        }
    )
    return dbt.source("restricted", "orders")
