"""Timestamps with time zone compared, shifted by intervals, truncated and cast (a part of
Trino's ``functions/datetime.md`` page with datetime.py, whose entries call it, and
datetime_zoned.py, which holds the value: a struct of its text and offset; examples in
``tests/conformance/examples/datetime.yml``).

* **Comparisons** (``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, BETWEEN, IN, IS [NOT]
  DISTINCT FROM) of timestamps with time zone are of their instants, not their zones
  (TimestampWithTimeZoneType's equal and comparison operators read the UTC epoch millis
  and picos): ``TIMESTAMP '2012-10-31 08:00 UTC' = TIMESTAMP '2012-10-31 01:00
  America/Los_Angeles'`` is true. Spark would compare the structs as text: each operand is
  replaced by its instant in epoch nanoseconds (:func:`tstz_key`, a decimal(38,0)) before
  comparison.py writes the comparison (:func:`instant_operands`). Compared with a timestamp
  or a date, each is its instant as a Spark timestamp (UTC, the session's zone) instead
  (datetime_zoned._instant, Trino's TypeCoercion).
* **+ and -** of an interval (TimestampWithTimeZoneOperators): one of day to second adds
  its milliseconds to the instant, the zone kept, the result ``timestamp(max(3, p))``; one
  of year to month adds months to the wall time in the value's zone (Joda's zoned
  monthOfYear().add: the day clamped to the month's last, the offset kept where it is
  still valid), ``timestamp(p)``.
* **date_trunc** (timestamptz.DateTrunc): Joda's zoned roundFloor. Units below a day
  truncate the wall time at the value's offset (ZonedDateTimeField's time arithmetic);
  day and longer the wall time in the zone, its offset kept where it is still valid.
* **Casts** (TimestampWithTimeZoneToTimestampWithTimeZoneCast: the instant rounded half
  up to the target's digits; TimestampToTimestampWithTimeZoneCast: the wall time in the
  session's zone, UTC on Athena; TimestampWithTimeZoneToVarcharCast: p digits;
  TimestampWithTimeZoneToTimeCast and ...ToTimeWithTimeZoneCast: the time of day, rounded).

* **Columns** of such values, from a CTE's or a derived table's SELECT or VALUES: each
  use of the column is checked as a value's is (:func:`zoned_columns`). GROUP BY, ORDER
  BY, DISTINCT, set operations and JOIN ... USING of them stay refused: Spark would group,
  order and match their text, not their instants.

The struct holds nanoseconds: precision 10 to 12 stays refused.
"""

from __future__ import annotations

import datetime
import decimal
from typing import Any, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion_types import athena_type_name
from athena_spark_emulator.sql.functions.datetime_time import TIME_FIELD, TIMETZ_FIELD
from athena_spark_emulator.sql.functions.datetime_zoned import (
    FORMS,
    TSTZ,
    USES,
    _from_local,
    _instant,
    _local,
    _micros,
    _offset_text,
    _precision,
    _tstz_out,
    _typed,
    check_use,
    instant,
    is_tstz,
    round_nanos,
    tstz,
    tstz_type,
)
from athena_spark_emulator.sql.functions.table import Refused
from athena_spark_emulator.sql.spark_forms import is_date, is_timestamp, spark, type_of, typed
from athena_spark_emulator.sql.udfs import udf, udf_call

T = exp.DataType.Type
#: The comparisons whose operands are instants (Trino's comparison operators of the type)
ORDERED = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Between,
    exp.In,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
)


# ---- UDFs ----------------------------------------------------------------------------------------
@udf("tstz_key", "decimal(38,0)")
def tstz_key(value: Any) -> Optional[decimal.Decimal]:
    """The instant of a timestamp with time zone, in nanoseconds since the epoch (UTC)."""
    return None if value is None else decimal.Decimal(instant(value)[0])


@udf("tstz_round", TSTZ)
def tstz_round(value: Any, precision: int) -> Any:
    """CAST(timestamp with time zone AS timestamp(p) with time zone): the instant rounded
    half up to p digits, in its zone."""
    if value is None:
        return None
    nanos, zone = instant(value)
    return tstz(nanos, zone, int(precision))


#: Trino's units of date_trunc below a day, in nanoseconds
_TIME_UNITS = {"millisecond": 10**6, "second": 10**9, "minute": 60 * 10**9, "hour": 3600 * 10**9}


