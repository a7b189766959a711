{#-
  _cross_account_get_spark_df: the Python that opted-in models run instead of dbt-athena's
  get_spark_df. It holds the model's read plan as data: for each relation string dbt
  passes to get_spark_df, the finished Spark table names and settings computed by the
  plugin (plan.py, formats.py, names.py). For an owner's table: the separator name
  `<account_id>/<schema>`.`<table>` (the Hive read), the Iceberg name through a per-owner
  catalog and the Spark properties that register it, the one metadata lookup that names the
  table's format (unless the source's meta names it), the error raised instead of reading
  a format Spark cannot read (Delta, Hudi: the separator would return raw files), and the
  rules that re-raise a Glue error with what to do. For a local table, `<schema>`.`<table>`.
  Under dbt --sample, a relation's event_time window is applied in Spark (column and
  bounds as data).
  Each read touches the DataFrame's schema inside the error mapping, so that Spark Connect
  (lazy: Athena's Spark 3.5 engine) raises the same errors at the read as classic Spark.
  The code only looks names up and applies them: nothing is parsed or executed from a name.
  The plan enters as a JSON string literal (tojson twice, decoded with json.loads), so names
  round-trip exactly.
-#}
{% macro _cross_account_get_spark_df(tables) -%}
import json as _cross_account_json

# dbt_athena_cross_account: how this model reads each ref and source, decided at compile time.
# {relation as dbt renders it: {"table": Spark table name, "account": owner account id or None,
#  "empty": True under dbt --empty, "window": dbt --sample's event_time window (when it has one),
#  and for an owner's table "format", "detect", "reads",
#  "refuse", "errors" (see the plugin's plan.cross_account_entry)}}
_CROSS_ACCOUNT_TABLES = _cross_account_json.loads({{ tables | tojson | tojson }})
_CROSS_ACCOUNT_FORMATS = {}  # format found by each lookup, for this calculation


class CrossAccountReadError(RuntimeError):
    """dbt_athena_cross_account: a cross-account read failed; the message says what to do."""


def _cross_account_format(read):
    """The table's format: the source's meta names it, or one metadata lookup does."""
    detect = read.get("detect")
    if not detect:
        return read.get("format") or "hive"
    statement = detect["sql"]
    if statement not in _CROSS_ACCOUNT_FORMATS:
        try:
            rows = spark.sql(statement).collect()
        except Exception as error:
            # the Glue Hive client refuses some formats' tables: the refusal names them
            refused = [f for text, f in detect["refusals"].items() if text in str(error)]
            if not refused:
                raise
            found = refused[0]
        else:
            # the value is the last column: (key, value) from Spark 3.2, (value) before or
            # with spark.sql.legacy.keepCommandOutputSchema
            value = str(rows[0][-1]).strip().upper() if rows else ""
            found = detect["formats"].get(value, detect["default"])
        _CROSS_ACCOUNT_FORMATS[statement] = found
    return _CROSS_ACCOUNT_FORMATS[statement]


def _cross_account_table(read):
    """(Spark table name, format): the reader the format needs, registered once per session."""
    if not read.get("reads"):
        return read["table"], "hive"
    table_format = _cross_account_format(read)
    if table_format not in read["reads"]:  # Delta, Hudi, ...: the separator reads raw files
        raise CrossAccountReadError(read["refuse"][table_format])
    how = read["reads"][table_format]
    for key, value, inherit in how["conf"]:
        if inherit:
            value = spark.conf.get(inherit, None) or value
        if spark.conf.get(key, None) != value:
            spark.conf.set(key, value)
    return how["table"], table_format


def _cross_account_error(read, table_format, error):
    """The error to raise instead of ``error`` (None: raise it unchanged)."""
    text = str(error)
    for rule in read.get("errors") or []:
        if rule["format"] in (None, table_format) and any(m in text for m in rule["markers"]):
            said = [line.strip(" :") for line in text.splitlines() if line.strip(" :")]
            said = [line for line in said if not line.startswith("An error occurred while calling")]
            return CrossAccountReadError(rule["message"] + ("\nSpark: " + said[0][:600] if said else ""))
    return None


def _cross_account_window(df, window):
    """dbt --sample: the rows inside the event_time window dbt rendered for this relation.
    The column (Spark-quoted) and the bounds are data from the read plan, compared as a
    column and literals, as dbt-athena's SQL does (cast(col as timestamp) >= timestamp ...)."""
    from pyspark.sql import functions as _cross_account_f

    column = _cross_account_f.col(window["column"]).cast("timestamp")
    if window["start"] is not None:
        df = df.where(column >= _cross_account_f.lit(window["start"]).cast("timestamp"))
    if window["end"] is not None:
        df = df.where(column < _cross_account_f.lit(window["end"]).cast("timestamp"))
    return df


def get_spark_df(identifier):
    """
    Read a dbt ref or source with spark.table().

    dbt_athena_cross_account: the table name comes from the model's compile-time read plan.
    An owner account's Hive table is read through the Glue separator form
    `<account_id>/<schema>`.`<table>` (spark.hadoop.aws.glue.catalog.separator is "/" for
    models with spark_cross_account_catalog: true); an owner's Iceberg table through an
    Iceberg catalog for that account (glue.id); a local one as `<schema>`.`<table>`.
    """
    read = _CROSS_ACCOUNT_TABLES.get(identifier)
    if read is None:
        raise KeyError(
            "dbt_athena_cross_account: get_spark_df(" + repr(identifier) + ") "
            "is not a ref or source of this model, so it has no compile-time read plan. Known: "
            + repr(sorted(_CROSS_ACCOUNT_TABLES))
        )
    table_format = read.get("format") or "hive"
    try:
        name, table_format = _cross_account_table(read)
        df = spark.table(name)
        # Spark Connect (Athena's Spark 3.5 engine) resolves a table only when a DataFrame is
        # first analysed: touching the schema here keeps a missing table, a Glue refusal or
        # missing Iceberg classes inside this error mapping (classic Spark has it already)
        df.schema
    except CrossAccountReadError:
        raise
    except Exception as error:
        replaced = _cross_account_error(read, table_format, error)
        if replaced is None:
            raise
        raise replaced from error
    if read["empty"]:
        return df.limit(0)
    return _cross_account_window(df, read["window"]) if read.get("window") else df


class SparkdbtObj(dbtObj):
    def __init__(self):
        super().__init__(load_df_function=get_spark_df)
        self.source = lambda *args: source(*args, dbt_load_df_function=get_spark_df)
        self.ref = lambda *args, **kwargs: ref(*args, **kwargs, dbt_load_df_function=get_spark_df)
{% endmacro %}
