def model(dbt, spark):
    return dbt.ref("written_elsewhere_local")
