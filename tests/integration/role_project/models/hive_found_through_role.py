def model(dbt, spark):
    # the same Hive table without meta: the read through the role does not find it
    return dbt.source("owner", "customers")
