"""Trino 410's answers (its unit tests: TestDecimalParametricType, TestDoubleOperators,
TestDate, TestTimeWithTimeZone, time/TestOperators, TestTimestampWithTimeZone, TestTimestamp)
that the emulator gave wrong or gave where Athena fails, through the emulator's Athena API:
over literals, and where the function takes a column over the columns of a Hive table
(timestamps are ``timestamp(3)``), an Iceberg table (``timestamp(6)``), a view over each
and an import CTE (``with t as (select * from ...)``).
"""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

SCHEMA = "trino_dtdec"
ROW = (
    "select timestamp '2020-05-10 12:34:56.555555' as ts, date '2001-01-22' as d, "
    "9.223372036854776E18 as big, 1234.5E0 as fine, 7 as n"
)
TABLES = {
    "hive": f"create table {SCHEMA}.t_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/t_hive/') as {ROW}",
    "iceberg": f"create table {SCHEMA}.t_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/t_iceberg/') as {ROW}",
}
SOURCES = [
    ("hive", f"{SCHEMA}.t_hive"),
    ("iceberg", f"{SCHEMA}.t_iceberg"),
    ("hive", f"{SCHEMA}.v_hive"),
    ("iceberg", f"{SCHEMA}.v_iceberg"),
]
FORMS = pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
ON = pytest.mark.parametrize("kind, source", SOURCES, ids=[s for _, s in SOURCES])


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA, TABLES, f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.t_{{kind}}"
    )


def query(source: Optional[str], expression: str, cte: bool = False) -> str:
    if source is None:
        return f"select {expression}"
    if cte:
        return f"with t as (select * from {source}) select {expression} from t"
    return f"select {expression} from {source} t"


def value(emu: Emulator, expression: str, source: Optional[str] = None, cte: bool = False) -> List:
    state, rows = run(emu, query(source, expression, cte))
    assert state == "SUCCEEDED", rows
    return rows[1]


def failure(emu: Emulator, expression: str, source: Optional[str] = None, cte: bool = False) -> str:
    state, reason = run(emu, query(source, expression, cte))
    assert state == "FAILED", reason
    return str(reason)


# ---- decimals and doubles: DecimalType, DoubleOperators.castToLong -----------------------
PRECISION_ZERO = "INVALID_FUNCTION_ARGUMENT: DECIMAL precision must be in range [1, 38]: 0"


def test_a_decimal_of_precision_zero_fails(emu: Emulator) -> None:
    """On main before the change: 0."""
    assert failure(emu, "cast(0 as DECIMAL(0,0))") == PRECISION_ZERO
    assert failure(emu, "cast(1 as DECIMAL(0))") == PRECISION_ZERO


@FORMS
@ON
def test_a_decimal_of_precision_zero_fails_over_columns(
    emu: Emulator, kind: str, source: str, cte: bool
) -> None:
    assert failure(emu, "cast(t.n as DECIMAL(0))", source, cte) == PRECISION_ZERO


BIGINT_RANGE = "INVALID_CAST_ARGUMENT: Unable to cast 9.223372036854776E18 to bigint"


def test_a_double_beyond_bigint_fails_its_cast(emu: Emulator) -> None:
    """On main before the change: 9223372036854775807."""
    assert failure(emu, "cast(9.223372036854776E18 as bigint)") == BIGINT_RANGE
    assert value(emu, "cast(-1234.5E0 as bigint)") == ["-1235"]  # half up, away from zero


@FORMS
@ON
def test_a_double_beyond_bigint_over_columns(
    emu: Emulator, kind: str, source: str, cte: bool
) -> None:
    assert failure(emu, "cast(t.big as bigint)", source, cte) == BIGINT_RANGE
    assert value(emu, "cast(t.fine as bigint)", source, cte) == ["1235"]


# ---- dates, times and timestamps --------------------------------------------------------------
def test_a_date_plus_hours_fails(emu: Emulator) -> None:
    """DateTimeOperators: a date plus or minus an interval of hours, minutes or seconds
    fails (on main before the change: a timestamp)."""
    added = "INVALID_FUNCTION_ARGUMENT: Cannot add hour, minutes or seconds to a date"
    assert failure(emu, "(DATE '2001-1-22') + (INTERVAL '3' hour)") == added
    assert failure(emu, "(INTERVAL '3' hour) + (DATE '2001-1-22')") == added
    assert failure(emu, "(DATE '2001-1-22') - (INTERVAL '3' hour)") == (
        "INVALID_FUNCTION_ARGUMENT: Cannot subtract hour, minutes or seconds from a date"
    )
    assert value(emu, "DATE '2001-1-22' + INTERVAL '3' day") == ["2001-01-25"]


