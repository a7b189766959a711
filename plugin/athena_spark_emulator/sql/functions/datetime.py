"""Date and time functions and operators (Trino's ``functions/datetime.md``): date_add,
date_diff, date_trunc, the field extractors, extract, date_parse/date_format, to_unixtime,
to_milliseconds, AT TIME ZONE, at_timezone, with_timezone, timezone_hour/minute,
from_unixtime_nanos, human_readable_seconds, parse_duration, localtimestamp and
current_timezone.

The page is four modules: this one (the entries), datetime_zoned.py (how a timestamp
with time zone is held in Spark, its UDFs, literals and casts), datetime_tstz.py
(timestamps with time zone compared, shifted by intervals, truncated and cast),
datetime_time.py (how a time and a time with time zone are held and what runs on them) and
datetime_format.py (format_datetime, format() of dates, ISO 8601 text: to_iso8601,
from_iso8601_*). Examples: ``tests/conformance/examples/datetime.yml``.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions import datetime_time as times
from athena_spark_emulator.sql.functions.conversion import CASTS, ZONED_TYPES
from athena_spark_emulator.sql.functions.conversion import cast as conversion_cast
from athena_spark_emulator.sql.functions.conversion_types import TYPEOFS
from athena_spark_emulator.sql.functions.datetime_format import (  # noqa: F401 (their old home)
    from_iso8601_date,
    from_iso8601_timestamp,
    from_iso8601_timestamp_nanos,
    interval_text,
)
from athena_spark_emulator.sql.functions.datetime_tstz import (
    cast_from_zoned,
    cast_to_zoned,
    time_form,
    trunc_form,
    varchar_form,
)
from athena_spark_emulator.sql.functions.datetime_zoned import (
    TSTZ,
    _at_zone,
    _micros,
    _offset_id,
    _precision,
    _tstz_out,
    _typed,
    _zone_literal,
    is_tstz,
    tstz,
    typed_cast,
    zone_argument,
)
from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    call,
    is_date,
    is_decimal,
    is_double,
    is_integral,
    is_timestamp,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import AthenaError, Unsupported, udf, udf_call

T = exp.DataType.Type
_cls: Any
_name: str


def _precision_of(kind: exp.DataType) -> int:
    return int(kind.expressions[0].this.this)


@CASTS.register(10, "zoned and time-of-day values, timestamp(p > 6)")
def _time_cast(node: Any, value: Any, target: exp.DataType, safe: bool) -> Any:
    """A cast datetime_zoned runs: of a zoned timestamp, or to a zoned or time-of-day type or
    a timestamp of more than 6 digits (None: another cast)."""
    if target.this in (T.VARCHAR, T.TEXT) and not target.expressions:
        text = interval_text(node, value)
        if text is not None:
            return text
    now = _now_precision(value)
    if now is not None and target.this == T.TIMESTAMP:
        return _now_as_timestamp(node, value, _precision_of(target) if target.expressions else 3)
    if target.this == T.TIMESTAMPTZ and not (isinstance(value, exp.Literal) and value.is_string):
        zoned = cast_to_zoned(node)  # of a timestamp, with or without a zone
        if zoned is not None:
            return zoned
    source = type_of(value)
    if source is not None and source.this == T.TIMESTAMPTZ:
        return _from_zoned(node, target, safe)
    from_time = times.cast_from_time(node, safe)
    if from_time is not None or target.this in (T.TIME, T.TIMETZ):
        return from_time or times.time_cast(node, safe)
    nanos = target.this == T.TIMESTAMP and target.expressions and _precision_of(target) > 6
    if nanos and times.timestamp_under_time_cast(node):
        return node  # the time cast reads the literal (datetime_time._timestamp_literal)
    if target.this in ZONED_TYPES or nanos:
        return typed_cast(node, safe)
    return None


def _from_zoned(node: Any, target: exp.DataType, safe: bool) -> Any:
    """A cast of a timestamp with time zone (datetime_tstz.py, datetime_zoned.py)."""
    if target.this == T.VARCHAR and not target.expressions:
        return varchar_form(node)
    if target.this in (T.TIME, T.TIMETZ):
        return time_form(node)
    return cast_from_zoned(node, safe)


# ---- dates and times ------------------------------------------------------------------------
UNITS = {
    "millisecond": "MILLISECOND",
    "second": "SECOND",
    "minute": "MINUTE",
    "hour": "HOUR",
    "day": "DAY",
    "week": "WEEK",
    "month": "MONTH",
    "quarter": "QUARTER",
    "year": "YEAR",
}
DATE_UNITS = ("day", "week", "month", "quarter", "year")


def _unit(node: exp.Expression) -> str:
    unit = node.args.get("unit")
    text = (unit.name if unit is not None else "day").lower()
    if text not in UNITS:
        raise Refused(f"the unit '{text}' of {node.sql('athena')}")
    return text


def _temporal(node: exp.Expression, arg: exp.Expression) -> str:
    kind = type_of(arg)
    if is_date(kind):
        return "date"
    if is_timestamp(kind):
        return "timestamp"
    raise Refused(
        f"{node.sql('athena')}",
        "the emulator cannot tell whether its argument is a date or a timestamp",
    )


@rewrites(exp.DateAdd, "date_add")
def date_add(node: exp.Expression) -> exp.Expression:
    time = times.add_form(node)
    if time is not None:
        return time
    unit = _unit(node)
    zoned = type_of(node.this)
    if zoned is not None and zoned.this == T.TIMESTAMPTZ:
        return tstz_date_add_form(node, unit)
    kind = _temporal(node, node.this)
    if kind == "date":
        if unit not in DATE_UNITS:
            raise Refused(f"date_add('{unit}', ...) of a date", "Athena fails it")
        months = {"month": 1, "quarter": 3, "year": 12}
        if unit in months:
            out = spark(
                f"add_months(_0, CAST(_1 AS INT) * {months[unit]})", node.this, node.expression
            )
        else:
            days = 7 if unit == "week" else 1
            out = spark(f"date_add(_0, CAST(_1 AS INT) * {days})", node.this, node.expression)
        return typed(out, "date")
    out = call("timestampadd", exp.var(UNITS[unit]), node.expression, node.this)
    source = type_of(node.this)
    digits = _precision_of(source) if source is not None and source.expressions else 3
    if unit == "millisecond" and digits < 3:  # DateAdd: Timestamps.round to p digits, half up
        size = 10 ** (3 - digits)
        millis = f"CAST(floor((unix_millis(_0) + {size // 2}) / {size}) AS BIGINT) * {size}"
        out = spark(f"timestamp_millis({millis})", out)
    out.type = source
    return out


#: The length of each unit of a fixed length, in milliseconds (Joda's precise fields)
_UNIT_MILLIS = {
    "millisecond": 1,
    "second": 1000,
    "minute": 60_000,
    "hour": 3_600_000,
    "day": 86_400_000,
    "week": 604_800_000,
}
_MONTHS_OF = {"month": 1, "quarter": 3, "year": 12}


def _millis(value: str) -> str:
    return f"unix_millis(CAST({value} AS TIMESTAMP))"


def _day_millis(value: str) -> str:
    """The milliseconds since midnight of a Spark timestamp (UTC)."""
    midnight = f"date_trunc('DAY', {value})"
    return f"{_millis(value)} - {_millis(midnight)}"


def _months_from(minuend: str, subtrahend: str) -> str:
    """Joda's whole months from ``subtrahend`` to a later ``minuend`` (Spark timestamps of
    wall times, UTC): the difference of their months, less one where the minuend's day
    and time of day come before the subtrahend's, a subtrahend's day past the minuend's
    counting as the minuend's where the minuend is the last day of its month."""
    day_m, day_s = f"dayofmonth({minuend})", f"dayofmonth({subtrahend})"
    last = f"{day_m} = dayofmonth(last_day({minuend}))"
    rest_m = f"{day_m} * 86400000L + {_day_millis(minuend)}"
    rest_s = (
        f"(CASE WHEN {last} AND {day_s} > {day_m} THEN {day_m} ELSE {day_s} END) * 86400000L "
        f"+ {_day_millis(subtrahend)}"
    )
    months = f"(year({minuend}) * 12 + month({minuend})) - (year({subtrahend}) * 12 + month({subtrahend}))"
    return f"({months} - CASE WHEN {rest_m} < {rest_s} THEN 1 ELSE 0 END)"


