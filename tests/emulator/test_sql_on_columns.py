"""Functions over the columns of real tables, not literals: a Hive table (timestamps are
``timestamp(3)`` there), an Iceberg table (``timestamp(6)``), a view over each and the
import-CTE style ``with t as (select * from ...)``, through the emulator's Athena API.

On main before the change, every cast or date function of a timestamp column failed with
``PythonException: An exception was thrown from the Python worker`` (a Spark ``timestamp``
column was typed as a zoned timestamp) and the import CTE was refused ("cannot tell its
operands' types")."""

from __future__ import annotations

from typing import Iterator, List

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

ROW = (
    "select timestamp '2024-01-01 10:00:00.123456' as started_at, "
    "timestamp '2024-01-01 11:30:00.5' as ended_at, 125 as duration_s, "
    "cast(2.5 as real) as ratio, 'x' as label"
)
TABLES = {
    "hive": f"create table raw.trips_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/raw/trips_hive/') as {ROW}",
    "iceberg": f"create table raw.trips_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/raw/trips_iceberg/') as {ROW}",
}
# Athena's answers: a Hive table's timestamps are timestamp(3), rounded half up to the
# millisecond; an Iceberg table's are timestamp(6)
STARTED = {"hive": "2024-01-01 10:00:00.123", "iceberg": "2024-01-01 10:00:00.123456"}
LATER = {"hive": "2024-01-02 22:00:00.123", "iceberg": "2024-01-02 22:00:00.123456"}


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "raw", TABLES, "create view raw.v_{kind} as select * from raw.trips_{kind}"
    )


SOURCES = [
    ("hive", "raw.trips_hive"),
    ("iceberg", "raw.trips_iceberg"),
    ("hive", "raw.v_hive"),
    ("iceberg", "raw.v_iceberg"),
]


def value(emu: Emulator, expression: str, source: str, cte: bool) -> List[str]:
    if cte:  # the import-CTE style: the types come through select *
        sql = f"with t as (select * from {source}) select {expression} from t"
    else:
        sql = f"select {expression} from {source} t"
    state, rows = run(emu, sql)
    assert state == "SUCCEEDED", rows
    return rows[1]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("kind, source", SOURCES, ids=[s for _, s in SOURCES])
def test_timestamp_columns(emu: Emulator, kind: str, source: str, cte: bool) -> None:
    assert value(emu, "cast(t.started_at as varchar)", source, cte) == [STARTED[kind]]
    assert value(emu, "cast(t.started_at as date)", source, cte) == ["2024-01-01"]
    assert value(emu, "date_add('hour', 36, t.started_at)", source, cte) == [LATER[kind]]
    assert value(emu, "date_diff('minute', t.started_at, t.ended_at)", source, cte) == ["90"]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("kind, source", SOURCES, ids=[s for _, s in SOURCES])
def test_date_trunc_keeps_the_precision(emu: Emulator, kind: str, source: str, cte: bool) -> None:
    hour = "2024-01-01 10:00:00.000" + ("000" if kind == "iceberg" else "")
    assert value(emu, "date_trunc('hour', t.started_at)", source, cte) == [hour]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("kind, source", SOURCES, ids=[s for _, s in SOURCES])
def test_numbers_and_strings(emu: Emulator, kind: str, source: str, cte: bool) -> None:
    assert value(emu, "t.duration_s / 60", source, cte) == ["2"]  # integer division
    assert value(emu, "typeof(t.ratio)", source, cte) == ["real"]
    assert value(emu, "t.label || '-' || cast(t.duration_s as varchar)", source, cte) == ["x-125"]


def test_information_schema_lists_tables_views_and_typed_columns(emu: Emulator) -> None:
    """dbt packages list relations and columns through information_schema (on main before
    the change: SCHEMA_NOT_FOUND). Types as Athena names them, per table format."""
    state, rows = run(
        emu,
        "select table_name, table_type from information_schema.tables "
        "where table_schema = 'raw' order by table_name",
    )
    assert state == "SUCCEEDED", rows
    assert rows[1:] == [
        ["trips_hive", "BASE TABLE"],
        ["trips_iceberg", "BASE TABLE"],
        ["v_hive", "VIEW"],
        ["v_iceberg", "VIEW"],
    ]
    state, rows = run(
        emu,
        "select table_name, column_name, ordinal_position, data_type "
        "from awsdatacatalog.information_schema.columns where table_schema = 'raw' "
        "and table_name like 'trips_%' and column_name in ('started_at', 'ratio', 'label') "
        "order by table_name, ordinal_position",
    )
    assert state == "SUCCEEDED", rows
    assert rows[1:] == [
        ["trips_hive", "started_at", "1", "timestamp(3)"],
        ["trips_hive", "ratio", "4", "real"],
        ["trips_hive", "label", "5", "varchar(1)"],  # a Hive CTAS keeps 'x''s varchar(1)
        ["trips_iceberg", "started_at", "1", "timestamp(6)"],
        ["trips_iceberg", "ratio", "4", "real"],
        ["trips_iceberg", "label", "5", "varchar"],
    ]


def test_an_information_schema_table_it_does_not_model_is_refused(emu: Emulator) -> None:
    state, reason = run(emu, "select * from information_schema.table_privileges")
    assert state == "FAILED"
    assert reason.startswith(
        "NOT_SUPPORTED: the Athena emulator cannot run information_schema.table_privileges"
    )
