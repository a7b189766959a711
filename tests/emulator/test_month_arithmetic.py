"""Month arithmetic at month ends and leap days, as Athena computes it (Joda's fields:
``date_diff`` is BasicMonthOfYearDateTimeField.getDifferenceAsLong, quarters a third of it,
years BasicGJChronology.getYearDifference; ``date_add`` of months clamps the day to the
last of the month), over the date and timestamp columns of a Hive and an Iceberg table, a
view over each, an import CTE, and literals.

On main before the change, ``date_diff`` of months, quarters and years was java.time's
(Spark's timestampdiff): ``date_diff('month', date '2024-01-31', date '2024-02-29')`` was 0
(Athena: 1) and ``date_diff('year', date '2020-02-29', date '2021-02-28')`` 0 (Athena: 1)."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.ledger_tables import ledger_emulator, rows
from tests.emulator.test_athena_semantics import run

SCHEMA = "fin_months"
# (first, second): Athena's month, quarter and year differences of the dates, and of the
# timestamps first 10:00 -> second 09:00 (an hour short of the day's time)
SPANS = [
    ("2023-11-30", "2024-02-29", (3, 1, 0), (2, 0, 0)),
    ("2024-01-31", "2024-02-29", (1, 0, 0), (0, 0, 0)),
    ("2024-02-29", "2023-11-30", (-3, -1, 0), (-3, -1, 0)),
    ("2020-02-29", "2021-02-28", (12, 4, 1), (11, 3, 0)),
    ("2024-03-31", "2024-04-30", (1, 0, 0), (0, 0, 0)),
    ("2024-01-30", "2024-02-29", (1, 0, 0), (0, 0, 0)),
    ("2024-01-31", "2024-03-30", (1, 0, 0), (1, 0, 0)),
    ("2021-02-28", "2020-02-29", (-12, -4, -1), (-12, -4, -1)),
]
VALUES = ", ".join(
    f"({i}, date '{a}', date '{b}', timestamp '{a} 10:00:00', timestamp '{b} 09:00:00')"
    for i, (a, b, _, _) in enumerate(SPANS)
)
SPAN_TABLE = f"select * from (values {VALUES}) v(i, a, b, ta, tb)"
EXTRA = [
    f"create table {SCHEMA}.spans_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/spans_hive/') as " + SPAN_TABLE,
    f"create table {SCHEMA}.spans_iceberg with (table_type='ICEBERG', is_external=false, "
    f"location='s3://dbt-data/{SCHEMA}/spans_iceberg/') as " + SPAN_TABLE,
    f"create view {SCHEMA}.v_spans_hive as select * from {SCHEMA}.spans_hive",
    f"create view {SCHEMA}.v_spans_iceberg as select * from {SCHEMA}.spans_iceberg",
]
FORMS = [
    (source, cte)
    for source in (
        f"{SCHEMA}.spans_hive",
        f"{SCHEMA}.spans_iceberg",
        f"{SCHEMA}.v_spans_hive",
        f"{SCHEMA}.v_spans_iceberg",
    )
    for cte in (False, True)
]
IDS = [f"{s.split('.')[1]}-{'cte' if c else 'from'}" for s, c in FORMS]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from ledger_emulator(SCHEMA, EXTRA)


def _expected(which: int) -> list:
    return [[str(i), *(str(n) for n in span[which])] for i, span in enumerate(SPANS)]


@pytest.mark.parametrize("source, cte", FORMS, ids=IDS)
def test_date_diff_of_date_columns(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "t.i, date_diff('month', t.a, t.b), date_diff('quarter', t.a, t.b), "
        "date_diff('year', t.a, t.b)",
        source,
        cte,
        "order by t.i",
    )
    assert found == _expected(2)


@pytest.mark.parametrize("source, cte", FORMS, ids=IDS)
def test_date_diff_of_timestamp_columns(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "t.i, date_diff('month', t.ta, t.tb), date_diff('quarter', t.ta, t.tb), "
        "date_diff('year', t.ta, t.tb)",
        source,
        cte,
        "order by t.i",
    )
    assert found == _expected(3)


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("date_diff('month', date '2023-11-30', date '2024-02-29')", "3"),
        ("date_diff('month', date '2024-01-31', date '2024-02-29')", "1"),
        ("date_diff('month', date '2024-02-29', date '2023-11-30')", "-3"),
        ("date_diff('quarter', date '2023-11-30', date '2024-02-29')", "1"),
        ("date_diff('year', date '2020-02-29', date '2021-02-28')", "1"),
        ("date_diff('month', timestamp '2024-01-31 10:00', timestamp '2024-02-29 10:00')", "1"),
        ("date_diff('month', timestamp '2024-01-31 10:00', timestamp '2024-02-29 09:59')", "0"),
        ("date_diff('year', timestamp '2020-02-29 00:00', timestamp '2021-02-28 00:00')", "1"),
        (
            "date_diff('month', timestamp '2024-01-31 10:00 UTC', "
            "timestamp '2024-02-29 10:00 UTC')",
            "1",
        ),
        (
            "date_diff('year', timestamp '2020-02-29 00:00 America/New_York', "
            "timestamp '2021-02-28 00:00 America/New_York')",
            "1",
        ),
        # units of a fixed length: whole units of the difference, toward zero
        ("date_diff('day', date '2024-03-01', date '2024-02-28')", "-2"),
        ("date_diff('week', date '2024-02-29', date '2024-03-13')", "1"),
        ("date_diff('hour', timestamp '2024-02-29 10:00', timestamp '2024-02-28 08:30')", "-25"),
        (
            "date_diff('second', timestamp '2024-01-01 00:00:00.000600', "
            "timestamp '2024-01-01 00:00:01.000400')",
            "1",  # Trino counts whole milliseconds: 1000 - 0
        ),
        (
            "date_diff('second', from_iso8601_timestamp_nanos('2024-01-01T00:00:00.000600Z'), "
            "from_iso8601_timestamp_nanos('2024-01-01T00:00:01.000400Z'))",
            "1",
        ),
        (
            "date_diff('month', from_iso8601_timestamp_nanos('2024-01-31T10:00:00.000000001Z'), "
            "from_iso8601_timestamp_nanos('2024-02-29T10:00:00.000000000Z'))",
            "1",
        ),
        (
            "date_diff('millisecond', timestamp '2024-01-01 00:00:00.000600', "
            "timestamp '2024-01-01 00:00:00.001400')",
            "1",
        ),
    ],
)
def test_date_diff_of_literals(emu: Emulator, sql: str, expected: str) -> None:
    state, found = run(emu, f"select {sql}")
    assert state == "SUCCEEDED", found
    assert found[1] == [expected]


@pytest.mark.parametrize("source, cte", FORMS, ids=IDS)
def test_date_add_clamps_to_the_month_end(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "t.i, date_add('month', 1, t.a), date_add('quarter', -1, t.b), "
        "date_add('year', 1, t.a), date_add('month', 1, t.ta) = t.a + interval '1' month "
        "+ interval '10' hour",
        source,
        cte,
        "where t.i in (1, 3, 4) order by t.i",
    )
    assert found == [
        ["1", "2024-02-29", "2023-11-29", "2025-01-31", "true"],
        ["3", "2020-03-29", "2020-11-28", "2021-02-28", "true"],
        ["4", "2024-04-30", "2024-01-30", "2025-03-31", "true"],
    ]


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("date_add('month', 1, date '2024-01-31')", "2024-02-29"),
        ("date_add('year', 1, date '2020-02-29')", "2021-02-28"),
        ("date_add('quarter', 1, date '2023-11-30')", "2024-02-29"),
        ("date_add('month', -1, date '2024-03-31')", "2024-02-29"),
        ("date_add('month', 1, timestamp '2024-01-31 23:59:59.999')", "2024-02-29 23:59:59.999"),
        (
            "date_add('year', -1, timestamp '2024-02-29 12:00 Europe/Paris')",
            "2023-02-28 12:00:00.000 Europe/Paris",
        ),
    ],
)
def test_date_add_of_literals(emu: Emulator, sql: str, expected: str) -> None:
    state, found = run(emu, f"select {sql}")
    assert state == "SUCCEEDED", found
    assert found[1] == [expected]
