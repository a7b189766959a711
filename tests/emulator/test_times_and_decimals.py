"""Silent differences and successes where Athena fails, in timestamps, decimals and row
subscripts, through the emulator's Athena API on local Spark: each statement gives
Athena's (Trino 410's) answer or fails as Athena fails. Expected texts are Trino 410's
(VarcharToTimestampCast, DoubleOperators.castToVarchar, DecimalCasts, DecimalOperators).

On main 2c587f3 (before the change): cast('... .123456' as timestamp) kept microseconds,
'... .9996' was truncated, a zone in the text shifted the value to UTC; DECIMAL '.999' was
1 (decimal(38,0)); NaN cast to decimal was NULL; cast(<double> as varchar) was refused;
a[2] of a row column gave the first field."""

from __future__ import annotations

from typing import Iterator, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.test_athena_semantics import run


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(executor="spark") as emulator:
        emulator.prepare()
        setup = [
            "create schema texts",
            "create table texts.hive_t with (format='PARQUET', "
            "external_location='s3://dbt-data/texts/hive_t/') as " + ROW,
            "create table texts.iceberg_t with (table_type='ICEBERG', is_external=false, "
            "location='s3://dbt-data/texts/iceberg_t/') as " + ROW,
            "create view texts.v_hive as select * from texts.hive_t",
        ]
        for sql in setup:
            assert run(emulator, sql)[0] == "SUCCEEDED", sql
        yield emulator


ROW = (
    "select '2024-01-01 10:00:00.123456' as micros, '2024-01-01 08:00:00.9996' as carry, "
    "'2024-01-01 10:00:00 +05:00' as zoned, 2.5e0 as d, decimal '.999' as small"
)
SOURCES = ["texts.hive_t", "texts.iceberg_t", "texts.v_hive", "cte"]


def one(emu: Emulator, sql: str) -> Optional[str]:
    state, rows = run(emu, sql)
    assert state == "SUCCEEDED", rows
    assert len(rows) == 2 and len(rows[1]) == 1, rows
    return rows[1][0]


def on(source: str, expression: str) -> str:
    if source == "cte":
        return f"with t as (select * from texts.hive_t) select {expression} from t"
    return f"select {expression} from {source}"


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select cast('2024-01-01 10:00:00.123456' as timestamp)", "2024-01-01 10:00:00.123"),
        ("select cast('2024-01-01 08:00:00.9996' as timestamp)", "2024-01-01 08:00:01.000"),
        ("select cast('2024-01-01 10:00:00 +05:00' as timestamp)", "2024-01-01 10:00:00.000"),
        (
            "select cast('2024-01-01 10:00:00 America/New_York' as timestamp)",
            "2024-01-01 10:00:00.000",
        ),
        (
            "select cast('2024-01-01 10:00:00.1234567' as timestamp(6))",
            "2024-01-01 10:00:00.123457",
        ),
        ("select try_cast('2024-01-01T10:00:00' as timestamp)", None),
        ("select cast(' 2024-1-2 3:04 ' as timestamp)", "2024-01-02 03:04:00.000"),
    ],
)
def test_text_to_timestamp(emu: Emulator, sql: str, expected: Optional[str]) -> None:
    assert one(emu, sql) == expected


@pytest.mark.parametrize("source", SOURCES)
def test_text_columns_to_timestamp(emu: Emulator, source: str) -> None:
    assert one(emu, on(source, "cast(micros as timestamp)")) == "2024-01-01 10:00:00.123"
    assert one(emu, on(source, "cast(carry as timestamp)")) == "2024-01-01 08:00:01.000"
    assert one(emu, on(source, "cast(zoned as timestamp)")) == "2024-01-01 10:00:00.000"


@pytest.mark.parametrize(
    "sql, error",
    [
        (
            "select cast('2024-01-01T10:00:00' as timestamp)",
            "INVALID_CAST_ARGUMENT: Value cannot be cast to timestamp: 2024-01-01T10:00:00",
        ),
        (
            "select cast('2024-02-30 10:00:00' as timestamp)",
            "INVALID_CAST_ARGUMENT: Value cannot be cast to timestamp: 2024-02-30 10:00:00",
        ),
        (
            "select cast('2024-01-01 10:00:00 Mars/Olympus' as timestamp)",
            "INVALID_CAST_ARGUMENT: Value cannot be cast to timestamp: "
            "2024-01-01 10:00:00 Mars/Olympus",
        ),
    ],
)
def test_text_to_timestamp_fails_as_athena(emu: Emulator, sql: str, error: str) -> None:
    state, reason = run(emu, sql)
    assert (state, reason.split(" Statement:")[0]) == ("FAILED", error)


