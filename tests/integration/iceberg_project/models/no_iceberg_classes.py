def model(dbt, spark):
    # a Hive model without Iceberg's classes reads an owner's Iceberg table
    return dbt.source("partner", "orders")