@rewrites(exp.DateDiff, "date_diff")
def date_diff(node: exp.Expression) -> exp.Expression:
    """date_diff(unit, a, b): whole units from a to b, as Joda's fields count them in UTC
    (Trino's DateTimeFunctions.diffDate, timestamp.DateDiff: the field's
    getDifferenceAsLong of the epoch milliseconds, sub-millisecond digits dropped).

    A unit of a fixed length (millisecond to week) counts the whole units in the
    difference, toward zero. Months are BasicMonthOfYearDateTimeField's difference: for
    b after a, the months between their months, less one where b's day of month and time
    come before a's; where b is the last day of its month, a later day of a counts as
    that day (2024-01-31 to 2024-02-29 is 1 month, 2023-11-30 to 2024-02-29 3). b before
    a is minus the difference from b to a. A quarter is a third of the months and a year
    a twelfth (QuarterOfYearDateTimeField divides the months; BasicGJChronology.
    getYearDifference, which lines up 29 February, gives the same whole years:
    2020-02-29 to 2021-02-28 is 1), both toward zero. java.time's (Spark's timestampdiff)
    has no last-day rule."""
    time = times.diff_form(node)
    if time is not None:
        return time
    unit = _unit(node)
    kinds = (type_of(node.this), type_of(node.expression))
    if any(k is not None and k.this == T.TIMESTAMPTZ for k in kinds):
        return tstz_date_diff_form(node, unit)
    dates = [_temporal(node, node.this), _temporal(node, node.expression)]
    if dates == ["date", "date"] and unit not in DATE_UNITS:
        raise Refused(f"date_diff('{unit}', ...) of dates", "Athena fails it")
    if unit in _UNIT_MILLIS:
        text = f"({_millis('_0')} - {_millis('_1')}) div {_UNIT_MILLIS[unit]}"
        return typed(spark(f"CAST({text} AS BIGINT)", node.this, node.expression), "bigint")
    # each value as a Spark timestamp of its wall time to the millisecond (UTC)
    end, start = (
        spark(f"timestamp_millis({_millis('_0')})", v) for v in (node.this, node.expression)
    )
    later = _months_from("_0", "_1")
    earlier = _months_from("_1", "_0")
    months = f"CASE WHEN _0 >= _1 THEN {later} ELSE -{earlier} END"
    text = f"CAST(({months}) div {_MONTHS_OF[unit]} AS BIGINT)"
    return typed(spark(text, end, start), "bigint")


