def model(dbt, spark):
    # the project maps settings_owner_catalog to a role, but this model does not opt in
    return dbt.source("owner", "orders")
