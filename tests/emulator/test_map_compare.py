"""Comparisons of maps as Trino 410 makes them (MapType's equalOperator and
distinctFromOperator; TestMapOperators, TestRowOperators), through the emulator's Athena
API, over literals and over the map columns of a Hive table, an Iceberg table, a view over
each and an import CTE.

Trino: two maps are equal when they have the same keys and each key's values are equal, in
any order; a NULL value (or a value comparison that is indeterminate) makes ``=``
indeterminate unless another key already tells them apart; IS DISTINCT FROM holds a NULL
value not distinct from a NULL value. Maps are not orderable (``<`` fails TYPE_MISMATCH).
On main before the change every one of these failed with Spark's INVALID_ORDERING_TYPE
(Spark compares no maps).

The map constructors with a NULL or an empty argument (TestMapOperators:1433-1460,
1616-1619, 1695-1698): Trino's map_concat is NULL when one map is NULL and skips empty
maps; map_from_entries and multimap_from_entries are NULL for NULL and empty for an empty
array. On main they failed in Spark's analysis (a NULL or an empty map has no type there)."""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

ROWS = (
    "select map(array['a', 'b'], array[1, 2]) as m, map(array['b', 'a'], array[2, 1]) as same, "
    "map(array['a', 'b'], array[1, 3]) as other, map(array['a'], array[1]) as shorter, "
    "map(array['a', 'b'], array[null, 2]) as nulls, "
    "map(array['k'], array[array[1.5e0, 2.5e0]]) as arrays, "
    "map(array['k'], array[array[1.5e0, 2.5e0]]) as arrays2"
)
TABLES = {
    "hive": "create table map_compare.mc_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/map_compare/mc_hive/') as {ROWS}",
    "iceberg": "create table map_compare.mc_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/map_compare/mc_iceberg/') as {ROWS}",
}
SOURCES = [
    "map_compare.mc_hive",
    "map_compare.mc_iceberg",
    "map_compare.v_hive",
    "map_compare.v_iceberg",
]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "map_compare",
        TABLES,
        "create view map_compare.v_{kind} as select * from map_compare.mc_{kind}",
    )