def _trunc(node: exp.Expression, value: exp.Expression) -> exp.Expression:
    unit = _unit(node)
    if is_tstz(type_of(value)):
        return trunc_form(node, unit, value)
    kind = _temporal(node, value)
    if kind == "date":
        if unit not in DATE_UNITS:
            raise Refused(f"date_trunc('{unit}', ...) of a date", "Athena fails it")
        out = spark(f"CAST(date_trunc('{UNITS[unit]}', _0) AS DATE)", value)
        return typed(out, "date")
    out = spark(f"date_trunc('{UNITS[unit]}', _0)", value)
    out.type = type_of(value)
    return out


@rewrites(exp.TimestampTrunc, "date_trunc")
def date_trunc(node: exp.Expression) -> exp.Expression:
    return times.trunc_form(node) or _trunc(node, node.this)


@rewrites(exp.DateTrunc, "date_trunc ")
def date_trunc_date(node: exp.Expression) -> exp.Expression:
    return _trunc(node, node.this)


@rewrites(exp.DayOfWeekIso, "day_of_week")
def day_of_week(node: exp.Expression) -> exp.Expression:
    out = spark("CAST(weekday(_0) + 1 AS BIGINT)", node.this)
    return typed(out, "bigint")


for _cls, _name, _spark in (
    (exp.Year, "year", "year"),
    (exp.Month, "month", "month"),
    (exp.Day, "day", "day"),
    (exp.Quarter, "quarter", "quarter"),
    (exp.DayOfYear, "day_of_year", "dayofyear"),
):

    def _part(node: exp.Expression, fn: str = _spark) -> exp.Expression:
        out = spark(f"{fn}(_0)", node.this)
        return out

    rewrites(_cls, _name)(_part)

