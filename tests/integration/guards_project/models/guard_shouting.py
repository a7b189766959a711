def model(dbt, spark):
    return dbt.source("shouting", "lines")