LITERAL_CASES = [
    # TestMapOperators:1041-1150 (=) and 1158-1318 (!=)
    ("SELECT MAP(ARRAY[1], ARRAY[2]) = MAP(ARRAY[1], ARRAY[2])", ["true"]),
    ("SELECT MAP(ARRAY[1], ARRAY[2]) = MAP(ARRAY[1], ARRAY[4])", ["false"]),
    ("SELECT MAP(ARRAY[3], ARRAY[1]) = MAP(ARRAY[2], ARRAY[1])", ["false"]),
    ("SELECT MAP(ARRAY[1], ARRAY[2]) = MAP(ARRAY[1, 3], ARRAY[2, 4])", ["false"]),
    ("SELECT MAP(ARRAY[1, 3], ARRAY[2, 4]) = MAP(ARRAY[3, 1], ARRAY[4, 2])", ["true"]),
    ("SELECT MAP(ARRAY[1, 3], ARRAY[2, 4]) != MAP(ARRAY[3, 1], ARRAY[2, 4])", ["true"]),
    (
        "SELECT MAP(ARRAY['1', '3'], ARRAY[2.0E0, 4.0E0]) = MAP(ARRAY['3', '1'], ARRAY[4.0E0, 2.0E0])",
        ["true"],
    ),
    ("SELECT MAP(ARRAY[2.2], ARRAY[3.1]) = MAP(ARRAY[2.2], ARRAY[3.0])", ["false"]),
    (
        "SELECT MAP(ARRAY[ARRAY['kittens', 'puppies'], ARRAY['dog', 'cat']], ARRAY[ARRAY[1, 2], ARRAY[3]]) "
        "= MAP(ARRAY[ARRAY['kittens', 'puppies'], ARRAY['dog', 'cat']], ARRAY[ARRAY[1, 2], ARRAY[3]]), "
        "MAP(ARRAY['kittens', 'puppies'], ARRAY[ARRAY[1, 2], ARRAY[3]]) "
        "!= MAP(ARRAY['kittens', 'puppies'], ARRAY[ARRAY[3], ARRAY[1, 2]])",
        ["true", "true"],
    ),
    # a NULL value: indeterminate, unless another key's values differ
    ("SELECT MAP(ARRAY['k', 'p'], ARRAY[NULL, 3]) = MAP(ARRAY['k', 'p'], ARRAY[NULL, 3])", [None]),
    ("SELECT MAP(ARRAY['k', 'p'], ARRAY[3, 3]) != MAP(ARRAY['k', 'p'], ARRAY[NULL, 3])", [None]),
    (
        "SELECT MAP(ARRAY['k', 'p'], ARRAY[NULL, 3]) = MAP(ARRAY['k', 'p'], ARRAY[NULL, 2])",
        ["false"],
    ),
    (
        "SELECT MAP(ARRAY[1.0, 2.1], ARRAY[null, null]) != MAP(ARRAY[1.0, 2.1], ARRAY[null, null])",
        [None],
    ),
    # NaN values are equal to nothing (DoubleOperators)
    ("SELECT MAP(ARRAY[1], ARRAY[nan()]) = MAP(ARRAY[1], ARRAY[nan()])", ["false"]),
    # TestMapOperators:1327-1369 (IS DISTINCT FROM)
    (
        "SELECT CAST(NULL AS MAP(INTEGER, VARCHAR)) IS DISTINCT FROM CAST(NULL AS MAP(INTEGER, VARCHAR)), "
        "MAP(ARRAY[1], ARRAY[2]) IS DISTINCT FROM NULL, NULL IS DISTINCT FROM MAP(ARRAY[1], ARRAY[2])",
        ["false", "true", "true"],
    ),
    (
        "SELECT MAP(ARRAY[1], ARRAY[NULL]) IS DISTINCT FROM MAP(ARRAY[1], ARRAY[NULL]), "
        "MAP(ARRAY[1], ARRAY[0]) IS DISTINCT FROM MAP(ARRAY[1], ARRAY[NULL]), "
        "MAP(ARRAY[1, 2], ARRAY['kittens','puppies']) IS DISTINCT FROM MAP(ARRAY[2, 1], ARRAY['puppies', 'kittens']), "
        "MAP(ARRAY[1, 3], ARRAY['kittens','puppies']) IS NOT DISTINCT FROM MAP(ARRAY[1, 2], ARRAY['kittens', 'puppies'])",
        ["false", "true", "false", "false"],
    ),
    (
        "SELECT MAP(ARRAY[1, 3], ARRAY[MAP(ARRAY['kittens'], ARRAY[1e0]), MAP(ARRAY['puppies'], ARRAY[3e0])]) "
        "IS DISTINCT FROM MAP(ARRAY[1, 3], ARRAY[MAP(ARRAY['kittens'], ARRAY[1e0]), MAP(ARRAY['puppies'], ARRAY[4e0])])",
        ["true"],
    ),
    # IN over maps: = of each item, with IN's NULL rule
    (
        "SELECT MAP(ARRAY[1], ARRAY[2]) IN (MAP(ARRAY[1], ARRAY[3]), MAP(ARRAY[1], ARRAY[2])), "
        "MAP(ARRAY[1], ARRAY[2]) IN (MAP(ARRAY[1], ARRAY[3])), "
        "MAP(ARRAY[1], ARRAY[2]) IN (MAP(ARRAY[1], ARRAY[NULL])), "
        "MAP(ARRAY[1], ARRAY[2]) NOT IN (MAP(ARRAY[2], ARRAY[NULL]))",
        ["true", "false", None, "true"],
    ),
    # TestRowOperators:692/695: a row's map field
    (
        "SELECT row(TRUE, ARRAY [1], MAP(ARRAY[1, 3], ARRAY[2.0E0, 4.0E0])) "
        "= row(TRUE, ARRAY [1, 2], MAP(ARRAY[1, 3], ARRAY[2.0E0, 4.0E0])), "
        "row(TRUE, ARRAY [1, 2], MAP(ARRAY[1, 3], ARRAY[2.0E0, 4.0E0])) "
        "= row(TRUE, ARRAY [1, 2], MAP(ARRAY[1, 3], ARRAY[2.0E0, 4.0E0]))",
        ["false", "true"],
    ),
    (
        "SELECT typeof(MAP(ARRAY[1], ARRAY[2]) = MAP(ARRAY[1], ARRAY[2])), "
        "typeof(MAP(ARRAY[1], ARRAY[2]) IS DISTINCT FROM MAP(ARRAY[1], ARRAY[2]))",
        ["boolean", "boolean"],
    ),
]


@pytest.mark.parametrize("sql, expected", LITERAL_CASES)
def test_literals(emu: Emulator, sql: str, expected: List[Optional[str]]) -> None:
    assert row(emu, sql) == expected


FAILING_LITERALS = [
    # maps are not orderable: Trino's analyzer fails the operator (TestRowOperators:2185)
    (
        "SELECT MAP(ARRAY[1], ARRAY[2]) < MAP(ARRAY[1], ARRAY[2])",
        "TYPE_MISMATCH: Cannot apply operator: map(integer, integer) < map(integer, integer)",
    ),
    (
        "SELECT row(TRUE, MAP(ARRAY[1, 3], ARRAY[2.0E0, 4.0E0])) > row(TRUE, MAP(ARRAY[1], ARRAY[2.0E0]))",
        "TYPE_MISMATCH: Cannot apply operator: row(boolean, map(integer, double)) < "
        "row(boolean, map(integer, double))",
    ),
]


@pytest.mark.parametrize("sql, message", FAILING_LITERALS)
def test_failing_literals(emu: Emulator, sql: str, message: str) -> None:
    assert message in failure(emu, sql)


