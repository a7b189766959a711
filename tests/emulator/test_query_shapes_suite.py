"""Query shapes that dbt-athena's own functional suite sends (``dbt-athena/tests/functional``
of dbt-adapters: the partitions, force_batch, unique_tmp_table_suffix and connections tests),
over the columns of a Hive table, an Iceberg table, a view and an import CTE, through the
emulator's Athena API.

On main before the change: a function the emulator runs as a Python UDF inside ``VALUES``
failed with Spark's ``INVALID_INLINE_TABLE``; ``UNNEST`` without column names, a join after
a join with ``UNNEST`` and ``split_part`` with a column as the delimiter were refused
``NOT_SUPPORTED``; ``X'68 65'`` failed with sqlglot's ``TokenError``; text that is not SQL
was answered ``NOT_SUPPORTED`` rather than Trino's syntax error."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

ROWS = (
    "select * from (values (1, array[10, 20], 'a,b,c', ',', '2023-01-02'), "
    "(2, array[30], 'x|y', '|', '2023-01-05')) as t(id, arr, parts, delim, day)"
)
TABLES = {
    "hive": "create table shapes.shapes_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/shapes/shapes_hive/') as {ROWS}",
    "iceberg": "create table shapes.shapes_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/shapes/shapes_iceberg/') as {ROWS}",
}
SOURCES = ["shapes.shapes_hive", "shapes.shapes_iceberg", "shapes.v_hive", "shapes.v_iceberg"]
# dbt-athena's partitions tests: a row of one array made by a UDF (from_iso8601_date)
DAYS = (
    "(values (sequence(from_iso8601_date('2023-01-01'), from_iso8601_date('2023-01-31'), "
    "interval '1' day))) as t1(date_array)"
)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "shapes", TABLES, "create view shapes.v_{kind} as select * from shapes.shapes_{kind}"
    )


def rows(emu: Emulator, sql: str) -> list:
    state, found = run(emu, sql)
    assert state == "SUCCEEDED", found
    return found


def source_of(source: str, cte: bool) -> tuple:
    """(WITH clause, FROM item) reading ``source`` directly or through an import CTE."""
    if cte:
        return f"with s as (select * from {source}) ", "s"
    return "", source


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_values_with_a_udf_is_a_table(emu: Emulator, source: str, cte: bool) -> None:
    """A UDF inside VALUES (dbt-athena's partitions tests): the rows keep their column
    names and types, joined to a table's column."""
    with_, item = source_of(source, cte)
    sql = (
        f"{with_}select count(*), min(date_column), max(x.id) from {DAYS} "
        f"cross join unnest(date_array) as t2(date_column) "
        f"join {item} x on date_column = from_iso8601_date(x.day)"
    )
    assert rows(emu, sql)[1] == ["2", "2023-01-02", "2"]
    sql = (
        f"{with_}select v.d, v.k, x.id from (values "
        f"(from_iso8601_date('2023-01-05'), 'late'), (from_iso8601_date('2023-01-02'), 'early')) "
        f"as v(d, k) join {item} x on v.d = from_iso8601_date(x.day) order by x.id"
    )
    assert rows(emu, sql)[1:] == [["2023-01-02", "early", "1"], ["2023-01-05", "late", "2"]]


def test_values_with_a_udf_as_a_query_names_columns_as_athena(emu: Emulator) -> None:
    found = rows(emu, "values (from_iso8601_date('2023-01-05'), 1), (null, 2)")
    assert found == [["_col0", "_col1"], ["2023-01-05", "1"], [None, "2"]]


def test_unnest_without_column_names(emu: Emulator) -> None:
    """dbt-athena's nullable partition test: ``from unnest(sequence(1, 200))``."""
    sql = "select count(*), count(1) from (select * from unnest(sequence(1, 200)) as t)"
    assert rows(emu, sql)[1] == ["200", "200"]
    # the unnamed column is Trino's _col0 behind a *
    assert rows(emu, "select * from unnest(array['a', 'b'])") == [["_col0"], ["a"], ["b"]]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_unnest_of_a_column_without_names(emu: Emulator, source: str, cte: bool) -> None:
    with_, item = source_of(source, cte)
    assert rows(emu, f"{with_}select count(*) from {item} x cross join unnest(x.arr)")[1] == ["3"]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_a_join_after_a_join_with_unnest(emu: Emulator, source: str, cte: bool) -> None:
    """dbt-athena's bucket partitions test joins after ``cross join unnest``; here the
    later join's condition reads the unnested column too."""
    with_, item = source_of(source, cte)
    sql = (
        f"{with_}select x.id, u.n, y.id from {item} x cross join unnest(x.arr) as u(n) "
        f"join {item} y on u.n = y.id * 10 order by u.n"
    )
    assert rows(emu, sql)[1:] == [["1", "10", "1"], ["1", "20", "2"]]
    sql = (
        f"{with_}select x.id, u.n, y.id from {item} x left join unnest(x.arr) as u(n) on true "
        f"left join {item} y on u.n = y.id * 10 order by u.n"
    )
    assert rows(emu, sql)[1:] == [["1", "10", "1"], ["1", "20", "2"], ["2", "30", None]]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_split_part_with_a_column_delimiter(emu: Emulator, source: str, cte: bool) -> None:
    """dbt's split_part test reads the delimiter from a column (Trino: split_part(string,
    delimiter, index), any varchar delimiter; NULL past the last part)."""
    with_, item = source_of(source, cte)
    sql = (
        f"{with_}select split_part(x.parts, x.delim, 2), split_part(x.parts, x.delim, 3) "
        f"from {item} x order by x.id"
    )
    assert rows(emu, sql)[1:] == [["b", "c"], ["y", None]]


def test_a_binary_literal_with_spaces(emu: Emulator) -> None:
    """Trino's X'68 65 6c' allows spaces between the hex digits (SqlBase.g4 BINARY_LITERAL:
    X'(HEX_DIGIT|' ')*')."""
    sql = "select X'68 65 6c 6c 6f 20 77 6f 72 6c 64', to_hex(X'0a 0B'), typeof(X'68 65')"
    assert rows(emu, sql)[1] == ["68 65 6c 6c 6f 20 77 6f 72 6c 64", "0A0B", "varbinary"]


def test_text_that_is_not_sql_is_trinos_syntax_error(emu: Emulator) -> None:
    state, reason = run(emu, "THIS IS NOT SQL")
    assert state == "FAILED"
    assert reason.startswith("SYNTAX_ERROR: line 1:1: mismatched input 'THIS'. Expecting: 'ALTER'")
    assert "NOT_SUPPORTED" not in reason


def test_explain_is_refused_naming_it(emu: Emulator) -> None:
    """Athena answers EXPLAIN with Trino's plan, which the emulator (running Spark) has not
    got: refused, never a made-up plan."""
    state, reason = run(emu, "EXPLAIN SELECT 1")
    assert state == "FAILED"
    assert reason.startswith("NOT_SUPPORTED: the Athena emulator cannot run EXPLAIN")
    assert "Trino" in reason


@pytest.mark.parametrize("source", SOURCES)
def test_the_sequence_table_function(emu: Emulator, source: str) -> None:
    """Trino's TABLE(sequence(start => ..., stop => ..., step => ...)) (SequenceFunction:
    one bigint column sequential_number, stop inclusive), joined to a table's column."""
    sql = (
        "select count(*), min(sequential_number), max(sequential_number) "
        "from TABLE(sequence(start => 0, stop => 1000))"
    )
    assert rows(emu, sql)[1] == ["1001", "0", "1000"]
    sql = (
        f"select s.n, x.id from TABLE(sequence(5, 1, -2)) as s(n) join {source} x on s.n = x.id "
        "order by s.n"
    )
    assert rows(emu, sql)[1:] == [["1", "1"]]
    state, reason = run(emu, "select * from TABLE(sequence(start => 5, stop => 1))")
    assert (state, reason) == (
        "FAILED",
        "INVALID_FUNCTION_ARGUMENT: Step must be negative for sequence [5, 1]",
    )


def test_an_unknown_column_of_the_sequence_table_function(emu: Emulator) -> None:
    """dbt-athena's test__semantic_error: Athena's COLUMN_NOT_FOUND names the column."""
    state, reason = run(emu, "SELECT not_a_column FROM TABLE(sequence(start => 0, stop => 1000))")
    assert state == "FAILED"
    assert "Column 'not_a_column' cannot be resolved" in reason


def test_too_many_open_partitions_from_the_sequence_table_function(emu: Emulator) -> None:
    """dbt-athena's test__too_many_open_partitions: 1001 Hive partitions in one INSERT."""
    table = "shapes.too_many_partitions"
    create = (
        f"create table {table} with (format='PARQUET', partitioned_by=ARRAY['pk1']) "
        "as select 1 as value, 'seed' as pk1"
    )
    assert run(emu, create)[0] == "SUCCEEDED"
    state, reason = run(
        emu,
        f"insert into {table} select sequential_number as value, "
        "cast(sequential_number as varchar) as pk1 from TABLE(sequence(start => 0, stop => 1000))",
    )
    assert state == "FAILED"
    assert "TOO_MANY_OPEN_PARTITIONS" in reason


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_distinct_ordered_by_a_select_expression(emu: Emulator, source: str, cte: bool) -> None:
    """dbt-athena's batched partition inserts: ``select distinct date_trunc('day', d), doy
    ... order by date_trunc('day', d), doy`` (Spark could not resolve ``d`` past the
    DISTINCT's named projection: UNRESOLVED_COLUMN)."""
    with_, item = source_of(source, cte)
    sql = (
        f"{with_}select distinct date_trunc('day', cast(x.day as date)), upper(x.parts) "
        f"from {item} x order by date_trunc('day', cast(x.day as date)) desc, upper(x.parts)"
    )
    assert rows(emu, sql)[1:] == [["2023-01-05", "X|Y"], ["2023-01-02", "A,B,C"]]
