"""The emulator's time zone and time-of-day functions (athena_spark_emulator/sql/
functions/datetime*.py): the pure helpers and UDFs against Trino's documented answers, and the
translation's refusals. The end-to-end path on Spark is the conformance corpus's."""

from __future__ import annotations

import datetime
import decimal

import pytest

pytest.importorskip("sqlglot")

import sqlglot

from athena_spark_emulator.sql import results
from athena_spark_emulator.sql.functions import datetime as datetime_fns
from athena_spark_emulator.sql.functions import datetime_format, datetime_tstz, datetime_zoned
from athena_spark_emulator.sql.functions.table import Fails
from athena_spark_emulator.sql.syntax import DIALECT
from athena_spark_emulator.sql.translate import to_spark
from athena_spark_emulator.sql.udfs import AthenaError


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        ("UTC", "UTC"),
        ("Z", "UTC"),
        ("Etc/UTC", "UTC"),
        ("+00:00", "UTC"),
        ("GMT-08:30", "-08:30"),
        ("Etc/GMT+5", "-05:00"),
        ("+01:00", "+01:00"),
        ("-0830", "-08:30"),
        ("America/Los_Angeles", "America/Los_Angeles"),
        ("Mars/Base", None),
        ("+15:00", None),
    ],
)
def test_zone_ids_are_normalised_as_trino_does(text, zone):
    assert datetime_zoned.zone_id(text) == zone


def test_a_literal_keeps_its_zone_and_prints_three_digits_at_least():
    assert datetime_zoned.tstz_literal("2012-10-31 01:00 UTC", 0) == (
        "2012-10-31 01:00:00.000 UTC",
        0,
    )
    text, offset = datetime_zoned.tstz_literal("2001-08-22 03:04:05.321 GMT-08:30", 3)
    assert (text, offset) == ("2001-08-22 03:04:05.321 -08:30", -30600)


def test_at_time_zone_is_the_same_instant_elsewhere():
    value = datetime_zoned.tstz_literal("2012-10-31 01:00 UTC", 0)
    assert datetime_zoned.tstz_at_zone(value, "America/Los_Angeles", 3) == (
        "2012-10-30 18:00:00.000 America/Los_Angeles",
        -25200,
    )


def test_the_repeated_hour_keeps_its_instant():
    first = datetime_zoned.ts_at_zone(1352017800 * 10**6, "America/Los_Angeles", 3)  # 08:30 UTC
    second = datetime_zoned.ts_at_zone(1352021400 * 10**6, "America/Los_Angeles", 3)  # 09:30 UTC
    assert first[0] == second[0] == "2012-11-04 01:30:00.000 America/Los_Angeles"
    assert datetime_zoned.instant(second)[0] - datetime_zoned.instant(first)[0] == 3600 * 10**9


def test_with_timezone_reads_the_wall_time_in_the_zone():
    micros = int(
        (datetime.datetime(2021, 8, 22, 4) - datetime.datetime(1970, 1, 1)).total_seconds()
    )
    value = datetime_zoned.with_timezone(micros * 10**6, "Canada/Newfoundland", 3)
    assert value[0] == "2021-08-22 04:00:00.000 Canada/Newfoundland"
    assert (datetime_zoned.timezone_hour(value), datetime_zoned.timezone_minute(value)) == (-2, -30)
    assert datetime_zoned.tstz_zone(value) == "Canada/Newfoundland"


def test_to_iso8601_ends_in_z_for_utc():
    value = datetime_zoned.tstz_literal("2023-01-01 00:00:00.000 UTC", 3)
    assert datetime_zoned.tstz_iso8601(value, 3) == "2023-01-01T00:00:00.000Z"
    other = datetime_zoned.tstz_literal("2023-01-01 00:00:00.000 +01:00", 3)
    assert datetime_zoned.tstz_iso8601(other, 3) == "2023-01-01T00:00:00.000+01:00"


