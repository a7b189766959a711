"""Array, map and row operators where Trino's own unit tests (release 410: TestArrayOperators,
TestMapOperators, TestRowOperators) disagree with Spark, through the emulator's Athena API,
over literals and over the columns of a Hive table, an Iceberg table, a view over each and
an import CTE.

On main before the change: ``=`` of arrays of arrays or of doubles with a NULL element, and
of rows with a NULL field, answered Spark's true/false where Trino's is NULL (indeterminate);
array_max of rows or arrays holding NaN answered the NaN one (Trino orders NaN first);
contains, array_position and array_remove of arrays holding NULLs answered where Trino fails
NOT_SUPPORTED; array_intersect listed the first array's order where Trino lists the longer
one's; array_sort's comparator could return any number; repeat made results of any size;
map_from_entries of a NULL entry was NULL; a row comparison with a NULL field answered."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

SCHEMA = "arrays_map_row"
ROWS = (
    "select * from (values (1, nan(), array[1.0E0, 2.0E0, null], "
    "array[array[1], array[null], array[3]], array[array[1], array[2], array[3]], "
    "array[2.0E0, 3.0E0], 'abc')) as t(id, nan_value, doubles, nested_nulls, nested, pair, word)"
)
TABLES = {
    "hive": f"create table {SCHEMA}.t_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/t_hive/') as {ROWS}",
    "iceberg": f"create table {SCHEMA}.t_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/t_iceberg/') as {ROWS}",
}
SOURCES = [f"{SCHEMA}.t_hive", f"{SCHEMA}.t_iceberg", f"{SCHEMA}.v_hive", f"{SCHEMA}.v_iceberg"]
CASES = [
    pytest.param(source, cte, id=f"{source}-{'cte' if cte else 'from'}")
    for source in SOURCES
    for cte in (False, True)
]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA, TABLES, f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.t_{{kind}}"
    )


def query(source: str, cte: bool, expression: str) -> str:
    if cte:
        return f"with s as (select * from {source}) select {expression} from s x"
    return f"select {expression} from {source} x"


def answer(emu: Emulator, sql: str) -> list:
    state, rows = run(emu, sql)
    assert state == "SUCCEEDED", rows
    return rows[1]


def failure(emu: Emulator, sql: str) -> str:
    state, reason = run(emu, sql)
    assert state == "FAILED", reason
    return reason


# ---- = and <> of arrays and rows (ArrayType / RowType equalOperator) ------------------------
@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select array[1.0E0, 2.0E0, null] = array[1.0E0, 2.0E0, null]", None),
        (
            "select array[array[1], array[null], array[3]] = array[array[1], array[2], array[3]]",
            None,
        ),
        (
            "select array[array[1], array[null], array[3]] != array[array[1], array[2], array[3]]",
            None,
        ),
        ("select array[array[1], array[null]] = array[array[2], array[null]]", "false"),
        ("select array[array[1], array[2]] = array[array[1], array[2]]", "true"),
        ("select array[nan()] = array[nan()]", "false"),
        ("select row(1, cast(null as integer)) = row(1, 2)", None),
        ("select row(1, cast(null as integer)) != row(1, 2)", None),
        ("select row(1, cast(null as integer)) = row(2, 2)", "false"),
        ("select row(1, 2) = row(1, 2)", "true"),
    ],
)
def test_equality_of_arrays_and_rows_is_trinos(emu: Emulator, sql: str, expected: str) -> None:
    assert answer(emu, sql) == [expected]


@pytest.mark.parametrize("source, cte", CASES)
def test_equality_over_columns(emu: Emulator, source: str, cte: bool) -> None:
    sql = query(
        source,
        cte,
        "x.doubles = x.doubles, x.nested_nulls = x.nested, x.nested_nulls <> x.nested, "
        "x.nested = x.nested, x.doubles = array[5.0E0, 2.0E0, null]",
    )
    assert answer(emu, sql) == [None, None, None, "true", "false"]


# ---- array_max of rows and arrays holding NaN (COMPARISON_UNORDERED_FIRST) ---------------------
@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select array_max(array[row(nan()), row(2), row(3)])", "{field0=3.0}"),
        ("select array_max(array[row(2), row(3), row(nan())])", "{field0=3.0}"),
        ("select array_max(array[array[nan()], array[2], array[3]])", "[3.0]"),
        ("select array_max(array[array[real '2'], array[cast(nan() as real)]])", "[2.0]"),
        ("select array_max(array[array[1, 5], array[1, 7]])", "[1, 7]"),
    ],
)
def test_array_max_orders_nan_first(emu: Emulator, sql: str, expected: str) -> None:
    assert answer(emu, sql) == [expected]


@pytest.mark.parametrize("source, cte", CASES)
def test_array_max_over_columns(emu: Emulator, source: str, cte: bool) -> None:
    sql = query(
        source, cte, "array_max(array[array[x.nan_value], x.pair]), array_min(array[x.pair])"
    )
    assert answer(emu, sql) == ["[2.0, 3.0]", "[2.0, 3.0]"]


# ---- contains / array_position / array_remove of arrays holding NULLs -----------------------
NOT_SUPPORTED = (
    "NOT_SUPPORTED: {} does not support arrays with elements that are null or contain null"
)


@pytest.mark.parametrize(
    "sql, function",
    [
        ("select contains(array[array[1.1, 2.2], array[3.3, 4.3]], array[1.1, null])", "contains"),
        ("select contains(array[array[1.1, null], array[3.3, 4.3]], array[1.1, null])", "contains"),
        ("select array_position(array[array[null]], array[1])", "array_position"),
        ("select array_position(array[array[null]], array[null])", "array_position"),
        (
            "select array_remove(array[array[cast(null as bigint)]], array[cast(1 as bigint)])",
            "array_remove",
        ),
        (
            "select array_remove(array[array[cast(1 as bigint)]], array[cast(null as bigint)])",
            "array_remove",
        ),
    ],
)
def test_indeterminate_element_comparisons_fail(emu: Emulator, sql: str, function: str) -> None:
    assert failure(emu, sql).startswith(NOT_SUPPORTED.format(function))


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select contains(array[array[1], array[null]], array[1])", "true"),
        ("select contains(array[array[1], null], array[2])", None),
        ("select contains(array[array[1], array[2]], array[3])", "false"),
        ("select array_position(array[null, array[2], array[1]], array[1])", "3"),
        ("select array_remove(array[array[1], null, array[2]], array[1])", "[null, [2]]"),
        ("select contains(array[row(1, 2)], row(1, 2))", "true"),
    ],
)
def test_determinate_element_comparisons_answer(emu: Emulator, sql: str, expected: str) -> None:
    assert answer(emu, sql) == [expected]


@pytest.mark.parametrize("source, cte", CASES)
def test_element_comparisons_over_columns(emu: Emulator, source: str, cte: bool) -> None:
    sql = query(source, cte, "contains(x.nested, array[2]), array_position(x.nested, array[3])")
    assert answer(emu, sql) == ["true", "3"]
    reason = failure(emu, query(source, cte, "contains(x.nested_nulls, array[3])"))
    assert reason.startswith(NOT_SUPPORTED.format("contains"))
    reason = failure(emu, query(source, cte, "array_remove(x.nested_nulls, array[1])"))
    assert reason.startswith(NOT_SUPPORTED.format("array_remove"))


# ---- array_intersect, array_join, array_sort, repeat, map_from_entries, row ordering, VALUES --
@pytest.mark.parametrize(
    "sql, expected",
    [
        (
            "select array_intersect(array[8.3E0, 1.6E0, 4.1E0, 5.2E0], "
            "array[4.0E0, 5.2E0, 8.3E0, 9.7E0, 3.5E0])",
            "[5.2, 8.3]",
        ),
        ("select array_join(array[json '\"a\"', json 'null'], ',', 'N/A')", "a,N/A"),
        ("select array_join(array[1.0, double '002.100', 3.3], 'x')", "1.0E0x2.1E0x3.3E0"),
        (
            "select array_sort(array[2, 1, 2, 4], (x, y) -> if(x < y, 1, if(x = y, 0, -1)))",
            "[4, 2, 2, 1]",
        ),
        ("select row(1, cast(null as integer)) < row(2, 2)", "true"),
    ],
)
def test_array_functions_answer_as_trino(emu: Emulator, sql: str, expected: str) -> None:
    assert answer(emu, sql) == [expected]


@pytest.mark.parametrize(
    "sql, reason",
    [
        (
            "select array_sort(array[2, 1, 2, 4], (x, y) -> y - x)",
            "INVALID_FUNCTION_ARGUMENT: Lambda comparator must return either -1, 0, or 1",
        ),
        (
            "select repeat(sequence(1, 20), 9999)",
            "INVALID_FUNCTION_ARGUMENT: result of repeat function must not take more than "
            "1000000 bytes",
        ),
        (
            "select map_from_entries(array[(1, 2), null])",
            "INVALID_FUNCTION_ARGUMENT: map entry cannot be null",
        ),
        (
            "select row(1, cast(null as integer)) < row(1, 2)",
            "NOT_SUPPORTED: ROW comparison not supported for fields with null elements",
        ),
    ],
)
def test_array_functions_fail_as_trino(emu: Emulator, sql: str, reason: str) -> None:
    assert failure(emu, sql).startswith(reason)


@pytest.mark.parametrize("source, cte", CASES)
def test_intersect_and_join_over_columns(emu: Emulator, source: str, cte: bool) -> None:
    sql = query(
        source,
        cte,
        "array_intersect(x.pair, array[1.0E0, 3.0E0, 2.0E0, 4.0E0]), "
        "array_join(x.doubles, ',', 'N'), array_sort(x.pair, (a, b) -> if(a < b, 1, -1))",
    )
    assert answer(emu, sql) == ["[3.0, 2.0]", "1.0E0,2.0E0,N", "[3.0, 2.0]"]
    reason = failure(emu, query(source, cte, "repeat(x.word || lpad('', 200, 'x'), 9999)"))
    assert reason.startswith("INVALID_FUNCTION_ARGUMENT: result of repeat function")
