def model(dbt, spark):
    # a Hive table of the role's owner, its format named in meta: refused at compile time
    return dbt.source("owner_hive", "customers")
