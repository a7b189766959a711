"""``typeof`` names the Athena (Trino 410) type of every value the translation can type,
through the emulator's Athena API, over the columns of a Hive table, an Iceberg table, a
view over each and an import CTE: an unbounded ``varchar`` (a ``string`` column and what
upper, lower, substr, min, max and arbitrary make of it: StringFunctions' varchar(x)
signatures keep it unbounded), a Hive table's ``timestamp(3)`` and an Iceberg table's
``timestamp(6)`` (Athena's precisions), and the arrays, maps and rows built of them
(ArrayType, MapType and RowType's display names, ``row(x integer, y varchar)``), by
array_agg, map_agg, histogram, multimap_agg and max(x, n). GetQueryResults' ColumnInfo of
each value agrees. A value whose varchar length the emulator cannot tell is still refused
(NOT_SUPPORTED), and a string literal keeps its length through a CTE."""

from __future__ import annotations

from typing import Dict, Iterator, List, Tuple

import pytest

from athena_spark_emulator import Emulator
from athena_spark_emulator.sql.results import column_info
from tests.emulator.table_forms import emulator_with_tables, failure, row
from tests.emulator.test_athena_semantics import settled

SCHEMA = "typeof_names"
_ROWS = "(values ('a', timestamp '{0}'), ('bb', timestamp '{1}'), (NULL, NULL)) v(s, ts)"
TABLES = {
    "hive": (
        f"create table {SCHEMA}.t_hive with (format='PARQUET', "
        f"external_location='s3://dbt-data/{SCHEMA}/t_hive/') as "
        "select cast(s as varchar) as s, ts from "
        + _ROWS.format("2024-01-01 10:00:00.123", "2024-01-02 11:00:00.456")
    ),
    "iceberg": (
        f"create table {SCHEMA}.t_iceberg with (table_type='ICEBERG', is_external=false, "
        f"location='s3://dbt-data/{SCHEMA}/t_iceberg/') as "
        "select cast(s as varchar) as s, ts from "
        + _ROWS.format("2024-01-01 10:00:00.123456", "2024-01-02 11:00:00.456789")
    ),
}
VIEW = "create view " + SCHEMA + ".v_{kind} as select * from " + SCHEMA + ".t_{kind}"

#: (source, its timestamp's type): the tables, the views over them, an import CTE
SOURCES = {
    "hive": (f"{SCHEMA}.t_hive", "timestamp(3)"),
    "iceberg": (f"{SCHEMA}.t_iceberg", "timestamp(6)"),
    "view_hive": (f"{SCHEMA}.v_hive", "timestamp(3)"),
    "view_iceberg": (f"{SCHEMA}.v_iceberg", "timestamp(6)"),
    "cte": ("src", "timestamp(6)"),
}
CTE = f"with src as (select * from {SCHEMA}.t_iceberg) "

#: value -> its Athena type ({ts}: the source's timestamp type)
SCALARS = {
    "s": "varchar",
    "lower(s)": "varchar",
    "upper(s)": "varchar",
    "substr(s, 1, 1)": "varchar",
    "url_extract_host(s)": "varchar",  # UrlFunctions: varchar(x) of varchar(x)
    "ts": "{ts}",
    "cast(row(1, s) as row(x integer, y varchar))": "row(x integer, y varchar)",
}
AGGREGATES = {
    "max(s)": "varchar",
    "arbitrary(s)": "varchar",
    "min(ts)": "{ts}",
    "max(s, 2)": "array(varchar)",
    "array_agg(s)": "array(varchar)",
    "array_agg(ts)": "array({ts})",
    "map_agg(s, ts)": "map(varchar, {ts})",
    "histogram(s)": "map(varchar, bigint)",
    "multimap_agg(s, ts)": "map(varchar, array({ts}))",
}


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(SCHEMA, TABLES, VIEW)


def _result(emu: Emulator, sql: str) -> Tuple[List[object], List[dict]]:
    """(the first row's values, ColumnInfo) of ``sql``, which must succeed."""
    athena = emu.client("athena")
    exec_id = athena.start_query_execution(
        QueryString=sql, QueryExecutionContext={"Database": "default"}, WorkGroup="primary"
    )["QueryExecutionId"]
    status = settled(athena, exec_id)
    assert status["State"] == "SUCCEEDED", f"{status.get('StateChangeReason')}: {sql}"
    result = athena.get_query_results(QueryExecutionId=exec_id)["ResultSet"]
    values = [d.get("VarCharValue") for d in result["Rows"][1]["Data"]]
    return values, result["ResultSetMetadata"]["ColumnInfo"]


def _check(emu: Emulator, source: str, values: Dict[str, str]) -> None:
    """Each value's typeof, and the ColumnInfo of the value itself, over ``source``."""
    table, timestamp = SOURCES[source]
    items = ", ".join(f"typeof({v}), {v}" for v in values)
    sql = (CTE if source == "cte" else "") + f"select {items} from {table}"
    found, info = _result(emu, sql)
    expected = {v: t.format(ts=timestamp) for v, t in values.items()}
    named = {v: found[2 * i] for i, v in enumerate(values)}
    assert named == expected
    columns = {v: (c["Type"], c["Precision"], c["Scale"]) for v, c in zip(values, info[1::2])}
    assert columns == {v: column_info(t) for v, t in expected.items()}


@pytest.mark.parametrize("source", list(SOURCES))
def test_typeof_names_columns_and_what_keeps_their_type(emu: Emulator, source: str) -> None:
    _check(emu, source, SCALARS)


@pytest.mark.parametrize("source", list(SOURCES))
def test_typeof_names_aggregates_of_arrays_and_maps(emu: Emulator, source: str) -> None:
    _check(emu, source, AGGREGATES)


def test_a_string_literal_keeps_its_length_through_a_cte(emu: Emulator) -> None:
    """Trino types 'abc' varchar(3), and upper keeps it (varchar(x) -> varchar(x)); ``||``
    of varchars is an unbounded varchar (ConcatFunction, TestVarcharOperators)."""
    sql = (
        "with c as (select 'abc' as v) select typeof(v), typeof(upper(v)), typeof(v || 'de') from c"
    )
    assert row(emu, sql) == ["varchar(3)", "varchar(3)", "varchar"]


@pytest.mark.parametrize("source", list(SOURCES))
def test_to_iso8601_has_the_length_of_its_timestamps_precision(emu: Emulator, source: str) -> None:
    """to_iso8601(timestamp(p)) is varchar(22 + p + 1) (DateTimeFunctions' ToIso8601):
    varchar(26) over a Hive table's timestamp(3), varchar(29) over Iceberg's timestamp(6)."""
    table, timestamp = SOURCES[source]
    sql = (CTE if source == "cte" else "") + f"select typeof(to_iso8601(ts)) from {table}"
    assert row(emu, sql) == [
        {"timestamp(3)": "varchar(26)", "timestamp(6)": "varchar(29)"}[timestamp]
    ]


@pytest.mark.parametrize(
    "value",
    [
        "json_extract_scalar(s, '$.a')",  # a rewrite's Spark form: its length not tracked
        "url_encode(s)",  # varchar(x * 12) (UrlFunctions): not modelled
    ],
)
def test_a_varchar_whose_length_is_unknown_is_refused(emu: Emulator, value: str) -> None:
    reason = failure(emu, f"select typeof({value}) from {SCHEMA}.t_hive")
    assert reason.startswith("NOT_SUPPORTED") and "cannot tell this value's Athena type" in reason
