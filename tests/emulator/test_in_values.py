"""``x IN (VALUES ...)`` as Trino 410 runs it (TestJoin:141-167), through the emulator's
Athena API, over literals and over the columns of a Hive table, an Iceberg table, a view
over each and an import CTE.

Trino reads ``x IN (VALUES a, b)`` as IN over the one-column table the VALUES makes: the
same answer as ``x IN (a, b)`` (true when an item equals x; else NULL when x or an item is
NULL; else false), in a join's ON condition too. On main the emulator sent Spark
``array_contains(ARRAY(VALUES ...), x)``, which Spark cannot parse."""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

ROWS = "select * from (values (1, 'a'), (2, 'b'), (cast(null as integer), 'c')) as t(x, word)"
TABLES = {
    "hive": "create table in_values.iv_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/in_values/iv_hive/') as {ROWS}",
    "iceberg": "create table in_values.iv_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/in_values/iv_iceberg/') as {ROWS}",
}
SOURCES = ["in_values.iv_hive", "in_values.iv_iceberg", "in_values.v_hive", "in_values.v_iceberg"]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "in_values", TABLES, "create view in_values.v_{kind} as select * from in_values.iv_{kind}"
    )


def rows(emu: Emulator, sql: str) -> List[List[Optional[str]]]:
    from tests.emulator.test_athena_semantics import run

    state, found = run(emu, sql)
    assert state == "SUCCEEDED", (sql, found)
    return sorted(found[1:], key=lambda r: [str(v) for v in r])


def test_literals(emu: Emulator) -> None:
    assert row(
        emu,
        "select 1 in (values 1, 2), 3 in (values 1, 2), 3 in (values 1, null), "
        "null in (values 1), 2 not in (values (1), (3)), 'b' in (values 'a', 'b')",
    ) == ["true", "false", None, None, "true", "true"]


JOIN = "SELECT * FROM (VALUES 1, 2, NULL) t(x) {kind} JOIN (VALUES 1, 3, NULL) u(x) ON {side}.x IN (VALUES 1)"
OUTER_T = [["1", "1"], ["1", "3"], ["1", None], ["2", None], [None, None]]
OUTER_U = [["1", "1"], ["2", "1"], [None, "1"], [None, "3"], [None, None]]
JOINS = [  # TestJoin:141-167
    ("", "t", [["1", "1"], ["1", "3"], ["1", None]]),
    ("LEFT", "t", OUTER_T),
    ("RIGHT", "t", [["1", "1"], ["1", "3"], ["1", None]]),
    ("FULL", "t", OUTER_T),
    ("", "u", [["1", "1"], ["2", "1"], [None, "1"]]),
    ("LEFT", "u", [["1", "1"], ["2", "1"], [None, "1"]]),
    ("RIGHT", "u", OUTER_U),
    ("FULL", "u", OUTER_U),
]


@pytest.mark.parametrize("kind, side, expected", JOINS)
def test_join_on(emu: Emulator, kind: str, side: str, expected: List[List[Optional[str]]]) -> None:
    key = lambda r: [str(v) for v in r]  # noqa: E731
    assert rows(emu, JOIN.format(kind=kind, side=side)) == sorted(expected, key=key)


def test_rows_of_several_columns_are_refused(emu: Emulator) -> None:
    assert "NOT_SUPPORTED" in failure(emu, "select (1, 2) in (values (1, 2))")


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_columns(emu: Emulator, source: str, cte: bool) -> None:
    columns = "word, x in (values 1, 2), x in (values 5, null), word in (values 'a', 'c')"
    found = rows(emu, over(source, cte, columns))
    assert found == [
        ["a", "true", None, "true"],
        ["b", "true", None, "false"],
        ["c", None, None, "true"],
    ]
    where = f"select count(*) from {source} where x in (values 2, 3)"
    assert row(emu, where) == ["1"]
