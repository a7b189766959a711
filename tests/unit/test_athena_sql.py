"""The emulator's reading of Athena SQL (sql/syntax.py, sql/translate.py,
sql/results.py, the handler table of sql/statements.py), without Spark or moto: each statement kind dbt-athena sends, the
names and properties read from the parsed tree, the Spark SQL a query becomes, the
results' types and text, and the statements it refuses."""

from __future__ import annotations

import datetime
import decimal

import pytest

from athena_spark_emulator.sql import results, syntax, translate
from athena_spark_emulator.sql import statements as sql_statements
from athena_spark_emulator.sql.syntax import Name, Untranslatable

CTAS = """create table "awsdatacatalog"."analytics"."orders__dbt_tmp"
    with (
      table_type='hive',
      is_external=true,
      external_location='s3://dbt-data/analytics/orders/5f0c',
      partitioned_by=ARRAY['order_date'],
      format='parquet'
    )
    as
      select id, cast(amount as varchar) as amount, order_date from "analytics"."src"
"""

SEED = """create external table `analytics`.`countries__dbt_tmp` (`country` string, `vat` string)
    row format serde 'org.apache.hadoop.hive.serde2.OpenCSVSerde'
    location 's3://dbt-data/analytics/countries__dbt_tmp/1'
    tblproperties ('skip.header.line.count'='1')"""

KINDS = [
    (CTAS, "CREATE TABLE AS"),
    (SEED, "CREATE TABLE"),
    ('create or replace view "analytics"."v" as select 1 as x', "CREATE VIEW"),
    ("create schema if not exists analytics", "CREATE SCHEMA"),
    ("drop schema if exists analytics cascade", "DROP SCHEMA"),
    ("drop table if exists `analytics`.`t`", "DROP TABLE"),
    ('drop view if exists "analytics"."v"', "DROP VIEW"),
    ("alter table `analytics`.`t__ha` rename to `analytics`.`t`", "ALTER TABLE RENAME"),
    ("alter table `a`.`t` set tblproperties ('classification' = 'parquet')", "ALTER TABLE SET"),
    ('insert into "analytics"."t" ("a") (select "a" from "analytics"."t__dbt_tmp")', "INSERT"),
    ("insert into analytics.t values (1, 'a')", "INSERT"),
    ("delete from analytics.t where id = 1", "DELETE"),
    ("merge into t using s on t.id = s.id when matched then update set x = s.x", "MERGE"),
    (
        "select count(*) as failures, count(*) != 0 as should_warn, count(*) != 0 as "
        "should_error from (select * from analytics.t where id is null) dbt_internal_test",
        "SELECT",
    ),
    ("with a as (select 1 x) select * from a union all select 2", "SELECT"),
    ("optimize analytics.t rewrite data using bin_pack", "COMMAND OPTIMIZE"),
]


@pytest.mark.parametrize("statement,kind", KINDS)
def test_each_statement_kind_dbt_athena_sends(statement: str, kind: str) -> None:
    assert syntax.statement_kind(syntax.parse(statement)) == kind


@pytest.mark.parametrize(
    "kind",
    [
        "SELECT",
        "CREATE TABLE AS",
        "CREATE TABLE",
        "CREATE VIEW",
        "INSERT",
        "DELETE",
        "MERGE",
        "CREATE SCHEMA",
        "DROP SCHEMA",
        "DROP TABLE",
        "DROP VIEW",
        "ALTER TABLE RENAME",
        "ALTER TABLE SET",
    ],
)
def test_every_kind_has_one_handler(kind: str) -> None:
    assert kind in sql_statements.HANDLERS.kinds("athena")


def test_metadata_statements_need_no_spark_and_data_statements_do() -> None:
    needs = {k: h.needs_spark for k, h in sql_statements.HANDLERS.kinds("athena").items()}
    assert not needs["DROP TABLE"] and not needs["ALTER TABLE RENAME"]
    assert needs["SELECT"] and needs["CREATE TABLE AS"] and needs["INSERT"]


