{#-
  _cross_account_get_spark_df: the Python that opted-in models run instead of dbt-athena's
  get_spark_df. It holds the model's read plan as data: for each relation string dbt
  passes to get_spark_df, the finished Spark table name (`<account_id>/<schema>`.`<table>`
  for an owner's table, `<schema>`.`<table>` for a local one, every part backtick-quoted
  by the plugin) and whether dbt --empty asked for no rows. The code only looks names
  up: nothing is parsed or executed from a name. The plan enters as a JSON string literal
  (tojson twice, decoded with json.loads), so names round-trip exactly.
-#}
{% macro _cross_account_get_spark_df(tables) -%}
import json as _cross_account_json

# dbt_athena_cross_account: how this model reads each ref and source, decided at compile time.
# {relation as dbt renders it: {"table": Spark table name, "account": owner account id or None,
#  "empty": True under dbt --empty}}
_CROSS_ACCOUNT_TABLES = _cross_account_json.loads({{ tables | tojson | tojson }})


def get_spark_df(identifier):
    """
    Read a dbt ref or source with spark.table().

    dbt_athena_cross_account: the table name comes from the model's compile-time read plan.
    An owner account's table is read through the Glue separator form
    `<account_id>/<schema>`.`<table>` (spark.hadoop.aws.glue.catalog.separator is "/" for
    models with spark_cross_account_catalog: true); a local one as `<schema>`.`<table>`.
    """
    read = _CROSS_ACCOUNT_TABLES.get(identifier)
    if read is None:
        raise KeyError(
            "dbt_athena_cross_account: get_spark_df(" + repr(identifier) + ") is not a ref or "
            "source of this model, so it has no compile-time read plan. Known: "
            + repr(sorted(_CROSS_ACCOUNT_TABLES))
        )
    df = spark.table(read["table"])
    return df.limit(0) if read["empty"] else df


class SparkdbtObj(dbtObj):
    def __init__(self):
        super().__init__(load_df_function=get_spark_df)
        self.source = lambda *args: source(*args, dbt_load_df_function=get_spark_df)
        self.ref = lambda *args, **kwargs: ref(*args, **kwargs, dbt_load_df_function=get_spark_df)
{% endmacro %}
