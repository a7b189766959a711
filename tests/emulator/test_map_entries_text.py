"""Maps whose keys Python cannot hash (arrays, rows, varbinary) reach GetQueryResults as
Athena prints them, through the emulator's Athena API, over literals, a view and an import
CTE. PySpark's collect makes a dict of every map and failed on such keys (``TypeError:
unhashable type``: the statement ended with the emulator's own error): the emulator now
collects their entries (statements.result_of) and prints them as the map (results.py).
Also: typeof of listagg is varchar (Trino's ListaggAggregationFunction), which the emulator
refused."""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

SCHEMA = "map_entries_text"
ROWS = (
    "select * from (values (map(array[array[1], array[2]], array[2, 3]), X'01', 'a'), "
    "(map(array[array[3]], array[4]), X'01', 'b'), (NULL, X'02', NULL)) as t(m, b, name)"
)
# a table cannot hold a map with array keys (Hive's keys are primitive; an Iceberg CTAS of
# one fails): the varbinary and varchar columns are in tables, the map in a view of VALUES
TABLES = {
    kind: f"create table {SCHEMA}.t_{kind} with ({where}) as select b, name from ({ROWS})"
    for kind, where in (
        ("hive", f"format='PARQUET', external_location='s3://dbt-data/{SCHEMA}/t_hive/'"),
        (
            "iceberg",
            f"table_type='ICEBERG', is_external=false, location='s3://dbt-data/{SCHEMA}/t_iceberg/'",
        ),
    )
}
SOURCES = [f"{SCHEMA}.t_hive", f"{SCHEMA}.t_iceberg", f"{SCHEMA}.v_hive", f"{SCHEMA}.v_values"]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA,
        TABLES,
        f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.t_{{kind}}",
        [f"create view {SCHEMA}.v_values as {ROWS}"],
    )


LITERALS = [
    ("SELECT map(ARRAY[ARRAY[1]], ARRAY[2])", ["{[1]=2}"]),
    (
        "SELECT map_filter(map(ARRAY[ARRAY[1], ARRAY[2]], ARRAY[2, 3]), (k, v) -> v > 2)",
        ["{[2]=3}"],
    ),
    ("SELECT map(ARRAY[ROW(1, 'a')], ARRAY[5])", ["{{field0=1, field1=a}=5}"]),
    ("SELECT histogram(v) FROM (VALUES X'01', X'01') t(v)", ["{01=2}"]),
    (
        "SELECT typeof(listagg(v, ',') WITHIN GROUP (ORDER BY v)), "
        "listagg(v, ',') WITHIN GROUP (ORDER BY v) FROM (VALUES 'a', 'b') t(v)",
        ["varchar", "a,b"],
    ),
]


@pytest.mark.parametrize("sql, expected", LITERALS)
def test_literals(emu: Emulator, sql: str, expected: List[Optional[str]]) -> None:
    assert row(emu, sql) == expected


def test_an_array_key_holding_null_fails_as_trinos_map_constructor(emu: Emulator) -> None:
    """TestMapOperators:172 (Spark takes the key; PySpark's collect failed on it before)."""
    reason = failure(emu, "SELECT map(ARRAY[ARRAY[NULL]], ARRAY[2])")
    assert reason.startswith("INVALID_FUNCTION_ARGUMENT: map key cannot be indeterminate: [null]")


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_columns(emu: Emulator, source: str, cte: bool) -> None:
    columns = (
        "histogram(b), typeof(listagg(name, '-') within group (order by name)), "
        "listagg(name, '-') within group (order by name)"
    )
    assert row(emu, over(source, cte, columns)) == ["{01=2, 02=1}", "varchar", "a-b"]


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
def test_map_columns_with_array_keys(emu: Emulator, cte: bool) -> None:
    sql = over(f"{SCHEMA}.v_values", cte, "m") + " where name = 'a'"
    assert row(emu, sql) == ["{[1]=2, [2]=3}"]