def _floor_wall(wall: datetime.datetime, unit: str) -> datetime.datetime:
    day = wall.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "week":
        return day - datetime.timedelta(days=day.weekday())
    if unit == "month":
        return day.replace(day=1)
    if unit == "quarter":
        return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    if unit == "year":
        return day.replace(month=1, day=1)
    return day


@udf("tstz_trunc", TSTZ)
def tstz_trunc(unit: str, value: Any, precision: int) -> Any:
    """date_trunc(unit, timestamp with time zone), in the value's zone (Joda's zoned
    roundFloor: below a day at the value's own offset; a day and more the wall time,
    its offset kept where still valid)."""
    if value is None:
        return None
    nanos, zone = instant(value)
    offset = int(value[1]) * 10**9
    if unit in _TIME_UNITS:
        size = _TIME_UNITS[unit]
        return tstz((nanos + offset) // size * size - offset, zone, int(precision))
    wall, _ = _local(nanos, zone)
    return tstz(_from_local(_floor_wall(wall, unit), 0, zone, int(value[1])), zone, int(precision))


@udf("tstz_varchar", "string")
def tstz_varchar(value: Any, precision: int) -> Optional[str]:
    """CAST(timestamp(p) with time zone AS varchar): the wall time with p fractional digits
    (none for p = 0), a space, the zone (TimestampWithTimeZoneToVarcharCast)."""
    if value is None:
        return None
    wall, _, zone = str(value[0]).rpartition(" ")
    whole, _, fraction = wall.partition(".")
    digits = int(precision)
    return f"{whole}.{fraction[:digits]} {zone}" if digits else f"{whole} {zone}"


@udf("tstz_wall", "timestamp")
def tstz_wall(value: Any) -> Optional[datetime.datetime]:
    """The wall time of a timestamp with time zone in its zone, the digits past the
    microsecond dropped (what Trino's field functions read: the epoch millis, floored)."""
    if value is None:
        return None
    nanos, zone = instant(value)
    wall, fraction = _local(nanos, zone)
    return wall + datetime.timedelta(microseconds=fraction // 1000)


# ---- comparisons ---------------------------------------------------------------------------------
def _operands(node: exp.Expression) -> List[exp.Expression]:
    if isinstance(node, exp.Between):
        return [node.this, node.args["low"], node.args["high"]]
    if isinstance(node, exp.In):
        return [node.this, *node.expressions]
    return [node.this, node.expression]


def _zoned_or_null(kind: Optional[exp.DataType]) -> bool:
    return is_tstz(kind) or (kind is not None and kind.this == T.NULL)


def _unzoned(kind: Optional[exp.DataType]) -> bool:
    return is_timestamp(kind) or is_date(kind) or (kind is not None and kind.this == T.NULL)


def _of_instants(child: exp.Expression, parent: exp.Expression) -> bool:
    """Whether ``parent`` is a comparison ``child`` (a timestamp with time zone) may be an
    operand of: its rewrite (comparison.py) calls :func:`instant_operands`, which compares
    instants or refuses the comparison (another operand may not be translated yet)."""
    if not isinstance(parent, ORDERED):
        return False
    return not (
        isinstance(parent, exp.In) and (parent.args.get("query") or parent.args.get("unnest"))
    )


def instant_operands(node: exp.Expression) -> None:
    """In a comparison ``node`` (comparison.py's rewrites call it first), each operand that
    is a timestamp with time zone replaced by its instant: epoch nanoseconds where every
    operand is one (or NULL), the Spark timestamp of the instant where the others are
    timestamps or dates (timestamp(p <= 6)). Another operand is refused."""
    operands = _operands(node)
    kinds = [type_of(o) for o in operands]
    if not any(is_tstz(k) for k in kinds):
        return
    if isinstance(node, exp.In) and (node.args.get("query") or node.args.get("unnest")):
        raise Refused(f"{node.sql('athena')} (a timestamp with time zone IN a subquery)")
    if all(_zoned_or_null(k) for k in kinds):
        for operand, kind in zip(operands, kinds):
            if is_tstz(kind):
                key = typed(udf_call("tstz_key", operand.copy()), "decimal(38,0)")
                operand.replace(key)
        return
    if not all(is_tstz(k) or _unzoned(k) for k in kinds):
        raise Refused(
            "a timestamp with time zone compared with a value of another type",
            "Trino compares it with timestamps with time zone, timestamps and dates: cast "
            "the other operand to one",
        )
    for operand, kind in zip(operands, kinds):
        if is_tstz(kind):
            operand.replace(_instant(node, operand.copy(), _precision(kind)))


# ---- + and - of an interval ------------------------------------------------------------------
def _interval_kind(node: exp.Expression) -> Optional[str]:
    """Trino's type of an interval operand (sqlglot's annotation does not tell the two)."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    unit = node.args.get("unit") if isinstance(node, exp.Interval) else None
    name = unit.name.upper() if unit is not None else ""
    if name in ("YEAR", "MONTH"):
        return "interval year to month"
    if name in ("DAY", "HOUR", "MINUTE", "SECOND"):
        return "interval day to second"
    kind = type_of(node)
    return athena_type_name(kind) if kind is not None else None


def interval_arithmetic(
    node: exp.Expression, out: exp.Expression, precision: int
) -> Optional[Tuple[exp.Expression, exp.Expression, int]]:
    """``node`` (a timestamp with time zone, ``out`` its Spark form) plus or minus an
    interval: (the ``+`` / ``-``, its value, its precision), for datetime_zoned._tstz_out
    to put in place of the operator (whose rewrite then finds it gone); None where
    ``node`` is not such an operand."""
    child, parent = node, node.parent
    while isinstance(parent, exp.Paren):
        child, parent = parent, parent.parent
    if not isinstance(parent, (exp.Add, exp.Sub)):
        return None
    other = parent.expression if parent.this is child else parent.this
    if isinstance(parent, exp.Sub) and parent.this is not child:
        return None  # interval - timestamp: Trino has no such operator
    family = _interval_kind(other)
    if family == "interval day to second":
        unit, digits = "millisecond", max(3, precision)
        amount = spark("unix_millis(TIMESTAMP '1970-01-01 00:00:00' + _0)", other)
    elif family == "interval year to month":
        unit, digits = "month", precision
        # the months of the interval: from 1970-01-01 (a first day: add_months is exact)
        epoch = "(DATE '1970-01-01' + _0)"
        amount = spark(f"(year({epoch}) - 1970) * 12 + month({epoch}) - 1", other)
    else:
        return None
    if isinstance(parent, exp.Sub):
        amount = spark("-(_0)", amount)
    result = udf_call(
        "tstz_date_add",
        exp.Literal.string(unit),
        spark("CAST(_0 AS BIGINT)", amount),
        out,
        exp.Literal.number(digits),
    )
    shown = _typed(result, f"timestamp({digits}) with time zone", tstz_type(digits))
    return parent, shown, digits


# ---- date_trunc and casts ---------------------------------------------------------------------------
def trunc_form(node: exp.Expression, unit: str, value: exp.Expression) -> exp.Expression:
    """date_trunc(unit, a timestamp with time zone) (date_trunc's zoned case)."""
    precision = _precision(type_of(value))
    out = udf_call("tstz_trunc", exp.Literal.string(unit), value, exp.Literal.number(precision))
    shown = _typed(out, f"timestamp({precision}) with time zone", tstz_type(precision))
    return _tstz_out(node, shown, precision)


def cast_to_zoned(node: exp.Expression) -> Optional[exp.Expression]:
    """CAST(x AS timestamp(p) with time zone) of a timestamp with time zone (rounded) or
    a timestamp (its wall time in UTC, the session's zone); None: another cast."""
    value, target = node.this, node.args["to"]
    if target.this != T.TIMESTAMPTZ:
        return None
    source = type_of(value)
    precision = _precision(target)
    if precision > 9:
        raise Refused(f"the type {target.sql('athena')} (more than 9 digits)")
    if precision in (1, 2):  # shown with 3 digits, as timestamp(p)'s are (conversion.py)
        raise Refused(f"{node.sql('athena')} (precision 0 or 3 to 9 only)")
    digits = exp.Literal.number(precision)
    if isinstance(value, exp.Null):
        out = spark(f"CAST(NULL AS {TSTZ})")
    elif is_tstz(source):
        out = udf_call("tstz_round", value, digits)
    elif is_timestamp(source) and source is not None and source.expressions:
        if _precision(source) > 6:
            raise Refused(f"{node.sql('athena')} (a timestamp of more than 6 digits)")
        out = udf_call("ts_at_zone", _micros(value), exp.Literal.string("UTC"), digits)
    else:
        return None
    shown = _typed(out, f"timestamp({precision}) with time zone", tstz_type(precision))
    return _tstz_out(node, shown, precision)


def cast_from_zoned(node: exp.Expression, safe: bool) -> exp.Expression:
    """CAST of a timestamp with time zone (conversion.py's cast, through datetime._time_cast: case)."""
    value, target = node.this, node.args["to"]
    precision = _precision(type_of(value))
    if target.this == T.TIMESTAMP:
        digits = _precision(target)
        if digits not in (3, 6):  # conversion._timestamp_target's rule: results print 3 or 6
            what = f"CAST({tstz_type(precision).sql('athena')} AS {target.sql('athena')})"
            raise Refused(f"{what} (timestamp(3) and timestamp(6) only)")
        out = udf_call("tstz_to_timestamp", value, exp.Literal.number(digits))
        return _typed(out, f"timestamp({digits})", exp.DataType.build(f"timestamp({digits})"))
    if target.this == T.DATE:
        out = udf_call("tstz_to_date", value)
        return typed(out, "date")
    raise Refused(f"{node.sql('athena')} (a cast of a timestamp with time zone)")


_DAY = 86400 * 10**9


def _local_nanos(value: Any, precision: int) -> Tuple[int, str]:
    """The wall time of a timestamp with time zone as epoch nanoseconds (as if UTC),
    rounded half up to ``precision`` digits, and its zone."""
    nanos, zone = instant(value)
    return round_nanos(nanos + int(value[1]) * 10**9, precision), zone


def _time_of_day(local: int, precision: int) -> Tuple[str, int]:
    """(the text of a time(p), as Trino's SqlTime prints it: p fractional digits; its
    picoseconds of the day) of a wall time in epoch nanoseconds."""
    nanos = local % _DAY
    seconds, fraction = divmod(nanos, 10**9)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    if precision:
        text += "." + f"{fraction:09d}{'0' * 3}"[:precision]
    return text, nanos * 1000


@udf("tstz_to_time", f"struct<{TIME_FIELD}:string,athena_picos:bigint>")
def tstz_to_time(value: Any, precision: int) -> Any:
    """CAST(timestamp with time zone AS time(p)): its time of day in its zone, rounded half
    up to p digits, past midnight wrapped (TimestampWithTimeZoneToTimeCast); the struct of
    a time (its text and picoseconds of the day)."""
    if value is None:
        return None
    local, _ = _local_nanos(value, int(precision))
    return _time_of_day(local, int(precision))


@udf("tstz_to_timetz", f"struct<{TIMETZ_FIELD}:string,athena_picos:bigint,athena_offset:int>")
def tstz_to_timetz(value: Any, precision: int) -> Any:
    """CAST(timestamp with time zone AS time(p) with time zone): the rounded time of day
    and the zone's offset at the wall time read as an instant, as
    TimestampWithTimeZoneToTimeWithTimeZoneCast computes it; the struct of a time with
    time zone (text, picoseconds of the day, offset in minutes)."""
    if value is None:
        return None
    local, zone = _local_nanos(value, int(precision))
    offset = tstz(local, zone, 0)[1]
    text, picos = _time_of_day(local, int(precision))
    return text + _offset_text(offset, zulu=False), picos, offset // 60


def time_form(node: exp.Expression) -> exp.Expression:
    """CAST(timestamp with time zone AS time(p) [with time zone]), p up to 9."""
    target = node.args["to"]
    precision = _precision(target)
    if precision > 9:
        raise Refused(f"{node.sql('athena')} (precision 9 at most)")
    zoned = target.this == T.TIMETZ
    name = f"time({precision}){' with time zone' if zoned else ''}"
    udf_name = "tstz_to_timetz" if zoned else "tstz_to_time"
    out = udf_call(udf_name, node.this, exp.Literal.number(precision))
    kind = exp.DataType(
        this=target.this, expressions=[exp.DataTypeParam(this=exp.Literal.number(precision))]
    )
    check_use(node, "time", time=True)
    return _typed(out, name, kind)


def varchar_form(node: exp.Expression) -> exp.Expression:
    """CAST(timestamp(p) with time zone AS varchar), p digits."""
    precision = _precision(type_of(node.this))
    out = udf_call("tstz_varchar", node.this, exp.Literal.number(precision))
    return _typed(out, "varchar", exp.DataType.build("varchar"))


def _compared_use(child: exp.Expression, parent: exp.Expression) -> bool:
    return _of_instants(child, parent)


def _cast_use(child: exp.Expression, parent: exp.Expression) -> bool:
    """CAST to a timestamp with time zone, and date_trunc: run here."""
    if isinstance(parent, exp.Cast):
        return parent.args["to"].this in (T.TIMESTAMPTZ, T.TIME, T.TIMETZ)
    return isinstance(parent, (exp.TimestampTrunc, exp.DateTrunc))


def _extract_use(child: exp.Expression, parent: exp.Expression) -> bool:
    """EXTRACT(TIMEZONE_HOUR / TIMEZONE_MINUTE FROM x): its offset (extract's zoned case)."""
    return isinstance(parent, exp.Extract) and parent.this.name.upper() in (
        "TIMEZONE_HOUR",
        "TIMEZONE_MINUTE",
    )


# ---- columns of zoned values (a CTE's or a derived table's) ---------------------------------------
def _feeds_a_table(select: exp.Expression) -> bool:
    """Whether ``select`` is a CTE's query or a derived table of a FROM or JOIN, and neither
    groups, orders nor deduplicates (which Spark would do by the text)."""
    if any(select.args.get(k) for k in ("order", "distinct", "group")):
        return False
    holder = select.parent
    if isinstance(holder, exp.CTE):
        return True
    return isinstance(holder, exp.Subquery) and isinstance(holder.parent, (exp.From, exp.Join))


def _inner_use(child: Any, parent: Any) -> bool:
    """A literal in the VALUES of a derived table, or a result column of a CTE's or a
    derived table's SELECT: run, the uses of its column checked (:func:`zoned_columns`)."""
    if isinstance(parent, exp.Tuple) and isinstance(parent.parent, exp.Values):
        literal = isinstance(child, exp.Cast) and isinstance(child.this, exp.Literal)
        table = isinstance(parent.parent.parent, (exp.From, exp.Join, exp.Subquery))
        if not (literal and table):  # Spark's VALUES holds constants only
            return False
    else:
        if isinstance(parent, exp.Alias):
            child, parent = parent, parent.parent
        if not isinstance(parent, exp.Select) or not any(child is e for e in parent.expressions):
            return False
        if not _feeds_a_table(parent):
            return False
    zoned_columns(parent.root())
    return True


_CHECKED = "athena_tstz_columns"


def _consumed(column: exp.Expression) -> bool:
    """Whether ``column`` is already an argument of one of the emulator's UDFs."""
    parent = column.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    return isinstance(parent, exp.Anonymous) and str(parent.name).lower().startswith("athena_")


def zoned_columns(root: exp.Expression) -> None:
    """Each use of a column that holds timestamps with time zone in the statement ``root``
    (once) run as such a value's (datetime_zoned._tstz_out: compared as instants, shifted,
    read, shown) or refused. A statement with a set operation, a JOIN ... USING, a
    grouped or deduplicated ``*``, or a column whose type the emulator cannot tell is
    refused: Spark would compare those values as text."""
    if root.meta.get(_CHECKED):
        return
    root.meta[_CHECKED] = True
    what = "a statement whose CTEs or derived tables hold timestamps with time zone"
    if root.find(exp.Union, exp.Intersect, exp.Except) is not None:
        raise Refused(f"{what}, with UNION, INTERSECT or EXCEPT")
    if any(j.args.get("using") for j in root.find_all(exp.Join)):
        raise Refused(f"{what}, with JOIN ... USING", "write the join's ON condition")
    for select in root.find_all(exp.Select):
        grouped = any(select.args.get(k) for k in ("distinct", "group"))
        if grouped and any(isinstance(p, exp.Star) for p in select.expressions):
            raise Refused(f"{what}, with a grouped or DISTINCT *", "name the columns")
    for column in list(root.find_all(exp.Column)):
        kind = type_of(column)
        if kind is None or kind.this == T.UNKNOWN:
            raise Refused(f"{what}, and the column {column.sql('athena')} of a type not known")
        if not is_tstz(kind) or _consumed(column):
            continue
        precision = _precision(kind)
        value = _typed(column.copy(), f"timestamp({precision}) with time zone", kind)
        shown = _tstz_out(column, value, precision)
        if shown is not column:
            column.replace(shown)


USES.extend([_compared_use, _cast_use, _extract_use, _inner_use])
FORMS.append(interval_arithmetic)
