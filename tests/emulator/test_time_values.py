"""TIME(p) and TIME(p) WITH TIME ZONE values in Trino 410's operations, through the
emulator's Athena API (functions/datetime_time.py): literals of 0 to 12 digits, casts
between precisions (DateTimes.round: half up, wrapping at midnight), to and from varchar,
from timestamps; comparisons (a time with time zone as its UTC-normalized instant);
+/- an interval day to second; date_trunc, date_add, date_diff, extract and the field
functions. Over literals, over time columns of a VALUES CTE, a CTE and a derived table
(a Hive or Iceberg table holds no time column: Trino's HiveTypeTranslator refuses the
type), and casts of timestamp columns of a Hive table (timestamp(3)), an Iceberg table
(timestamp(6)), a view over each and an import CTE.
"""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

SCHEMA = "time_values"
TABLES = {
    "hive": f"create table {SCHEMA}.t_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/t_hive/') as "
    "select timestamp '2020-05-10 23:59:59.555' as ts",
    "iceberg": f"create table {SCHEMA}.t_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/t_iceberg/') as "
    "select cast(timestamp '2020-05-10 23:59:59.555555' as timestamp(6)) as ts",
}
SOURCES = [f"{SCHEMA}.t_hive", f"{SCHEMA}.t_iceberg", f"{SCHEMA}.v_hive", f"{SCHEMA}.v_iceberg"]
#: a VALUES CTE of times of one precision and of times with time zone
VALUES = (
    "with t(a, b, z) as (values (time '01:02:03.456', time '23:00:00.000', "
    "time '01:00:00 +01:00'), (time '12:00:00.999', time '12:00:00.999', "
    "time '00:30:00 -00:30'))"
)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA, TABLES, f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.t_{{kind}}"
    )


def one(emu: Emulator, expression: str) -> Optional[str]:
    return row(emu, f"select {expression}")[0]


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("TIME '12:34:56'", "12:34:56"),
        ("TIME '12:34:56.1'", "12:34:56.1"),
        ("TIME '12:34:56.123456789012'", "12:34:56.123456789012"),
        ("typeof(TIME '12:34:56.123456789012')", "time(12)"),
        ("TIME '01:02:03.456789 -08:00'", "01:02:03.456789-08:00"),
        ("typeof(TIME '01:02:03.4567891 +05:45')", "time(7) with time zone"),
    ],
)
def test_time_literals_print_their_own_digits(
    emu: Emulator, expression: str, expected: str
) -> None:
    """SqlTime / SqlTimeWithTimeZone print exactly p digits, p up to 12 (on main before the
    change: at least 3 digits, and more than 9 refused)."""
    assert one(emu, expression) == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("CAST(TIME '12:34:56.5' AS TIME(0))", "12:34:57"),
        ("CAST(TIME '23:59:59.999' AS TIME(0))", "00:00:00"),
        ("CAST(TIME '12:34:56.123' AS TIME(6))", "12:34:56.123000"),
        ("CAST(TIME '12:34:56.123456789012' AS TIME(9))", "12:34:56.123456789"),
        ("CAST(TIME '12:34:56.1234567895' AS TIME(9))", "12:34:56.123456790"),
        ("CAST(TIME '12:34:56.123' AS VARCHAR)", "12:34:56.123"),
        ("CAST(TIME '12:34:56.5 +08:35' AS TIME(0))", "12:34:57"),
        ("CAST(TIME '12:34:56.5 +08:35' AS TIME(0) WITH TIME ZONE)", "12:34:57+08:35"),
        ("CAST(TIME '12:34:56.5 +08:35' AS VARCHAR)", "12:34:56.5+08:35"),
        ("CAST(TIME '12:34:56' AS TIME(3) WITH TIME ZONE)", "12:34:56.000+00:00"),
        ("CAST('12:34:56.125' AS TIME(2))", "12:34:56.13"),
        ("TRY_CAST('12:65' AS TIME)", None),
        ("CAST(TIMESTAMP '2020-05-10 12:34:56.123456789' AS TIME(6))", "12:34:56.123457"),
        ("CAST(TIMESTAMP '2020-05-10 12:34:56.123456789123' AS TIME(12))", "12:34:56.123456789123"),
        ("CAST(TIMESTAMP '2020-05-10 23:59:59.9' AS TIME(0))", "00:00:00"),
        (
            "CAST(TIMESTAMP '2020-05-10 12:34:56.123' AS TIME(3) WITH TIME ZONE)",
            "12:34:56.123+00:00",
        ),
    ],
)
def test_casts_round_half_up_and_wrap_at_midnight(
    emu: Emulator, expression: str, expected: Optional[str]
) -> None:
    """TimeOperators.castToTime, TimeWithTimeZoneTo*Cast, TimeToTimeWithTimeZoneCast (the
    session's offset, UTC), TimestampToTime*Cast, VarcharToTimeCast (on main before the
    change: refused)."""
    assert one(emu, expression) == expected