same(exp.CurrentDate, "current_date")
same(exp.CurrentTimestamp, "current_timestamp")
same(exp.LastDay, "last_day_of_month")


_FORMAT_LITERAL = re.compile(r"(?<!%)([A-Za-z]+)")


def _quote_format_letters(node: exp.Expression) -> exp.Expression:
    """A literal letter in a date format (``%Y-%m-%dT%H``) quoted (``'T'``), as Spark's
    datetime patterns need (sqlglot translates the ``%`` codes when it renders)."""
    fmt = node.args.get("format")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise Refused(f"{node.sql('athena')} with a format that is not a literal")
    two_digit_year = isinstance(node, exp.StrToTime) and "%y" in fmt.this
    if two_digit_year and ("%Y" in fmt.this or fmt.this.count("%y") > 1):
        raise Refused(f"{node.sql('athena')} (parsing a two-digit year, %y)")
    node.set("format", exp.Literal.string(_FORMAT_LITERAL.sub(r"'\1'", fmt.this)))
    if two_digit_year:  # Spark reads yy as 2000-2099, Trino as 1970-2069
        return spark("CASE WHEN year(_0) >= 2070 THEN _0 - INTERVAL '100' YEAR ELSE _0 END", node)
    return node


@rewrites(exp.StrToTime, "date_parse")
def date_parse(node: exp.Expression) -> exp.Expression:
    """Trino's date_parse (DateTimeFunctions.dateParse) parses with a Joda formatter, whose
    ``%f`` (DateFormatParser: appendFractionOfSecond(6, 9)) keeps what Joda holds, whole
    milliseconds: the digits past the third are dropped, not rounded ('1.2006' with
    '%s.%f' is 00:00:01.200), and the result is a timestamp(3). Spark keeps microseconds:
    truncated here to the millisecond (a format without %f has no fraction to cut)."""
    fmt = node.args.get("format")
    fraction = isinstance(fmt, exp.Literal) and "%f" in fmt.this
    out = _quote_format_letters(node)
    if fraction:
        out = spark("date_trunc('MILLISECOND', _0)", out)
    out.meta["athena_typeof"] = "timestamp(3)"  # what typeof names it (_time_typeof)
    return out


@rewrites("second", "second")
def second(node: exp.Expression) -> exp.Expression:
    # sqlglot 30 parses second(x) as exp.Second (registered below), older releases as a call
    value = node.this if isinstance(node, exp.Second) else node.expressions[0]
    time = times.field_form(node, "SECOND", value)
    return time or spark("CAST(second(_0) AS BIGINT)", value)


rewrites(exp.Second, "second")(second)


@rewrites("to_milliseconds", "to_milliseconds")
def to_milliseconds(node: exp.Expression) -> exp.Expression:
    [value] = node.expressions
    out = spark("unix_millis(TIMESTAMP '1970-01-01 00:00:00' + _0)", value)
    return typed(out, "bigint")


def to_unixtime_form(node: exp.Expression) -> exp.Expression:
    if _precision(type_of(node.this)) > 3:
        raise Refused(f"{node.sql('athena')} (of a timestamp with time zone of more than 3 digits)")
    out = udf_call("tstz_unixtime", node.this)
    return typed(out, "double")


@rewrites(exp.TimeToUnix, "to_unixtime")
def to_unixtime(node: exp.Expression) -> exp.Expression:
    zoned = type_of(node.this)
    if zoned is not None and zoned.this == T.TIMESTAMPTZ:
        return to_unixtime_form(node)
    out = spark("unix_micros(CAST(_0 AS TIMESTAMP)) / 1000000D", node.this)
    return typed(out, "double")


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.Hour, "hour"),
    (exp.Minute, "minute"),
):

    def _time_field(node: exp.Expression, field: str = _name.upper()) -> exp.Expression:
        return times.field_form(node, field, node.this) or node

    rewrites(_cls, _name)(_time_field)

