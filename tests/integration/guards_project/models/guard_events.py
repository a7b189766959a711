def model(dbt, spark):
    # partner events (event_time: ts) and local events: --sample windows both
    return dbt.source("partner", "events").union(dbt.source("local", "events"))