@pytest.mark.parametrize(
    "statement,construct",
    [
        ("optimize analytics.t rewrite data using bin_pack", "OPTIMIZE statements"),
        ("vacuum analytics.t", "VACUUM statements"),
        ("show tables in analytics", "'SHOW TABLES' statements"),
        ("grant select on t to x", "GRANT statements"),
    ],
)
def test_a_kind_without_handler_is_refused_naming_it_and_the_statement(
    statement: str, construct: str
) -> None:
    """A kind without a handler, or a command (what sqlglot keeps opaque) without one."""
    parsed = syntax.parse(statement)
    kind = syntax.statement_kind(parsed)
    with pytest.raises(Untranslatable) as caught:
        found = sql_statements.Statement(statement, parsed, kind)
        sql_statements.handler_for(found).run(sql_statements.Engine(None), found)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith(f"NOT_SUPPORTED: the Athena emulator cannot run {construct}")
    assert f"Statement: {statement}" in message


def test_a_statement_sqlglot_cannot_parse_is_refused() -> None:
    with pytest.raises(Untranslatable, match="a statement sqlglot cannot parse") as caught:
        syntax.parse("select * from t match_recognize (x")
    assert "Statement: select * from t match_recognize (x" in str(caught.value)


def test_two_statements_in_one_query_are_refused() -> None:
    with pytest.raises(Untranslatable, match="2 statements in one query"):
        syntax.parse("select 1; select 2")


def test_names_come_from_the_parsed_tree() -> None:
    tree = syntax.parse(
        'select * from "partner_catalog"."sales"."orders" o join analytics.t using (id) '
        "join plain using (id)"
    )
    names = [syntax.table_name(t) for t in syntax.tables_read(tree)]
    assert names == [
        Name("partner_catalog", "sales", "orders"),
        Name(None, "analytics", "t"),
        Name(None, None, "plain"),
    ]


def test_cte_names_are_not_tables() -> None:
    tree = syntax.parse("with a as (select * from db.src) select * from a join db.b using (x)")
    assert sorted(t.name for t in syntax.tables_read(tree)) == ["b", "src"]


def test_ctas_properties_as_dbt_athena_writes_them() -> None:
    create = syntax.parse(CTAS)
    assert syntax.properties(create) == {
        "table_type": "hive",
        "is_external": True,
        "external_location": "s3://dbt-data/analytics/orders/5f0c",
        "partitioned_by": ["order_date"],
        "format": "parquet",
    }


def test_seed_table_properties_and_columns() -> None:
    create = syntax.parse(SEED)
    props = syntax.properties(create)
    assert props["serde"] == "org.apache.hadoop.hive.serde2.OpenCSVSerde"
    assert props["location"] == "s3://dbt-data/analytics/countries__dbt_tmp/1"
    assert props["skip.header.line.count"] == "1"
    assert syntax.column_defs(create) == [("country", "string"), ("vat", "string")]


def test_a_query_becomes_spark_sql_over_the_views_that_stand_for_its_tables() -> None:
    tree = syntax.parse(
        "select o.id, try_cast(o.amount as varchar) as a, approx_distinct(c.id) n "
        'from "analytics"."orders" o join analytics.customers c on c.id = o.id group by 1, 2'
    )
    tables = syntax.tables_read(tree)
    spark = translate.to_spark(tree, {id(tables[0]): "v1", id(tables[1]): "v2"})
    assert spark == (
        "SELECT o.id, TRY_CAST(o.amount AS STRING) AS a, APPROX_COUNT_DISTINCT(c.id, 0.023) AS n "
        "FROM `v1` AS o JOIN `v2` AS c ON c.id = o.id GROUP BY 1, 2"
    )


def test_an_unaliased_table_keeps_its_name_for_qualified_columns() -> None:
    tree = syntax.parse("select orders.id from analytics.orders")
    [table] = syntax.tables_read(tree)
    assert translate.to_spark(tree, {id(table): "v"}) == "SELECT orders.id FROM `v` AS orders"


@pytest.mark.parametrize(
    "type_name,athena",
    [
        ("StringType", "varchar"),
        ("LongType", "bigint"),
        ("IntegerType", "integer"),
        ("DoubleType", "double"),
        ("BooleanType", "boolean"),
        ("DateType", "date"),
        ("TimestampType", "timestamp"),
    ],
)
def test_result_column_types_are_athena_s(type_name: str, athena: str) -> None:
    from pyspark.sql import types

    assert results.athena_type(getattr(types, type_name)()) == athena