for _cls, _name in (
    (exp.DayOfMonth, "day_of_month"),
    (exp.WeekOfYear, "week"),
):
    same(_cls, _name)


@rewrites(exp.Extract, "extract")
def extract(node: exp.Expression) -> exp.Expression:
    unit = node.this.name.upper()
    forms = {
        "YEAR": "year(_0)",
        "QUARTER": "quarter(_0)",
        "MONTH": "month(_0)",
        "WEEK": "weekofyear(_0)",
        "DAY": "dayofmonth(_0)",
        "DAY_OF_MONTH": "dayofmonth(_0)",
        "DAY_OF_WEEK": "weekday(_0) + 1",
        "DOW": "weekday(_0) + 1",
        "DAY_OF_YEAR": "dayofyear(_0)",
        "DOY": "dayofyear(_0)",
        # the ISO week's year, as year_of_week: the year of the Thursday of its week
        "YEAR_OF_WEEK": "year(date_add(CAST(_0 AS DATE), 3 - weekday(_0)))",
        "YOW": "year(date_add(CAST(_0 AS DATE), 3 - weekday(_0)))",
        "HOUR": "hour(_0)",
        "MINUTE": "minute(_0)",
        "SECOND": "second(_0)",
    }
    zoned = {"TIMEZONE_HOUR": "timezone_hour", "TIMEZONE_MINUTE": "timezone_minute"}
    if unit in zoned and is_tstz(type_of(node.expression)):  # its offset
        return typed(udf_call(zoned[unit], node.expression), "bigint")
    time = times.field_form(node, unit, node.expression)
    if time is not None:
        return time
    if unit not in forms:
        raise Refused(f"extract({unit} FROM ...)")
    return spark(f"CAST({forms[unit]} AS BIGINT)", node.expression)


@TYPEOFS.register(10, "timestamps, intervals and the types rewrites give")
def _time_typeof(value: exp.Expression) -> Optional[str]:
    """typeof of a timestamp, interval or a value a rewrite typed (None: not one)."""
    named = value.meta.get("athena_typeof") if value._meta else None
    if named:  # the Athena type a rewrite gave its Spark form
        return str(named)
    if isinstance(value, exp.Interval) and value.args.get("unit") is not None:
        year_month = value.args["unit"].name.upper() in ("YEAR", "MONTH")
        return f"interval {'year to month' if year_month else 'day to second'}"
    if isinstance(value, exp.CurrentTimestamp):
        digits = int(value.this.this) if isinstance(value.this, exp.Literal) else 3
        return f"timestamp({digits}) with time zone"
    kind = type_of(value)
    if is_timestamp(kind) and kind is not None:
        if kind.expressions:
            return f"timestamp({int(kind.expressions[0].this.this)})"
        if isinstance(value, exp.Cast):  # Athena's bare timestamp is timestamp(3)
            return "timestamp(3)"
    return None


@udf("from_unixtime_nanos", TSTZ)
def from_unixtime_nanos(value: Any) -> Any:
    """from_unixtime_nanos(bigint or decimal): a decimal rounded half up to whole
    nanoseconds; the instant in UTC, timestamp(9) with time zone."""
    if value is None:
        return None
    if isinstance(value, decimal.Decimal):
        value = int(value.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
    return tstz(int(value), "UTC", 9)


@udf("human_readable_seconds", "string")
def human_readable_seconds(seconds: Optional[float]) -> Optional[str]:
    """Trino's human_readable_seconds: the absolute value rounded (Math.round) to whole
    seconds, in weeks, days, hours, minutes and seconds, the ones that are not 0."""
    if seconds is None:
        return None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        text = "NaN" if seconds != seconds else ("Infinity" if seconds > 0 else "-Infinity")
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid argument found: {text}")
    rest = math.floor(abs(seconds) + 0.5)
    parts = []
    for name, size in (("week", 604800), ("day", 86400), ("hour", 3600), ("minute", 60)):
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count} {name}{'s' if count != 1 else ''}")
    if rest or not parts:
        parts.append(f"{rest} second{'s' if rest != 1 else ''}")
    return ", ".join(parts)


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$")
_DURATION_MILLIS = {
    "ns": 1e-6,
    "us": 1e-3,
    "ms": 1.0,
    "s": 1000.0,
    "m": 60000.0,
    "h": 3600000.0,
    "d": 86400000.0,
}