COLUMN_CASES = [
    (
        "m = same, m = other, m = shorter, shorter = m, m <> same, m <> other",
        ["true", "false", "false", "false", "false", "true"],
    ),
    ("nulls = nulls, nulls = m, nulls <> m", [None, None, None]),
    ("nulls = other, nulls <> other", ["false", "true"]),
    (
        "m is distinct from same, nulls is distinct from nulls, nulls is distinct from m, "
        "m is not distinct from same, m is distinct from null",
        ["false", "false", "true", "true", "true"],
    ),
    (
        "arrays = arrays2, arrays <> arrays2, arrays is distinct from arrays2",
        ["true", "false", "false"],
    ),
    (
        "m = map(array['b', 'a'], array[2, 1]), m in (other, same), m in (other, nulls)",
        ["true", "true", None],
    ),
]


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("columns, expected", COLUMN_CASES)
def test_columns(
    emu: Emulator, source: str, cte: bool, columns: str, expected: List[Optional[str]]
) -> None:
    assert row(emu, over(source, cte, columns)) == expected


@pytest.mark.parametrize("source", SOURCES)
def test_where_and_order(emu: Emulator, source: str) -> None:
    """A map comparison as a filter, and a map column that cannot be ordered."""
    assert row(emu, f"select count(*) from {source} where m = same and m <> other") == ["1"]
    assert "TYPE_MISMATCH: Cannot apply operator" in failure(emu, f"select m < same from {source}")


CONSTRUCTOR_CASES = [
    ("SELECT map_concat(MAP(ARRAY[1], ARRAY[-1]), NULL, MAP(ARRAY[3], ARRAY[-3]))", [None]),
    (
        "SELECT map_concat(map(ARRAY[1], ARRAY[-1]), map(ARRAY[], ARRAY[]), MAP(ARRAY[3], ARRAY[-3]))",
        ["{1=-1, 3=-3}"],
    ),
    (
        "SELECT map_concat(map(ARRAY[], ARRAY[]), map(ARRAY['a_string'], ARRAY['b_string']), "
        "cast(MAP(ARRAY[], ARRAY[]) AS MAP(VARCHAR, VARCHAR)))",
        ["{a_string=b_string}"],
    ),
    (
        "SELECT map_concat(map(ARRAY[], ARRAY[]), map(ARRAY[], ARRAY[]), MAP(ARRAY[], ARRAY[]))",
        ["{}"],
    ),
    ("SELECT map_concat(map(), map(), map())", ["{}"]),
    (
        "SELECT map_concat(map(ARRAY[1], ARRAY[-1]), map(), map(ARRAY[3], ARRAY[-3]))",
        ["{1=-1, 3=-3}"],
    ),
    ("SELECT map_from_entries(null), map_from_entries(ARRAY[])", [None, "{}"]),
    ("SELECT multimap_from_entries(null), multimap_from_entries(ARRAY[])", [None, "{}"]),
]


@pytest.mark.parametrize("sql, expected", CONSTRUCTOR_CASES)
def test_constructors(emu: Emulator, sql: str, expected: List[Optional[str]]) -> None:
    assert row(emu, sql) == expected


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_constructor_columns(emu: Emulator, source: str, cte: bool) -> None:
    columns = (
        "map_concat(m, map(), other), map_concat(m, null, same), "
        "map_concat(map(array[], array[]), shorter)"
    )
    assert row(emu, over(source, cte, columns)) == ["{a=1, b=3}", None, "{a=1}"]


def test_python_functions_in_lambdas_are_refused(emu: Emulator) -> None:
    """Spark runs none of the emulator's Python functions inside a lambda: main failed with
    Spark's 'Cannot evaluate expression' (EMULATOR_ERROR); now a clean refusal naming it
    (TestMapTransformKeysFunction:231, TestMapTransformValuesFunction:179)."""
    for sql in (
        "SELECT transform_keys(map(ARRAY[25, 26, 27], ARRAY['abc', 'def', 'xyz']), "
        "(k, v) -> to_base(k, 16) || substr(v, 1, 1))",
        "SELECT transform_values(map(ARRAY[25, 26], ARRAY[26.1E0, 31.2E0]), "
        "(k, v) -> CAST(v - k AS BIGINT))",
    ):
        reason = failure(emu, sql)
        assert "NOT_SUPPORTED" in reason and "inside a lambda" in reason, reason
    for source in SOURCES:
        reason = failure(emu, f"select transform_values(m, (k, v) -> to_base(v, 16)) from {source}")
        assert "NOT_SUPPORTED" in reason and "to_base" in reason, reason
    # a Python function on other values than the lambda's parameters: Spark runs it
    found = row(emu, "SELECT transform(ARRAY[1, 2], x -> to_base(26, 16) || CAST(x AS VARCHAR))")
    assert found == ["[1a1, 1a2]"]
