def model(dbt, spark):
    # the same Iceberg table in a Hive session: no Iceberg classes to read it with
    return dbt.source("partner", "shipments")