@udf("parse_duration", "interval day to second")
def parse_duration(text: Optional[str]) -> Optional[datetime.timedelta]:
    """Trino's parse_duration (airlift's Duration): a number and a unit (ns, us, ms, s,
    m, h, d), rounded to milliseconds."""
    if text is None:
        return None
    match = _DURATION.match(text)
    if not match:
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: duration is not a valid data duration string: {text}"
        )
    unit = match.group(2)
    if unit not in _DURATION_MILLIS:
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Unknown time unit: {unit}")
    millis = int((float(match.group(1)) * _DURATION_MILLIS[unit] + 0.5) // 1)
    return datetime.timedelta(milliseconds=millis)


def _now_precision(value: exp.Expression) -> Optional[int]:
    """The precision of ``now()`` / ``current_timestamp(p)`` (None: ``value`` is not one)."""
    while isinstance(value, exp.Paren):
        value = value.this
    if not isinstance(value, exp.CurrentTimestamp):
        return None
    return int(value.this.this) if isinstance(value.this, exp.Literal) else 3


def _now_as_timestamp(node: exp.Expression, value: exp.Expression, digits: int) -> exp.Expression:
    """``now()`` as a timestamp(digits): its wall time in the session's zone (UTC), whose
    instant is the same; Spark's current_timestamp() is that instant."""
    now = _now_precision(value) or 3
    if digits not in (3, 6) or now not in (3, 6):
        raise Refused(f"{node.sql('athena')} (precision 3 or 6 only)")
    out = _local_timestamp(node, min(digits, now))
    return _typed(out, f"timestamp({digits})", exp.DataType.build(f"timestamp({digits})"))


def _zoned_now(node: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``now()`` for AT TIME ZONE: the same instant as a timestamp in the session's zone."""
    now = _now_precision(value)
    return value if now is None else _now_as_timestamp(node, value, now)


@rewrites(exp.AtTimeZone, "AT TIME ZONE")
def at_time_zone(node: exp.Expression) -> exp.Expression:
    return _at_zone(node, _zoned_now(node, node.this), node.args["zone"])


@rewrites("at_timezone", "at_timezone")
def at_timezone(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(node.sql("athena"))
    value, zone = node.expressions
    return _at_zone(node, _zoned_now(node, value), zone)


@rewrites("with_timezone", "with_timezone")
def with_timezone_(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(node.sql("athena"))
    value, zone = node.expressions
    zone_value = zone_argument(node, zone)
    kind = type_of(value)
    if not (is_timestamp(kind) and kind is not None and kind.expressions):
        raise Refused(f"{node.sql('athena')}", "the emulator cannot tell its argument's type")
    precision = _precision(kind)
    if precision > 6:
        raise Refused(f"{node.sql('athena')} (a timestamp of more than 6 digits)")
    out = udf_call(
        "with_timezone",
        _micros(value),
        zone_value,
        exp.Literal.number(precision),
    )
    return _tstz_out(node, out, precision)


def _one_tstz(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 1 or not is_tstz(type_of(node.expressions[0])):
        raise Refused(
            f"{node.sql('athena')}", "the emulator runs it on a timestamp with time zone only"
        )
    return node.expressions[0]


@rewrites("timezone_hour", "timezone_hour")
def timezone_hour_(node: exp.Expression) -> exp.Expression:
    time = (
        times.field_form(node, "TIMEZONE_HOUR", node.expressions[0]) if node.expressions else None
    )
    if time is not None:
        return time
    out = udf_call("timezone_hour", _one_tstz(node))
    return typed(out, "bigint")


@rewrites("timezone_minute", "timezone_minute")
def timezone_minute_(node: exp.Expression) -> exp.Expression:
    time = (
        times.field_form(node, "TIMEZONE_MINUTE", node.expressions[0]) if node.expressions else None
    )
    if time is not None:
        return time
    out = udf_call("timezone_minute", _one_tstz(node))
    return typed(out, "bigint")


@rewrites("timezone", "timezone")
def timezone(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) == 1:
        kind = type_of(node.expressions[0])
        if kind is not None and kind.this == T.TIMETZ:
            text = node.expressions[0].meta.get("athena_time_text", "")
            match = re.search(r"([+-]\d{2}:\d{2})$", text)
            if match and match.group(1)[1:] != "00:00":
                text_out = exp.Literal.string(match.group(1))
                return typed(text_out, "varchar")
    out = udf_call("tstz_zone", _one_tstz(node))
    return typed(out, "varchar")


@rewrites("from_unixtime_nanos", "from_unixtime_nanos")
def from_unixtime_nanos_(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 1:
        raise Refused(node.sql("athena"))
    [value] = node.expressions
    kind = type_of(value)
    if kind is None or kind.this not in (T.TINYINT, T.SMALLINT, T.INT, T.BIGINT, T.DECIMAL):
        raise Refused(f"{node.sql('athena')} (of a value other than an integer or a decimal)")
    return _tstz_out(node, udf_call("from_unixtime_nanos", value), 9)


@rewrites("human_readable_seconds", "human_readable_seconds")
def human_readable_seconds_(node: exp.Expression) -> exp.Expression:
    out = udf_call("human_readable_seconds", spark("CAST(_0 AS DOUBLE)", *node.expressions))
    return typed(out, "varchar")


@rewrites("parse_duration", "parse_duration")
def parse_duration_(node: exp.Expression) -> exp.Expression:
    out = udf_call("parse_duration", *node.expressions)
    return _typed(out, "interval day to second", exp.DataType.build("interval"))


def tstz_date_add_form(node: exp.Expression, unit: str) -> exp.Expression:
    """date_add(unit, n, a timestamp with time zone) (date_add's zoned case)."""
    kind = type_of(node.this)
    precision = _precision(kind)
    out = udf_call(
        "tstz_date_add",
        exp.Literal.string(unit),
        spark("CAST(_0 AS BIGINT)", node.expression),
        node.this,
        exp.Literal.number(precision),
    )
    return _tstz_out(node, out, precision)


def tstz_date_diff_form(node: exp.Expression, unit: str) -> exp.Expression:
    """date_diff(unit, a, b) of timestamps with time zone (date_diff's zoned case)."""
    if not (is_tstz(type_of(node.this)) and is_tstz(type_of(node.expression))):
        raise Refused(f"{node.sql('athena')} (of a zoned and an unzoned timestamp)")
    out = udf_call("tstz_date_diff", exp.Literal.string(unit), node.expression, node.this)
    return typed(out, "bigint")


# ---- the session's clock and zone ----------------------------------------------------------------
def _local_timestamp(node: exp.Expression, precision: int) -> exp.Expression:
    forms = {3: "timestamp_millis(unix_millis(current_timestamp()))", 6: "current_timestamp()"}
    if precision not in forms:
        raise Refused(f"{node.sql('athena')} (precision 3 or 6 only)")
    out = spark(forms[precision])
    return _typed(out, f"timestamp({precision})", exp.DataType.build(f"timestamp({precision})"))


@rewrites(exp.Localtimestamp, "localtimestamp")
def localtimestamp(node: exp.Expression) -> exp.Expression:
    """The session's wall time (UTC on Athena), timestamp(3)."""
    precision = node.this
    return _local_timestamp(node, int(precision.this) if isinstance(precision, exp.Literal) else 3)


@rewrites("localtimestamp", "localtimestamp(p)")
def localtimestamp_p(node: exp.Expression) -> exp.Expression:
    [precision] = node.expressions
    if not (isinstance(precision, exp.Literal) and not precision.is_string):
        raise Refused(node.sql("athena"))
    return _local_timestamp(node, int(precision.this))


@rewrites(exp.CurrentTimezone, "current_timezone")
def current_timezone(node: exp.Expression) -> exp.Expression:
    """Athena's session time zone is UTC."""
    return _typed(spark("CAST('UTC' AS STRING)"), "varchar", exp.DataType.build("varchar"))


# ---- from_unixtime, date(), millisecond, year_of_week ----------------------------------------
@udf("from_unixtime", TSTZ)
def from_unixtime(value: Optional[float], zone: str) -> Any:
    """Trino's from_unixtime(double[, zone]): Math.round(value * 1000) milliseconds, a
    timestamp(3) with time zone in ``zone`` (the session's, UTC, by default)."""
    if value is None:
        return None
    if math.isnan(value):
        return tstz(0, zone, 3)  # Java's Math.round(NaN) is 0
    if math.isinf(value) or abs(value) > 9e12:
        raise Unsupported(f"from_unixtime({value}) (outside the years 1 to 9999)")
    return tstz(math.floor(value * 1000 + 0.5) * 10**6, zone, 3)


def _integer_literal(node: Any) -> Optional[int]:
    negative = isinstance(node, exp.Neg)
    node = node.this if negative else node
    if not (isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit()):
        return None
    return -int(node.this) if negative else int(node.this)


@rewrites(exp.UnixToTime, "from_unixtime")
def from_unixtime_(node: exp.Expression) -> exp.Expression:
    kind = type_of(node.this)
    if kind is None or not (is_double(kind) or is_integral(kind) or is_decimal(kind)):
        raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    zone = "UTC"
    if node.args.get("zone") is not None:
        zone = _zone_literal(node, node.args["zone"])
    elif node.args.get("hours") is not None:
        hours, minutes = node.args["hours"], node.args.get("minutes")
        numbers = [_integer_literal(h) for h in (hours, minutes)]
        if None in numbers:
            raise Refused(f"{node.sql('athena')} (an offset that is not two integer literals)")
        total = int(numbers[0] or 0) * 60 + int(numbers[1] or 0)
        offset = _offset_id("-" if total < 0 else "+", abs(total) // 60, abs(total) % 60)
        if offset is None:
            raise Refused(f"{node.sql('athena')} (an offset outside -14:00 to +14:00)")
        zone = offset
    value = spark("CAST(_0 AS DOUBLE)", node.this)
    return _tstz_out(node, udf_call("from_unixtime", value, exp.Literal.string(zone)), 3)


@rewrites(exp.Date, "date")
def date_(node: exp.Expression) -> exp.Expression:
    """date(x) is CAST(x AS date)."""
    if node.expressions:
        raise Refused(node.sql("athena"))
    cast = exp.Cast(this=node.this, to=exp.DataType.build("date"), safe=False)
    return conversion_cast(cast)


def _timestamp_argument(node: exp.Expression, *kinds: Any) -> exp.Expression:
    [value] = node.expressions if node.expressions else [node.this]
    kind = type_of(value)
    if not any(check(kind) for check in kinds):
        raise Refused(f"{node.sql('athena')}", "the emulator cannot tell its argument's type")
    return value


@rewrites("millisecond", "millisecond")
def millisecond(node: exp.Expression) -> exp.Expression:
    """millisecond(timestamp(p)): the milliseconds of the second, the rest dropped."""
    time = times.field_form(node, "MILLISECOND", node.expressions[0]) if node.expressions else None
    if time is not None:
        return time
    value = _timestamp_argument(node, is_timestamp)
    out = spark(
        "CAST(pmod(floor(unix_micros(CAST(_0 AS TIMESTAMP)) / 1000), 1000) AS BIGINT)", value
    )
    return typed(out, "bigint")


def _year_of_week(node: exp.Expression) -> exp.Expression:
    """The ISO week's year: the year of the Thursday of the value's week."""
    value = _timestamp_argument(node, is_timestamp, is_date)
    out = spark("CAST(year(date_add(CAST(_0 AS DATE), 3 - weekday(_0))) AS BIGINT)", value)
    return typed(out, "bigint")


rewrites(exp.YearOfWeek, "year_of_week")(_year_of_week)
rewrites("yow", "yow")(_year_of_week)
