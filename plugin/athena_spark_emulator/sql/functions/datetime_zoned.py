"""Athena's time zones and timestamps with time zone (Trino's ``functions/datetime.md``,
whose entries are datetime.py's; times are datetime_time.py's): how their values
are held in Spark, the UDFs that compute with them (udfs.py), their literals and casts (a
case of conversion.py's cast, through datetime.py). Registered when the
athena_spark_emulator.sql package is imported (its __init__).

**A timestamp with time zone** is a Spark struct ``athena_tstz`` (Trino's printed text:
the wall time with max(3, p) fractional digits, a space, the zone id, e.g.
``2020-06-10 15:55:23.383 America/Los_Angeles``) and ``athena_offset`` (the zone's offset
from UTC at that instant, in seconds). Spark's own timestamp has no zone (and no more than
microseconds); the text keeps Trino's zone id and up to nanoseconds exactly as Athena
prints them, the offset makes the instant exact again where the wall time alone is
ambiguous (the hour repeated when daylight saving time ends). results.py prints the struct
as its text and types its column ``timestamp with time zone``; typeof answers from the
translation's types (``timestamp(3) with time zone``). The operations are Python UDFs of
that struct (zoneinfo's zones, Trino's zone ids and offsets normalised as TimeZoneKey does).

Spark would compare, order or cast that struct as a struct, not as an instant, so a value
of these types is only run where its use is one of the entries here: an argument of
AT TIME ZONE, at_timezone, timezone_hour/minute, timezone, to_iso8601, to_unixtime,
format_datetime, date_add, date_diff or typeof; a CAST to timestamp(p), date or varchar;
an operand of a comparison with a date or a timestamp (as the instant's Spark timestamp);
year, month, day, hour, minute, week, day_of_week, day_of_year, quarter, extract and
date_format, which get its wall time in its zone as a Spark timestamp (what Trino reads);
or a column of the statement's outermost SELECT (no ORDER BY, DISTINCT or GROUP BY there).
Anything else (another comparison, a join key, a CTAS column, ...) is refused.

A time zone argument must be a literal the emulator knows (a zone of Python's zoneinfo
under Trino's name, or an offset); another is refused. timestamp(9)/(12) values are only
made by the functions here that Trino types so (from_iso8601_timestamp_nanos,
from_unixtime_nanos); a TIMESTAMP(9) literal or cast stays refused.
"""

from __future__ import annotations

import datetime
import re
from functools import cache, lru_cache
from typing import Any, Callable, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused
from athena_spark_emulator.sql.spark_forms import is_timestamp, spark, type_of, typed
from athena_spark_emulator.sql.udfs import ERROR_END, ERROR_MARK, udf, udf_call

T = exp.DataType.Type


TSTZ = "struct<athena_tstz:string,athena_offset:int>"
_EPOCH = datetime.datetime(1970, 1, 1)
_UTC_EQUIVALENTS = {
    "GMT", "GMT0", "GMT+0", "GMT-0", "Etc/GMT", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0",
    "UT", "UT+0", "UT-0", "Etc/UT", "Etc/UT+0", "Etc/UT-0", "UTC", "UTC+0", "UTC-0",
    "Etc/UTC", "Etc/UTC+0", "Etc/UTC-0", "+0000", "+00:00", "-0000", "-00:00", "Z",
    "Zulu", "UCT", "Greenwich", "Universal", "Etc/Universal", "Etc/UCT",
}  # fmt: skip
_OFFSET_PREFIXES = ("Etc/GMT", "Etc/UTC", "Etc/UT", "GMT", "UTC", "UT")
_OFFSET = re.compile(r"^([+-])(\d{1,2})(?::?(\d{2}))?$")


class NotRun(Exception):
    """A value the emulator cannot answer exactly: the statement fails NOT_SUPPORTED (a
    plain exception, so ``try(...)`` does not turn it into NULL)."""

    def __init__(self, text: str) -> None:
        super().__init__(f"{ERROR_MARK}NOT_SUPPORTED: {text}{ERROR_END}")


# ---- zones -----------------------------------------------------------------------------------
@cache
def _zones() -> frozenset:
    import zoneinfo

    return frozenset(zoneinfo.available_timezones())


def _offset_id(sign: str, hours: int, minutes: int) -> Optional[str]:
    if hours > 14 or minutes > 59 or (hours == 14 and minutes):
        return None
    if hours == 0 and minutes == 0:
        return "UTC"
    return f"{sign}{hours:02d}:{minutes:02d}"