def test_complex_result_types_are_athena_s() -> None:
    from pyspark.sql import types as T

    assert results.athena_type(T.DecimalType(10, 2)) == "decimal"
    assert results.athena_type(T.ArrayType(T.LongType())) == "array"
    assert results.athena_type(T.MapType(T.StringType(), T.LongType())) == "map"
    assert results.athena_type(T.StructType([T.StructField("a", T.LongType())])) == "row"


def test_result_values_are_written_as_athena_writes_them() -> None:
    value = results.athena_value
    assert value(None) is None
    assert value(True) == "true"
    # microseconds kept (Athena's timestamp(6)); milliseconds otherwise, as timestamp(3)
    assert value(datetime.datetime(2020, 1, 2, 3, 4, 5, 123456)) == "2020-01-02 03:04:05.123456"
    assert value(datetime.datetime(2020, 1, 2, 3, 4, 5, 123000)) == "2020-01-02 03:04:05.123"
    assert value(datetime.timedelta(days=1, hours=2, minutes=3, seconds=4)) == "1 02:03:04.000"
    assert value(datetime.date(2020, 1, 2)) == "2020-01-02"
    assert value(decimal.Decimal("2.50")) == "2.50"
    assert value([1, None, 3]) == "[1, null, 3]"
    assert value({"k": 1}) == "{k=1}"


def test_varchar_is_string_in_glue() -> None:
    assert syntax.hive_type("VARCHAR") == "string"
    assert syntax.hive_type("varchar(20)") == "string"
    assert syntax.hive_type("integer") == "int"
    assert syntax.hive_type("decimal(10,2)") == "decimal(10,2)"


def test_dbt_athena_seed_timestamp_parsing_becomes_spark_patterns() -> None:
    """dbt-athena's seeds wrap each timestamp format in try(date_parse(...)): under ANSI
    mode Spark's try_to_timestamp (NULL where the parse fails, as try() on Athena), with
    literal letters quoted as Spark's patterns need; a format with %f truncated to whole
    milliseconds, as Trino's Joda parse keeps them (tests/emulator/test_array_json_text.py
    runs these formats over a table's columns)."""
    tree = syntax.parse(
        "select coalesce(try(date_parse(x, '%Y-%m-%dT%H:%i:%s.%fZ')), "
        "try(date_parse(x, '%Y-%m-%d %H:%i:%s'))) as x from t"
    )
    assert translate.to_spark(tree, {}) == (
        "SELECT COALESCE(DATE_TRUNC('MILLISECOND', "
        "TRY_TO_TIMESTAMP(x, 'yyyy-M-d\\'T\\'H:m:s.SSSSSS\\'Z\\'')), "
        "TRY_TO_TIMESTAMP(x, 'yyyy-M-d H:m:s')) AS x FROM t"
    )


def test_dbt_athena_merge_becomes_three_spark_queries() -> None:
    """dbt-athena's iceberg merge: kept target rows, matched rows after their first
    clause (deleted ones out), and the inserted source rows."""
    tree = syntax.parse(
        "merge into analytics.t as target using analytics.t__dbt_tmp as src "
        "on (target.id = src.id) when matched and src.x is null then delete "
        "when matched then update set x = src.x "
        "when not matched then insert (id, x) values (src.id, src.x)"
    )
    plan = translate.merge_plan(tree, ["id", "x"], "merge ...")
    kept, updated, inserted = plan.queries("tv", "sv")
    assert kept == (
        "SELECT target.`id`, target.`x` FROM `tv` AS target LEFT ANTI JOIN `sv` AS src "
        "ON (target.id = src.id)"
    )
    assert updated == (
        "SELECT CASE WHEN true THEN target.`id` ELSE target.`id` END AS `id`, "
        "CASE WHEN true THEN src.x ELSE target.`x` END AS `x` "
        "FROM `tv` AS target JOIN `sv` AS src ON (target.id = src.id) WHERE NOT "
        "(CASE WHEN src.x IS NULL THEN true WHEN true THEN false ELSE false END)"
    )
    assert inserted == (
        "SELECT src.id AS `id`, src.x AS `x` FROM `sv` AS src LEFT ANTI JOIN `tv` AS target "
        "ON (target.id = src.id) WHERE true"
    )