def test_a_cast_of_an_invalid_text_to_time_fails(emu: Emulator) -> None:
    assert failure(emu, "select CAST('12:65' AS TIME)") == (
        "INVALID_CAST_ARGUMENT: Value cannot be cast to time: 12:65"
    )


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("TIME '12:34:56' = TIME '12:34:56.000'", "true"),
        ("TIME '12:34:56.1' < TIME '12:34:56.10001'", "true"),
        ("TIME '12:34:56' >= TIME '12:34:57'", "false"),
        ("TIME '12:34:56' BETWEEN TIME '12:00' AND TIME '13:00'", "true"),
        ("TIME '12:34:56' IS DISTINCT FROM TIME '12:34:56.000000'", "false"),
        ("TIME '01:00 +01:00' = TIME '00:00 +00:00'", "true"),
        ("TIME '01:00 +02:00' > TIME '00:00 +00:00'", "true"),
        ("TIME '00:00 +00:00' <> TIME '00:00'", "false"),
    ],
)
def test_comparisons_compare_the_instants(emu: Emulator, expression: str, expected: str) -> None:
    """TimeOperators and TimeWithTimeZoneOperators (normalize: the UTC time of day) (on
    main before the change: refused)."""
    assert one(emu, expression) == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("TIME '23:59:59' + INTERVAL '2' SECOND", "00:00:01.000"),
        ("INTERVAL '90' MINUTE + TIME '23:00:00.123456'", "00:30:00.123456"),
        ("TIME '01:00 +05:00' - INTERVAL '2' HOUR", "23:00:00.000+05:00"),
        ("date_trunc('minute', TIME '12:34:56.789')", "12:34:00.000"),
        ("date_trunc('hour', TIME '12:34:56 -08:00')", "12:00:00-08:00"),
        ("date_add('millisecond', 600, TIME '12:34:56')", "12:34:57"),
        ("date_add('hour', 25, TIME '23:00:00.000')", "00:00:00.000"),
        ("date_add('minute', -1, TIME '00:00:00 +03:00')", "23:59:00+03:00"),
        ("date_diff('second', TIME '12:00:00', TIME '11:59:58.5')", "-1"),
        ("date_diff('hour', TIME '23:00 +00:00', TIME '00:00 -02:00')", "-21"),
        ("extract(hour FROM TIME '12:34:56.789 +08:00')", "12"),
        ("minute(TIME '12:34:56.789')", "34"),
        ("second(TIME '12:34:56.789')", "56"),
        ("millisecond(TIME '12:34:56.789123')", "789"),
        ("timezone_hour(TIME '12:34:56 -08:30')", "-8"),
        ("timezone(TIME '12:00:00+09:00')", "+09:00"),
        ("extract(timezone_minute FROM TIME '12:34:56 -08:30')", "-30"),
    ],
)
def test_time_functions(emu: Emulator, expression: str, expected: str) -> None:
    """TimeOperators.add (time(max(3, p))), TimeFunctions / timetz.DateTrunc, DateAdd
    (n modulo a day's units; p <= 3 rounded), DateDiff (toward zero; normalized),
    Extract*, TimeZoneHour/Minute (on main before the change: refused)."""
    assert one(emu, expression) == expected


def test_an_invalid_time_unit_fails(emu: Emulator) -> None:
    assert failure(emu, "select date_trunc('day', TIME '12:34:56')") == (
        "INVALID_FUNCTION_ARGUMENT: 'day' is not a valid Time field"
    )
    assert failure(emu, "select TIME 'xxx'") == "INVALID_LITERAL: 'xxx' is not a valid time literal"
    assert failure(emu, "select EXTRACT(MILLISECOND FROM TIME '12:34:56')") == (
        "SYNTAX_ERROR: Invalid EXTRACT field: MILLISECOND"
    )


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("format('%s', TIME '12:34:00')", "12:34"),
        ("format('at %s!', TIME '12:34:56.120')", "at 12:34:56.120!"),
        ("format('%s', TIME '12:34:56.1234')", "12:34:56.123400"),
        ("format('%s', TIME '12:34:56.555555555555')", "12:34:56.555555556"),
        ("format('%s', TIME '12:34:56.100 +08:35')", "12:34:56.100+08:35"),
        ("format('%s', TIME '12:34:56.111111111111 +00:00')", "12:34:56.111111111111+00:00"),
        ("TIME '01:00' IS NULL", "false"),
    ],
)
def test_format_of_a_time_is_java_local_time_text(
    emu: Emulator, expression: str, expected: str
) -> None:
    """FormatFunction hands Java's Formatter a LocalTime rounded to nanoseconds (its
    toString: seconds only when not zero, 3, 6 or 9 digits), a time with time zone as its
    varchar text (on main before the change: refused)."""
    assert one(emu, expression) == expected


