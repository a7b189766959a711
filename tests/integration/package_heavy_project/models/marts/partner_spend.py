def model(dbt, session):
    # a partner's Glue catalog, read cross-account by an opted-in Python model
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    orders = dbt.source("partner", "orders")
    return orders.groupBy("user_email").sum("amount").withColumnRenamed("sum(amount)", "spend")