@pytest.mark.parametrize(
    "sql, expected",
    [
        (
            "select typeof(with_timezone(cast(now() as timestamp), 'UTC'))",
            "timestamp(3) with time zone",
        ),
        ("select typeof(now() at time zone 'UTC')", "timestamp(3) with time zone"),
        ("select typeof(at_timezone(now(), 'Europe/Paris'))", "timestamp(3) with time zone"),
        # the same instant: now() at time zone 'UTC' is now() (Athena's session zone is UTC)
        (
            "select abs(to_unixtime(now() at time zone 'Asia/Tokyo') - to_unixtime(now())) < 5",
            "true",
        ),
        (
            "select abs(to_unixtime(with_timezone(cast(now() as timestamp), 'UTC')) "
            "- to_unixtime(now())) < 5",
            "true",
        ),
        ("select typeof(cast(now() as timestamp))", "timestamp(3)"),
    ],
)
def test_now_in_a_zone(emu: Emulator, sql: str, expected: str) -> None:
    assert one(emu, sql) == expected


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select date_format(timestamp '2024-01-01 05:00:00', '%k')", "5"),
        ("select date_format(date '2021-01-01', '%v %x')", "53 2020"),
        ("select date_format(timestamp '2024-12-30 00:00:00', '%x-%v')", "2025-01"),
        ("select date_format(timestamp '2024-01-05 10:00', '%j')", "005"),
        (
            "select date_format(timestamp '2024-01-01 10:00:00.9996', '%H:%i:%s.%f')",
            "10:00:01.000000",
        ),
        (
            "select date_format(timestamp '2024-01-01 10:00', '%W %M %e %c %l %p')",
            "Monday January 1 1 10 AM",
        ),
        ("select date_format(cast(null as timestamp), '%D')", None),
    ],
)
def test_date_format_codes(emu: Emulator, sql: str, expected: Optional[str]) -> None:
    assert one(emu, sql) == expected


def test_date_format_fails_on_a_code_trino_refuses(emu: Emulator) -> None:
    state, reason = run(emu, "select date_format(timestamp '2024-01-01 10:00', '%D')")
    assert state == "FAILED"
    assert reason.startswith("INVALID_FUNCTION_ARGUMENT: %D not supported in date format string"), (
        reason
    )


@pytest.mark.parametrize("source", ["texts.iceberg_t", "cte"])
def test_date_format_of_columns(emu: Emulator, source: str) -> None:
    # an Iceberg timestamp(6) column: Trino formats it rounded to milliseconds
    expression = "date_format(cast(carry as timestamp(6)), '%H:%i:%s.%f %k')"
    assert one(emu, on(source, expression)) == "08:00:01.000000 8"


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select cast(interval '2' day as varchar)", "2 00:00:00.000"),
        ("select cast(interval '2' day + interval '3' hour as varchar)", "2 03:00:00.000"),
        ("select cast(interval '1.5' second - interval '3' hour as varchar)", "-0 02:59:58.500"),
        ("select cast(interval '3' year as varchar)", "3-0"),
        ("select cast(interval '3' year - interval '40' month as varchar)", "-0-4"),
    ],
)
def test_interval_to_varchar(emu: Emulator, sql: str, expected: str) -> None:
    assert one(emu, sql) == expected


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select decimal '.999'", "0.999"),
        ("select typeof(decimal '.999')", "decimal(3,3)"),
        ("select decimal '-.5' + decimal '1'", "0.5"),
        ("select cast(2.5e0 as varchar)", "2.5E0"),
        ("select cast(1e10 as varchar)", "1.0E10"),
        ("select cast(-0.00001e0 as varchar)", "-1.0E-5"),
        ("select cast(0e0 as varchar)", "0E0"),
        ("select cast(nan() as varchar)", "NaN"),
        ("select cast(-infinity() as varchar)", "-Infinity"),
        ("select cast(1.0e0/3 as varchar)", "3.333333333333333E-1"),
        ("select cast(1e23 as varchar)", "1.0E23"),
        ("select try_cast(nan() as decimal(10,2))", None),
        ("select cast(real '2.5' as decimal(10, 2))", "2.50"),
    ],
)
def test_decimals_and_double_text(emu: Emulator, sql: str, expected: Optional[str]) -> None:
    assert one(emu, sql) == expected