def rows(emu: Emulator, sql: str) -> List[List[Optional[str]]]:
    from tests.emulator.test_athena_semantics import run

    state, found = run(emu, sql)
    assert state == "SUCCEEDED", (sql, found)
    return [list(r) for r in found[1:]]


def test_time_columns_of_a_values_cte(emu: Emulator) -> None:
    """A VALUES CTE's time columns: shown, compared (across precisions; with time zone as
    instants), ordered, cast and passed to the time functions (on main before the change:
    refused)."""
    sql = (
        f"{VALUES} select a, a < b, b = CAST(a AS TIME(6)), z = TIME '00:00 +00:00', "
        "CAST(a AS TIME(0)), a + INTERVAL '1' HOUR, hour(a), date_diff('millisecond', a, b), "
        "date_trunc('second', z) from t order by a"
    )
    assert rows(emu, sql) == [
        ["01:02:03.456", "true", "false", "true", "01:02:03", "02:02:03.456", "1", "79076544",
         "01:00:00+01:00"],
        ["12:00:00.999", "false", "true", "false", "12:00:01", "13:00:00.999", "12", "0",
         "00:30:00-00:30"],
    ]  # fmt: skip
    assert rows(emu, f"{VALUES} select count(*) from t where z < TIME '00:30 +00:00'") == [["1"]]


def test_time_columns_of_a_cte_and_a_derived_table(emu: Emulator) -> None:
    sql = (
        "with c as (select time '10:00:00.5' as x) "
        "select x, x > TIME '10:00', date_add('second', 1, x) from c"
    )
    assert rows(emu, sql) == [["10:00:00.5", "true", "10:00:01.5"]]
    derived = "select minute(x) from (select time '10:20:30 +01:00' as x) d where x = x"
    assert rows(emu, derived) == [["20"]]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
def test_timestamp_columns_cast_to_time(emu: Emulator, source: str, cte: bool) -> None:
    """TimestampToTimeCast and TimestampToTimeWithTimeZoneCast of a Hive timestamp(3) and
    an Iceberg timestamp(6) column: rounded half up, wrapping at midnight (on main before
    the change: refused)."""
    columns = (
        "CAST(ts AS TIME(3)), CAST(ts AS TIME(0)), CAST(ts AS TIME(1) WITH TIME ZONE), "
        "CAST(ts AS TIME(2)) > TIME '23:59:59.55'"
    )
    iceberg = "iceberg" in source
    assert row(emu, over(source, cte, columns)) == [
        "23:59:59.556" if iceberg else "23:59:59.555",
        "00:00:00",
        "23:59:59.6+00:00",
        "true",
    ]


@pytest.mark.parametrize(
    "sql, construct",
    [
        ("select x from (select time '01:00' as x union all select time '02:00:00.1')", "UNION"),
        ("select case when true then time '01:00' end", "CASE"),
        ("select max(x) from (select time '01:00' as x)", "MAX"),
        ("select x from (select time '01:00 +01:00' as x) order by x", "ORDER BY"),
        ("select format('%5s', time '01:00')", "FORMAT"),
    ],
)
def test_other_uses_of_a_time_are_refused(emu: Emulator, sql: str, construct: str) -> None:
    """Where Spark would compare or merge the structs, or Trino would coerce precisions,
    the emulator refuses, naming the construct."""
    reason = failure(emu, sql)
    assert reason.startswith("NOT_SUPPORTED"), reason
    assert "time" in reason, reason


def test_a_table_holds_no_time_column(emu: Emulator) -> None:
    """Trino's HiveTypeTranslator: a time column is not a Hive type (Athena's CTAS fails)."""
    sql = (
        f"create table {SCHEMA}.t_time with (format='PARQUET', "
        f"external_location='s3://dbt-data/{SCHEMA}/t_time/') as select time '01:00' as x"
    )
    assert failure(emu, sql).startswith("NOT_SUPPORTED")