@lru_cache(maxsize=4096)
def zone_id(text: str) -> Optional[str]:
    """Trino's id of the zone ``text`` names (TimeZoneKey's normalisation: UTC's many names
    are ``UTC``, ``GMT-08:30`` is ``-08:30``), or None where the emulator does not know it."""
    if text in _UTC_EQUIVALENTS:
        return "UTC"
    for prefix in _OFFSET_PREFIXES:
        if text.startswith(prefix) and len(text) > len(prefix) and text[len(prefix)] in "+-":
            match = re.match(r"^([+-])(\d{1,2})(?::(\d{1,2}))?$", text[len(prefix) :])
            if not match:
                return None
            sign = match.group(1)
            if prefix == "Etc/GMT":
                sign = "-" if sign == "+" else "+"
            return _offset_id(sign, int(match.group(2)), int(match.group(3) or 0))
    match = _OFFSET.match(text)
    if match:
        return _offset_id(match.group(1), int(match.group(2)), int(match.group(3) or 0))
    if text in _zones() and not text.startswith(("Etc/", "GMT", "UTC", "UCT")):
        return text
    return None


@lru_cache(maxsize=1024)
def _tzinfo(zone: str) -> datetime.tzinfo:
    if zone == "UTC":
        return datetime.timezone.utc
    match = _OFFSET.match(zone)
    if match:
        sign = -1 if match.group(1) == "-" else 1
        delta = datetime.timedelta(hours=int(match.group(2)), minutes=int(match.group(3) or 0))
        return datetime.timezone(sign * delta)
    import zoneinfo

    return zoneinfo.ZoneInfo(zone)


def _known_zone(text: Any) -> str:
    """The zone of a zone argument read at run time (a literal one is checked when the
    statement is translated): one the emulator does not know is refused."""
    zone = zone_id(text) if isinstance(text, str) and text else None
    if zone is None:
        raise NotRun(f"the time zone '{text}' (the emulator knows Trino's zone ids and offsets)")
    return zone


# ---- timestamp with time zone: (text, offset) <-> (epoch nanoseconds, zone) --------------------
def _digits(precision: int) -> int:
    return max(3, precision)


def round_nanos(nanos: int, precision: int) -> int:
    """``nanos`` rounded half up to ``precision`` fractional digits of a second."""
    unit = 10 ** (9 - precision)
    return (nanos + unit // 2) // unit * unit


def _wall_text(wall: datetime.datetime, fraction_nanos: int, digits: int) -> str:
    text = (
        f"{wall.year:04d}-{wall.month:02d}-{wall.day:02d} "
        f"{wall.hour:02d}:{wall.minute:02d}:{wall.second:02d}"
    )
    return f"{text}.{fraction_nanos:09d}"[: len(text) + 1 + digits] if digits else text


def tstz(nanos: int, zone: str, precision: int) -> Tuple[str, int]:
    """The struct of the instant ``nanos`` (since the epoch, UTC) in ``zone``, kept to
    ``precision`` digits."""
    nanos = round_nanos(nanos, precision)
    seconds, fraction = divmod(nanos, 10**9)
    instant = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
        seconds=seconds
    )
    local = instant.astimezone(_tzinfo(zone))
    offset = local.utcoffset()
    assert offset is not None
    text = _wall_text(local.replace(tzinfo=None), fraction, _digits(precision))
    return f"{text} {zone}", int(offset.total_seconds())


def _parse_wall(text: str) -> Tuple[datetime.datetime, int]:
    """(the wall time to the second, its fraction in nanoseconds) of ``YYYY-MM-DD HH:MM:SS[.f]``."""
    whole, _, fraction = text.partition(".")
    wall = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    return wall, int((fraction + "000000000")[:9]) if fraction else 0


def instant(value: Any) -> Tuple[int, str]:
    """(epoch nanoseconds, zone id) of a timestamp with time zone struct."""
    text, offset = value[0], value[1]
    wall_text, _, zone = text.rpartition(" ")
    wall, fraction = _parse_wall(wall_text)
    seconds = int((wall - _EPOCH).total_seconds()) - int(offset)
    return seconds * 10**9 + fraction, zone


