def model(dbt, spark):
    # an Iceberg table whose table-level meta says hive
    return dbt.source("owner_meta_hive", "orders")