@FORMS
@ON
def test_a_date_plus_hours_fails_over_columns(
    emu: Emulator, kind: str, source: str, cte: bool
) -> None:
    assert failure(emu, "t.d + interval '3' minute", source, cte) == (
        "INVALID_FUNCTION_ARGUMENT: Cannot add hour, minutes or seconds to a date"
    )
    assert value(emu, "t.d - interval '3' day", source, cte) == ["2001-01-19"]


@pytest.mark.parametrize("text", ["12:00:00+15:00", "12:00:00+14:01", "12:00:00+13:60"])
def test_a_time_literal_with_an_offset_beyond_14_hours_fails(emu: Emulator, text: str) -> None:
    """DateTimes.parseTimeWithTimeZone: the offset is -14:00 to +14:00 (on main before the
    change: the literal as written)."""
    assert (
        failure(emu, f"TIME '{text}'") == f"INVALID_LITERAL: '{text}' is not a valid time literal"
    )
    assert value(emu, "TIME '12:00:00-14:00'")[0].endswith("-14:00")


def test_time_plus_an_interval_has_milliseconds(emu: Emulator) -> None:
    """TimeOperators: time(p) +/- an interval day to second is a time(max(3, p)) (on main
    before the change: time(0))."""
    assert value(emu, "TIME '12:59:59' + INTERVAL '1' SECOND") == ["13:00:00.000"]
    assert value(emu, "typeof(TIME '12:34:56' - INTERVAL '13' HOUR)") == ["time(3)"]
    assert value(emu, "typeof(TIME '12:34:56.12345' + INTERVAL '1' HOUR)") == ["time(5)"]


def test_a_zoned_timestamp_cast_to_other_than_3_or_6_digits_is_refused(emu: Emulator) -> None:
    """CAST(timestamp with time zone AS timestamp(p)): the emulator prints timestamps of 3
    or 6 digits only (on main before the change: p=1 printed 3 digits)."""
    reason = failure(
        emu, "CAST(TIMESTAMP '2020-05-01 12:34:56.111 Asia/Kathmandu' AS TIMESTAMP(1))"
    )
    assert reason.startswith("NOT_SUPPORTED: the Athena emulator cannot run CAST("), reason
    assert "timestamp(3) and timestamp(6) only" in reason
    assert value(
        emu, "CAST(TIMESTAMP '2020-05-01 12:34:56.5555 Asia/Kathmandu' AS TIMESTAMP(3))"
    ) == ["2020-05-01 12:34:56.556"]


@FORMS
@ON
def test_a_zoned_timestamp_cast_over_columns(
    emu: Emulator, kind: str, source: str, cte: bool
) -> None:
    zoned = "with_timezone(t.ts, 'Asia/Kathmandu')"
    reason = failure(emu, f"cast({zoned} as timestamp(2))", source, cte)
    assert reason.startswith("NOT_SUPPORTED"), reason
    assert value(emu, f"cast({zoned} as timestamp(3))", source, cte) == ["2020-05-10 12:34:56.556"]


def test_date_add_keeps_a_timestamp_of_seconds_in_seconds(emu: Emulator) -> None:
    """TimestampFunctions' date_add of a timestamp(p) is a timestamp(p): a millisecond added
    to a timestamp(0) is dropped (on main before the change: .001)."""
    assert value(emu, "date_add('millisecond', 1, TIMESTAMP '2020-05-10 12:34:56')") == [
        "2020-05-10 12:34:56.000"
    ]
    assert value(emu, "date_add('millisecond', 1, TIMESTAMP '2020-05-10 12:34:56.1')") == [
        "2020-05-10 12:34:56.100"
    ]


@FORMS
@ON
def test_date_add_over_columns(emu: Emulator, kind: str, source: str, cte: bool) -> None:
    later = {"hive": "2020-05-10 12:34:56.557", "iceberg": "2020-05-10 12:34:56.556555"}
    assert value(emu, "date_add('millisecond', 1, t.ts)", source, cte) == [later[kind]]