def _local(nanos: int, zone: str) -> Tuple[datetime.datetime, int]:
    """(the wall time to the second in ``zone``, the fraction in nanoseconds)."""
    seconds, fraction = divmod(nanos, 10**9)
    utc = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    local = (utc + datetime.timedelta(seconds=seconds)).astimezone(_tzinfo(zone))
    return local.replace(tzinfo=None), fraction


def _from_local(wall: datetime.datetime, fraction: int, zone: str, prefer: int = 0) -> int:
    """Epoch nanoseconds of the wall time ``wall`` in ``zone``: in a gap the wall time moves
    on by the gap (java.time's rule), in an overlap the offset ``prefer`` (seconds) if it is
    one of the two, else the earlier one."""
    tz = _tzinfo(zone)
    candidates = []
    for fold in (0, 1):
        offset = wall.replace(tzinfo=tz, fold=fold).utcoffset()
        assert offset is not None
        candidates.append(int(offset.total_seconds()))
    seconds = int((wall - _EPOCH).total_seconds())
    chosen = candidates[0]
    if prefer in candidates:
        chosen = prefer
    return (seconds - chosen) * 10**9 + fraction


def _wall_nanos(micros: int) -> Tuple[datetime.datetime, int]:
    seconds, fraction = divmod(int(micros), 10**6)
    return _EPOCH + datetime.timedelta(seconds=seconds), fraction * 1000


# ---- UDFs ----------------------------------------------------------------------------------------
@udf("tstz_at_zone", TSTZ)
def tstz_at_zone(value: Any, zone: Optional[str], precision: int) -> Optional[Tuple[str, int]]:
    """AT TIME ZONE / at_timezone of a timestamp with time zone: the same instant in ``zone``."""
    if value is None or zone is None:
        return None
    nanos, _ = instant(value)
    return tstz(nanos, _known_zone(zone), precision)


@udf("ts_at_zone", TSTZ)
def ts_at_zone(micros: Optional[int], zone: Optional[str], precision: int) -> Any:
    """AT TIME ZONE of a timestamp (a wall time in the session's zone, UTC on Athena)."""
    if micros is None or zone is None:
        return None
    return tstz(int(micros) * 1000, _known_zone(zone), precision)


@udf("with_timezone", TSTZ)
def with_timezone(micros: Optional[int], zone: Optional[str], precision: int) -> Any:
    """with_timezone(timestamp, zone): the timestamp's wall time, in ``zone``."""
    if micros is None or zone is None:
        return None
    known = _known_zone(zone)
    wall, fraction = _wall_nanos(micros)
    return tstz(_from_local(wall, fraction, known), known, precision)


@udf("timezone_hour", "bigint")
def timezone_hour(value: Any) -> Optional[int]:
    if value is None:
        return None
    minutes = int(value[1]) // 60 if int(value[1]) >= 0 else -(-int(value[1]) // 60)
    return int(minutes / 60)


@udf("timezone_minute", "bigint")
def timezone_minute(value: Any) -> Optional[int]:
    if value is None:
        return None
    minutes = int(value[1]) // 60 if int(value[1]) >= 0 else -(-int(value[1]) // 60)
    return minutes - int(minutes / 60) * 60


@udf("tstz_zone", "string")
def tstz_zone(value: Any) -> Optional[str]:
    """timezone(timestamp with time zone): the zone id as Trino prints it."""
    if value is None:
        return None
    return str(value[0]).rpartition(" ")[2]


def _offset_text(offset: int, zulu: bool) -> str:
    if offset == 0 and zulu:
        return "Z"
    sign = "-" if offset < 0 else "+"
    minutes = abs(offset) // 60
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


@udf("tstz_iso8601", "string")
def tstz_iso8601(value: Any, precision: int) -> Optional[str]:
    """to_iso8601 of a timestamp with time zone: ``2023-01-01T00:00:00.000Z``."""
    if value is None:
        return None
    wall_text = str(value[0]).rpartition(" ")[0]
    wall, fraction = _parse_wall(wall_text)
    text = _wall_text(wall, fraction, precision).replace(" ", "T")
    return text + _offset_text(int(value[1]), zulu=True)


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


_SECOND_UNITS = {"millisecond": 10**6, "second": 10**9, "minute": 60 * 10**9, "hour": 3600 * 10**9}
_MONTH_UNITS = {"month": 1, "quarter": 3, "year": 12}


