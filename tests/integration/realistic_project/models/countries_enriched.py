def model(dbt, spark):
    """The seed, read by a Python model."""
    dbt.config(materialized="table")
    countries = dbt.ref("countries")
    return countries.selectExpr("country", "upper(country_name) as country_name", "vat_rate")
