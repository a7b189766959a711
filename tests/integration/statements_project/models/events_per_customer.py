# A Python model (Athena for Apache Spark) reading the partitioned Iceberg table.
def model(dbt, spark):
    dbt.config(materialized="table", table_type="iceberg")
    events = dbt.ref("events")
    return events.groupBy("customer_id").count().withColumnRenamed("count", "events")