@pytest.mark.parametrize(
    ("text", "day"),
    [("2020-05-11", "2020-05-11"), ("2020-W10", "2020-03-02"), ("2020-123", "2020-05-02")],
)
def test_from_iso8601_date(text, day):
    assert datetime_fns.from_iso8601_date(text) == datetime.date.fromisoformat(day)


def test_from_iso8601_timestamps():
    assert datetime_fns.from_iso8601_timestamp("2020-05-11")[0] == "2020-05-11 00:00:00.000 UTC"
    assert datetime_fns.from_iso8601_timestamp("2020-05-11T11:15:05.055+01:00")[0] == (
        "2020-05-11 11:15:05.055 +01:00"
    )
    assert datetime_fns.from_iso8601_timestamp_nanos("2020-05-11T11:15:05.123456789+01:00")[0] == (
        "2020-05-11 11:15:05.123456789 +01:00"
    )
    with pytest.raises(AthenaError, match="INVALID_FUNCTION_ARGUMENT"):
        datetime_fns.from_iso8601_timestamp("yesterday")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (100, "1970-01-01 00:00:00.000000100 UTC"),
        (decimal.Decimal("1234.499"), "1970-01-01 00:00:00.000001234 UTC"),
        (decimal.Decimal("-1234"), "1969-12-31 23:59:59.999998766 UTC"),
    ],
)
def test_from_unixtime_nanos(value, text):
    assert datetime_fns.from_unixtime_nanos(value)[0] == text


def test_date_add_and_diff_of_zoned_timestamps():
    value = datetime_zoned.tstz_literal("2020-03-01 00:00:00 UTC", 0)
    assert datetime_zoned.tstz_date_add("day", -1, value, 0)[0] == "2020-02-29 00:00:00.000 UTC"
    later = datetime_zoned.tstz_literal("2020-03-02 00:00:00 UTC", 0)
    assert datetime_zoned.tstz_date_diff("hour", value, later) == 24
    jan = datetime_zoned.tstz_literal("2020-01-31 00:00 UTC", 0)
    feb = datetime_zoned.tstz_literal("2020-02-29 00:00 UTC", 0)
    assert datetime_zoned.tstz_date_diff("month", jan, feb) == 1


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (61, "1 minute, 1 second"),
        (3762, "1 hour, 2 minutes, 42 seconds"),
        (56363463, "93 weeks, 1 day, 8 hours, 31 minutes, 3 seconds"),
        (0, "0 seconds"),
        (-61.5, "1 minute, 2 seconds"),
    ],
)
def test_human_readable_seconds(seconds, text):
    assert datetime_fns.human_readable_seconds(float(seconds)) == text


def test_parse_duration_rounds_to_milliseconds():
    assert datetime_fns.parse_duration("42.8ms") == datetime.timedelta(milliseconds=43)
    assert datetime_fns.parse_duration("3.81 d") == datetime.timedelta(
        days=3, seconds=19 * 3600 + 26 * 60 + 24
    )
    with pytest.raises(AthenaError, match="not a valid data duration string"):
        datetime_fns.parse_duration("soon")


def test_results_print_the_struct_as_its_text():
    class Row(tuple):
        __fields__ = ["athena_tstz", "athena_offset"]

        def asDict(self):
            return dict(zip(self.__fields__, self))

    assert results.athena_value(Row(("2020-01-01 00:00:00.000 UTC", 0))) == (
        "2020-01-01 00:00:00.000 UTC"
    )


def _spark(sql: str) -> str:
    return to_spark(sqlglot.parse_one(sql, read=DIALECT), {})


