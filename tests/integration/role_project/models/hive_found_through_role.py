def model(dbt, spark):
    # the Hive table, its source wrongly saying iceberg: the read through the role does not
    # find it
    return dbt.source("owner", "customers")