@pytest.mark.parametrize("source", SOURCES)
def test_decimal_and_double_columns(emu: Emulator, source: str) -> None:
    assert one(emu, on(source, "cast(d as varchar)")) == "2.5E0"
    assert one(emu, on(source, "small")) == "0.999"
    state, reason = run(emu, on(source, "cast(d * 1e308 as decimal(10, 2))"))
    assert state == "FAILED" and reason.startswith(
        "INVALID_CAST_ARGUMENT: Cannot cast DOUBLE 'Infinity' to DECIMAL(10, 2)"
    ), reason


@pytest.mark.parametrize(
    "sql, error",
    [
        (
            "select cast(nan() as decimal(10,2))",
            "INVALID_CAST_ARGUMENT: Cannot cast DOUBLE 'NaN' to DECIMAL(10, 2)",
        ),
        (
            "select cast(infinity() as decimal(38,0))",
            "INVALID_CAST_ARGUMENT: Cannot cast DOUBLE 'Infinity' to DECIMAL(38, 0)",
        ),
        (
            "select cast(cast(nan() as real) as decimal(5,1))",
            "INVALID_CAST_ARGUMENT: Cannot cast REAL 'NaN' to DECIMAL(5, 1)",
        ),
        (
            "select DECIMAL '.1' + DECIMAL '99999999999999999999999999999999999999'",
            "NUMERIC_VALUE_OUT_OF_RANGE",
        ),
    ],
)
def test_decimal_failures(emu: Emulator, sql: str, error: str) -> None:
    state, reason = run(emu, sql)
    assert state == "FAILED" and reason.startswith(error), reason


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select a[2] from (values row(row(1, 2))) t(a)", "2"),
        ("select a[1] from (values row(row(1, 2))) t(a)", "1"),
        ("select a[2] from (select row(1, 'x') a) t", "x"),
        ("select b from (values row(1, 2)) t(a, b)", "2"),
        ("select row(1, 2)[2]", "2"),
        ("select a[2] from (select array[5, 6] a) t", "6"),
    ],
)
def test_row_subscripts(emu: Emulator, sql: str, expected: str) -> None:
    assert one(emu, sql) == expected


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select from_unixtime(1700000000)", "2023-11-14 22:13:20.000 UTC"),
        ("select from_unixtime(1700000000.1235e0)", "2023-11-14 22:13:20.124 UTC"),
        ("select from_unixtime(0, 'Asia/Kolkata')", "1970-01-01 05:30:00.000 Asia/Kolkata"),
        ("select from_unixtime(0, -2, -30)", "1969-12-31 21:30:00.000 -02:30"),
        ("select typeof(from_unixtime(0))", "timestamp(3) with time zone"),
        ("select date('2024-01-02')", "2024-01-02"),
        ("select date(timestamp '2024-01-02 23:59:59.999')", "2024-01-02"),
        ("select millisecond(timestamp '2024-01-01 00:00:00.123')", "123"),
        ("select millisecond(timestamp '2024-01-01 00:00:00.123999')", "123"),
        ("select year_of_week(date '2021-01-01')", "2020"),
        ("select yow(timestamp '2024-12-30 10:00')", "2025"),
        # EXTRACT's YEAR_OF_WEEK and YOW fields (TestExtract)
        ("select extract(year_of_week from date '2021-01-01')", "2020"),
        ("select extract(yow from timestamp '2024-12-30 10:00')", "2025"),
        ("select typeof(extract(yow from date '2020-05-10'))", "bigint"),
    ],
)
def test_datetime_functions_packages_call(emu: Emulator, sql: str, expected: str) -> None:
    assert one(emu, sql) == expected


@pytest.mark.parametrize("text", ["25:00:00", "10:61", " 10:00", "10:00 +5", "1:2:3:4"])
def test_invalid_time_literals_fail(emu: Emulator, text: str) -> None:
    state, reason = run(emu, f"select time '{text}'")
    assert (state, reason.split(" Statement:")[0]) == (
        "FAILED",
        f"INVALID_LITERAL: '{text}' is not a valid time literal",
    )


def test_a_time_literal_of_13_digits_fails_on_its_precision(emu: Emulator) -> None:
    """TestTime:111: TIME '12:34:56.1234567891234' fails 'TIME precision must be in range
    [0, 12]: 13' (Trino 410 reads up to 12 fraction digits)."""
    state, reason = run(emu, "select time '10:00:00.1234567890123'")
    assert (state, reason.split(" Statement:")[0]) == (
        "FAILED",
        "INVALID_LITERAL: TIME precision must be in range [0, 12]: 13",
    )