@pytest.mark.parametrize(
    "sql",
    [
        # compared with text, grouped, deduplicated: Spark would use the struct's text
        "SELECT timestamp '2020-01-01 00:00 UTC' < 'x'",
        "SELECT count(*) FROM (SELECT timestamp '2020-01-01 00:00 UTC' AS x) GROUP BY x",
        "SELECT DISTINCT x FROM (SELECT timestamp '2020-01-01 00:00 UTC' AS x)",
        "SELECT timestamp '2020-01-01 00:00 UTC' AS x ORDER BY 1",
        "SELECT CAST(timestamp '2020-01-01 00:00 UTC' AS varchar(30))",
        "SELECT at_timezone(timestamp '2020-01-01 00:00 UTC', 'Mars/Base')",
        "SELECT TIMESTAMP '2020-06-01 12:30:45.000000000'",
    ],
)
def test_zoned_values_are_run_only_where_their_use_is_known(sql):
    with pytest.raises(Exception, match="cannot run"):
        _spark(sql)


def test_athena_fails_time_with_a_political_zone_and_time_plus_months():
    with pytest.raises(Fails, match="not a valid TIME literal"):
        _spark("SELECT TIME '13:21:32.424 America/Los_Angeles'")
    with pytest.raises(Fails, match="Cannot apply operator"):
        _spark("SELECT TIME '01:00' + INTERVAL '3' MONTH")


def test_time_arithmetic_adds_the_interval_around_midnight():
    """time - interval '3' hour: the picoseconds plus 21 hours, modulo a day (TimeOperators.add)."""
    sql = _spark("SELECT time '01:00' - interval '3' hour")
    assert "75600000000000000" in sql and "PMOD" in sql.upper()


def test_format_datetime_prints_joda_patterns_of_milliseconds():
    micros = 1591804523383456  # 2020-06-10 15:55:23.383456
    pattern = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS EEEE MMM h a"
    assert datetime_format.format_datetime_ts(micros, pattern) == (
        "2020-06-10T15:55:23.383000 Wednesday Jun 3 PM"
    )
    assert datetime_format.joda_tokens("yyyy z") is None


def test_format_of_dates_with_java_t_conversions():
    day = datetime.date(2006, 7, 4)
    assert datetime_format.format_dates("%1$tA, %1$tB %1$te, %1$tY", day) == "Tuesday, July 4, 2006"
    assert datetime_format.format_dates("%tF %tb", day, day) == "2006-07-04 Jul"


def test_casts_of_a_zoned_timestamp_read_its_wall_time():
    value = datetime_fns.from_iso8601_timestamp_nanos("2020-05-11T11:15:05.123456789+01:00")
    assert datetime_zoned.tstz_to_timestamp(value, 6) == datetime.datetime(
        2020, 5, 11, 11, 15, 5, 123457
    )
    assert datetime_zoned.tstz_to_timestamp(value, 0) == datetime.datetime(2020, 5, 11, 11, 15, 5)
    late = datetime_zoned.tstz_literal("2020-05-11 23:30 America/Los_Angeles", 0)
    assert datetime_zoned.tstz_to_date(late) == datetime.date(2020, 5, 11)


def test_a_cast_of_a_zoned_timestamp_to_text_has_its_precision_s_digits():
    assert "ATHENA_TSTZ_VARCHAR" in _spark(
        "SELECT CAST(from_iso8601_timestamp('2020-05-11') AS varchar)"
    )
    value = datetime_zoned.tstz_literal("2020-05-11 23:30 UTC", 0)
    assert datetime_tstz.tstz_varchar(value, 0) == "2020-05-11 23:30:00 UTC"
    assert datetime_tstz.tstz_varchar(value, 1) == "2020-05-11 23:30:00.0 UTC"


def test_field_functions_read_the_wall_time_in_the_zone():
    sql = _spark("SELECT hour(timestamp '2020-05-11 23:30 America/Los_Angeles')")
    assert "ATHENA_TSTZ_TO_TIMESTAMP" in sql
    value = datetime_zoned.tstz_literal("2020-05-11 23:30:00.123 America/Los_Angeles", 3)
    assert datetime_zoned.tstz_unixtime(value) == 1589265000.123
