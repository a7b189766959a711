def model(dbt, spark):
    # an owner's Iceberg table named by the source's meta, in a session with Iceberg's classes
    dbt.config(
        engine_config={
            "SparkProperties": {
                "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
            }
        }
    )
    return dbt.source("partner", "shipments")