def _add_months(wall: datetime.datetime, months: int) -> datetime.datetime:
    total = wall.year * 12 + wall.month - 1 + months
    year, month = divmod(total, 12)
    month += 1
    days = [31, 29 if _leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= year <= 9999:
        raise NotRun("a timestamp with time zone outside the years 1 to 9999")
    return wall.replace(year=year, month=month, day=min(wall.day, days))


@udf("tstz_date_add", TSTZ)
def tstz_date_add(unit: str, amount: Optional[int], value: Any, precision: int) -> Any:
    """date_add of a timestamp with time zone: units below a day move the instant, a day
    and more the wall time in the value's zone (Joda's zoned fields)."""
    if amount is None or value is None:
        return None
    nanos, zone = instant(value)
    if unit in _SECOND_UNITS:
        return tstz(nanos + int(amount) * _SECOND_UNITS[unit], zone, precision)
    wall, fraction = _local(nanos, zone)
    if unit in ("day", "week"):
        wall = wall + datetime.timedelta(days=int(amount) * (7 if unit == "week" else 1))
    else:
        wall = _add_months(wall, int(amount) * _MONTH_UNITS[unit])
    return tstz(_from_local(wall, fraction, zone, int(value[1])), zone, precision)


def _month_difference(minuend: datetime.datetime, subtrahend: datetime.datetime) -> int:
    """Joda's month-of-year difference of two wall times (whole months from subtrahend)."""
    if minuend < subtrahend:
        return -_month_difference(subtrahend, minuend)
    months = (minuend.year - subtrahend.year) * 12 + minuend.month - subtrahend.month
    last = _add_months(minuend.replace(day=1), 1) - datetime.timedelta(days=1)
    if minuend.day == last.day and subtrahend.day > minuend.day:
        subtrahend = subtrahend.replace(day=minuend.day)
    minuend_rest = minuend - minuend.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    subtrahend_rest = subtrahend - subtrahend.replace(
        day=1, hour=0, minute=0, second=0, microsecond=0
    )
    return months - 1 if minuend_rest < subtrahend_rest else months


@udf("tstz_date_diff", "bigint")
def tstz_date_diff(unit: str, first: Any, second: Any) -> Optional[int]:
    """date_diff of two timestamps with time zone: whole units from ``first`` to
    ``second``, a day and more counted on wall times in ``first``'s zone, both to the
    millisecond (Trino's timestamptz.DateDiff reads their epoch milliseconds)."""
    if first is None or second is None:
        return None
    start, zone = instant(first)
    end, _ = instant(second)
    start, end = start // 10**6 * 10**6, end // 10**6 * 10**6  # Trino counts epoch millis
    if unit in _SECOND_UNITS:
        return int((end - start) / _SECOND_UNITS[unit])
    (a, fa), (b, fb) = _local(start, zone), _local(end, zone)
    wall_a = a + datetime.timedelta(microseconds=fa // 1000)
    wall_b = b + datetime.timedelta(microseconds=fb // 1000)
    if unit in ("day", "week"):
        span = (b - a).days * 86400 * 10**9 + (b - a).seconds * 10**9 + fb - fa
        return int(span / ((7 if unit == "week" else 1) * 86400 * 10**9))
    months = _month_difference(wall_b, wall_a)
    return int(months / _MONTH_UNITS[unit])


# ---- where these values may be used ------------------------------------------------------------
_CONSUMERS = {
    "at_timezone",
    "format_datetime",
    "timezone_hour",
    "timezone_minute",
    "timezone",
    "to_iso8601",
}


def _typed(out: exp.Expression, name: str, kind: exp.DataType) -> exp.Expression:
    out.type = kind
    out.meta["athena_typeof"] = name
    return out


def tstz_type(precision: int) -> exp.DataType:
    return exp.DataType(
        this=T.TIMESTAMPTZ, expressions=[exp.DataTypeParam(this=exp.Literal.number(precision))]
    )


def _precision(kind: Optional[exp.DataType], default: int = 3) -> int:
    if kind is not None and kind.expressions:
        return int(kind.expressions[0].this.this)
    return default


def is_tstz(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this in (T.TIMESTAMPTZ, T.TIMESTAMPLTZ)


def check_use(node: exp.Expression, what: str, time: bool = False) -> None:
    """Refuse a zoned or time-of-day value used anywhere but where the emulator runs it."""
    child, parent = node, node.parent
    while isinstance(parent, (exp.Paren, exp.Try)):  # try(...) of it is the same value or NULL
        child, parent = parent, parent.parent
    consumers = (exp.AtTimeZone, exp.Typeof, exp.DateAdd, exp.DateDiff, exp.TimeToUnix)
    if not time and isinstance(parent, consumers):
        return
    if isinstance(parent, exp.Typeof) or (not time and _cast_from_zoned_runs(parent)):
        return
    if not time and parent is not None and any(use(child, parent) for use in USES):
        return
    name = str(parent.name).lower() if isinstance(parent, exp.Anonymous) else ""
    if name in _CONSUMERS and (not time or name == "timezone"):
        return
    if isinstance(parent, exp.Alias):
        child, parent = parent, parent.parent
    if (
        isinstance(parent, exp.Select)
        and parent.parent is None
        and any(child is e for e in parent.expressions)
        and not any(parent.args.get(k) for k in ("order", "distinct", "group"))
    ):
        return
    where = parent.sql("athena") if parent is not None else ""
    where = where if len(where) <= 80 else where[:80] + " ..."
    if time:
        raise Refused(
            f"a {what} used in {where} (only shown, or passed to the time zone functions)"
        )
    raise Refused(
        f"a {what} used in {where}",
        "the emulator compares, shifts, truncates, casts and shows it and passes it to the "
        "date and time zone functions, no more (Spark would group, order or join its text, "
        "not its instant): use CAST(at_timezone(x, 'UTC') AS timestamp) there",
    )


#: Functions of a timestamp with time zone that read its wall time in its zone (Trino's
#: year(), hour(), extract(), date_format(), ... of one): they get that wall time, a Spark
#: timestamp.
_WALL_READERS = (
    exp.Year,
    exp.Month,
    exp.Day,
    exp.Quarter,
    exp.DayOfYear,
    exp.DayOfWeekIso,
    exp.DayOfMonth,
    exp.WeekOfYear,
    exp.Hour,
    exp.Minute,
    exp.YearOfWeek,
    exp.Second,
)


def _reads_wall_time(node: exp.Expression) -> bool:
    child, parent = node, node.parent
    while isinstance(parent, (exp.Paren, exp.Try)):
        child, parent = parent, parent.parent
    if isinstance(parent, _WALL_READERS):
        return parent.this is child
    if isinstance(parent, exp.Extract):  # its offset: extract's zoned case
        zoned = parent.this.name.upper() in ("TIMEZONE_HOUR", "TIMEZONE_MINUTE")
        return parent.expression is child and not zoned
    if isinstance(parent, exp.TimeToStr):
        return parent.this is child
    names = ("second", "millisecond", "yow")
    return isinstance(parent, exp.Anonymous) and str(parent.name).lower() in names


#: Trino compares a timestamp (or a date) with a timestamp with time zone by casting it to
#: one in the session's zone, UTC on Athena (TypeCoercion), then compares the instants.
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)


def _compared(node: exp.Expression) -> bool:
    """Whether ``node`` is an operand of a comparison with a date or a timestamp, whose
    other operands are dates, timestamps or timestamps with time zone (another comparison
    of one, of two zoned values among them, is refused)."""
    child, parent = node, node.parent
    while isinstance(parent, exp.Paren):
        child, parent = parent, parent.parent
    if not isinstance(parent, _COMPARISONS):
        return False
    kinds = [type_of(v) for k, v in parent.args.items() if v is not None and v is not child]
    unzoned = [is_timestamp(k) or (k is not None and k.this == T.DATE) for k in kinds]
    return any(unzoned) and all(u or is_tstz(k) for u, k in zip(unzoned, kinds))


def _instant(node: exp.Expression, out: exp.Expression, precision: int) -> exp.Expression:
    """A timestamp with time zone as the Spark timestamp of its instant (UTC, the session's
    zone), which Spark compares with timestamps and dates as Trino compares instants."""
    if precision > 6:
        where = node.parent.sql("athena") if node.parent is not None else ""
        raise Refused(f"{where} (a comparison of a timestamp of more than 6 digits)")
    digits = exp.Literal.number(precision)
    utc = udf_call("tstz_at_zone", out, exp.Literal.string("UTC"), digits)
    return typed(udf_call("tstz_to_timestamp", utc, digits), f"timestamp({precision})")


#: Forms datetime_tstz.py gives a use of a value: each answers None, or (the expression
#: ``node`` is part of, its Spark form, its precision), that expression's value (``+`` of an
#: interval); and checks (child, parent) of the other uses it runs (comparisons, casts).
FORMS: List[Callable[..., Any]] = []
USES: List[Callable[[Any, Any], bool]] = []


def _tstz_out(node: exp.Expression, out: exp.Expression, precision: int) -> exp.Expression:
    for form in FORMS:
        found = form(node, out, precision)
        if found is not None:  # the enclosing expression replaced by its value
            whole, value, digits = found
            shown = _tstz_out(whole, value, digits)
            if shown is not whole:
                whole.replace(shown)
            return node
    if _compared(node):
        return _instant(node, out, precision)
    if _reads_wall_time(node):
        digits = min(precision, 6)  # past 6: the microseconds, the rest dropped (tstz_wall)
        wall = (
            udf_call("tstz_wall", out)
            if precision > 6
            else udf_call("tstz_to_timestamp", out, exp.Literal.number(precision))
        )
        return _typed(wall, f"timestamp({digits})", exp.DataType.build(f"timestamp({digits})"))
    check_use(node, "timestamp with time zone")
    return _typed(out, f"timestamp({precision}) with time zone", tstz_type(precision))


def _zone_literal(node: exp.Expression, zone: exp.Expression) -> str:
    if not (isinstance(zone, exp.Literal) and zone.is_string):
        raise Refused(f"{node.sql('athena')} (a time zone that is not a literal)")
    found = zone_id(zone.this)
    if found is None:
        raise Refused(f"{node.sql('athena')} (the time zone '{zone.this}')")
    return found


def zone_argument(node: exp.Expression, zone: exp.Expression) -> exp.Expression:
    """A time zone argument: a literal one checked now, a varchar column or expression
    passed on (the UDF refuses a zone it does not know when it reads it)."""
    if isinstance(zone, exp.Literal) and zone.is_string:
        return exp.Literal.string(_zone_literal(node, zone))
    kind = type_of(zone)
    if kind is None or kind.this not in (T.VARCHAR, T.TEXT, T.CHAR):
        raise Refused(f"{node.sql('athena')} (a time zone that is not a varchar)")
    return zone


def _micros(value: exp.Expression) -> exp.Expression:
    return spark("unix_micros(CAST(_0 AS TIMESTAMP))", value)


def _at_zone(node: exp.Expression, value: exp.Expression, zone: exp.Expression) -> exp.Expression:
    literal = zone_argument(node, zone)
    kind = type_of(value)
    if is_tstz(kind):
        precision = _precision(kind)
        out = udf_call("tstz_at_zone", value, literal, exp.Literal.number(precision))
    elif is_timestamp(kind) and kind is not None and kind.expressions:
        precision = _precision(kind)
        if precision > 6:
            raise Refused(f"{node.sql('athena')} (a timestamp of more than 6 digits)")
        out = udf_call("ts_at_zone", _micros(value), literal, exp.Literal.number(precision))
    else:
        raise Refused(f"{node.sql('athena')}", "the emulator cannot tell its argument's type")
    return _tstz_out(node, out, precision)


# ---- literals and casts --------------------------------------------------------------------------
_TS_LITERAL = re.compile(
    r"^\s*(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,12}))?)?)?"
    r"\s*(?P<zone>[A-Za-z][A-Za-z0-9_/+\-:]*|[+-]\d{1,2}(?::?\d{2})?)?\s*$"
)


def tstz_literal(text: str, precision: int) -> Tuple[str, int]:
    """The struct of a timestamp with time zone literal (a wall time and a zone; none:
    the session's, UTC); ValueError where Trino's literal is invalid."""
    match = _TS_LITERAL.match(text)
    if not match:
        raise ValueError(text)
    year, month, day = (int(match.group(i)) for i in (1, 2, 3))
    hour, minute, second = (int(match.group(i) or 0) for i in (4, 5, 6))
    digits = match.group(7) or ""
    if len(digits) > 9:
        raise ValueError(text)
    wall = datetime.datetime(year, month, day, hour, minute, second)
    zone = zone_id(match.group("zone")) if match.group("zone") else "UTC"
    if zone is None:
        raise ValueError(text)
    fraction = int((digits + "000000000")[:9])
    return tstz(_from_local(wall, fraction, zone), zone, precision)


def typed_cast(node: exp.Expression, safe: bool) -> exp.Expression:
    """CAST to timestamp with time zone or timestamp(p > 6) (conversion.py's cast, through
    datetime._time_cast): a literal string only (``TIMESTAMP '... UTC'``)."""
    value, target = node.this, node.args["to"]
    if not (isinstance(value, exp.Literal) and value.is_string):
        raise Refused(f"{node.sql('athena')} (a cast of a value that is not a literal)")
    precision = _precision(target, 3 if target.this == T.TIMESTAMPTZ else 0)
    if target.this == T.TIMESTAMP:
        return _nanos_timestamp(node, value.this, precision)
    if target.this == T.TIMESTAMPTZ:
        if precision > 9:
            raise Refused(f"the type {target.sql('athena')} (12 digits)")
        try:
            text, offset = tstz_literal(value.this, precision)
        except (ValueError, OverflowError):
            raise Refused(
                f"{node.sql('athena')} (a timestamp literal the emulator cannot read)"
            ) from None
        if _compared(node) and precision <= 6:  # its instant as a literal (UTC)
            nanos = instant((text, offset))[0]
            moment = _wall_text(*_local(nanos, "UTC"), 6)
            return typed(spark(f"TIMESTAMP '{moment}'"), f"timestamp({precision})")
        out = spark(
            f"named_struct('athena_tstz', _0, 'athena_offset', {offset})", exp.Literal.string(text)
        )
        return _tstz_out(node, out, precision)
    raise Refused(f"{node.sql('athena')} (a cast the emulator does not run)")


def _nanos_timestamp(node: exp.Expression, text: str, precision: int) -> exp.Expression:
    """A TIMESTAMP(7..9) literal, more digits than Spark keeps: run only as an argument of
    date_diff (with another such literal), as the same wall time in UTC with a zone."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    if precision > 9 or not isinstance(parent, exp.DateDiff) or "UTC" in text.upper():
        raise Refused(
            f"the type TIMESTAMP({precision}) (precision 6 at most: Spark keeps microseconds)"
        )
    try:
        value, offset = tstz_literal(text, precision)
    except (ValueError, OverflowError):
        raise Refused(
            f"{node.sql('athena')} (a timestamp literal the emulator cannot read)"
        ) from None
    if not re.match(r"^\s*[\d-]+( [\d:.]+)?\s*$", text):  # no zone in a timestamp literal
        raise Refused(f"{node.sql('athena')} (a timestamp literal the emulator cannot read)")
    out = spark(
        f"named_struct('athena_tstz', _0, 'athena_offset', {offset})", exp.Literal.string(value)
    )
    return _typed(out, f"timestamp({precision})", tstz_type(precision))


# ---- casts of a timestamp with time zone --------------------------------------------------------
def _cast_from_zoned_runs(parent: Any) -> bool:
    """CAST(a timestamp with time zone AS timestamp / date / varchar): run (cast_from_zoned)."""
    if not isinstance(parent, exp.Cast):
        return False
    target = parent.args["to"]
    if target.this == T.VARCHAR:
        return not target.expressions
    return target.this == T.DATE or (target.this == T.TIMESTAMP and _precision(target) <= 6)


@udf("tstz_to_timestamp", "timestamp")
def tstz_to_timestamp(value: Any, precision: int) -> Optional[datetime.datetime]:
    """CAST(timestamp with time zone AS timestamp(p)): its wall time in its zone, rounded
    half up to p digits."""
    if value is None:
        return None
    wall, fraction = _parse_wall(str(value[0]).rpartition(" ")[0])
    nanos = round_nanos(fraction, int(precision))
    return wall + datetime.timedelta(microseconds=nanos // 1000)


@udf("tstz_to_date", "date")
def tstz_to_date(value: Any) -> Optional[datetime.date]:
    """CAST(timestamp with time zone AS date): the date of its wall time in its zone."""
    if value is None:
        return None
    return _parse_wall(str(value[0]).rpartition(" ")[0])[0].date()


@udf("tstz_unixtime", "double")
def tstz_unixtime(value: Any) -> Optional[float]:
    """to_unixtime of a timestamp with time zone of precision 3 at most: epoch milliseconds
    / 1000 (a double), as Trino computes it."""
    if value is None:
        return None
    return (instant(value)[0] // 10**6) / 1000.0
