"""Athena's TIME(p) and TIME(p) WITH TIME ZONE values (a part of Trino's
``functions/datetime.md``; datetime.py names the page's modules): how they are held in
Spark, their literals, casts, comparisons and functions, as Trino 410 computes them.

**A time(p)** is a Spark struct ``athena_time`` (its text as Trino prints it, p fractional
digits: SqlTime) and ``athena_picos`` (the picoseconds of the day, a BIGINT: 86400 * 10^12
fits); **a time(p) with time zone** a struct ``athena_timetz`` (the text with its offset,
``01:02:03.456-08:00``), ``athena_picos`` (the local time of day) and ``athena_offset``
(the offset in minutes): Trino's LongTimeWithTimeZone. results.py prints the first field;
the others are what the operations compute with, precision 0 to 12 (Trino's maximum).

Rounding is Trino's (DateTimes.round: half up, then modulo a day, so 23:59:59.9 as time(0)
is 00:00:00). Comparisons compare the picoseconds, of a time with time zone those of the
UTC-normalized instant (TimeWithTimeZoneOperators.normalize; a time compared with one is
one at the session's zone, UTC on Athena). Spark would compare the structs by their text,
so a time value is only run where its use is one listed in :func:`_use` (a comparison
operand, which becomes the picoseconds; an argument of the functions here; a column of a
select or of a single-precision VALUES, whose columns' uses are checked the same way);
anything else (CASE, UNION, GROUP BY, an array, a table column, ...) is refused. Hive and
Iceberg tables hold no time column (Trino's HiveTypeTranslator refuses the type: Athena's
CTAS fails "Unsupported Hive type: time").
"""

from __future__ import annotations

import re
from typing import Any, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion import FORMATS
from athena_spark_emulator.sql.functions.datetime_zoned import _OFFSET, _typed, zone_id
from athena_spark_emulator.sql.functions.table import Fails, Refused
from athena_spark_emulator.sql.spark_forms import is_timestamp, spark, type_of, typed

T = exp.DataType.Type
TIME_FIELD, TIMETZ_FIELD = "athena_time", "athena_timetz"
DAY = 86_400 * 10**12
#: picoseconds of each unit of a time (TimeFunctions' units)
UNIT_PICOS = {"millisecond": 10**9, "second": 10**12, "minute": 60 * 10**12, "hour": 3600 * 10**12}
_UNITS_PER_DAY = {"millisecond": 86_400_000, "second": 86_400, "minute": 1440, "hour": 24}

_TIME_LITERAL = re.compile(
    r"^\s*(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,12}))?)?"
    r"\s*(?P<zone>[+-]\d{1,2}(?::?\d{2})?|[A-Za-z][A-Za-z0-9_/+\-:]*)?\s*$"
)

# Trino's DateTimes.TIME_PATTERN (the whole text; Java's \\d: ASCII digits)
_TRINO_TIME = re.compile(
    r"([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]+))?)?\s*(?:[+-][0-9]{2}:[0-9]{2})?"
)


def valid_time_text(text: str) -> bool:
    """Whether Trino reads ``text`` as a TIME literal (DateTimes.parseTime: the hour up to
    23, the minute and second up to 59, 12 fractional digits at most)."""
    found = _TRINO_TIME.fullmatch(text)
    if found is None:
        return False
    hour, minute, second = (int(found.group(i) or 0) for i in (1, 2, 3))
    return hour <= 23 and minute <= 59 and second <= 59 and len(found.group(4) or "") <= 12


# ---- the values ----------------------------------------------------------------------------------
def time_type(kind: Optional[exp.DataType]) -> Optional[Tuple[bool, int]]:
    """(zoned, precision) of a time type (a bare TIME is time(3), as Trino's), else None."""
    if kind is None or kind.this not in (T.TIME, T.TIMETZ):
        return None
    precision = int(kind.expressions[0].this.this) if kind.expressions else 3
    return kind.this == T.TIMETZ, precision


def _kind(zoned: bool, precision: int) -> exp.DataType:
    return exp.DataType(
        this=T.TIMETZ if zoned else T.TIME,
        expressions=[exp.DataTypeParam(this=exp.Literal.number(precision))],
    )


def _name(zoned: bool, precision: int) -> str:
    return f"time({precision}) with time zone" if zoned else f"time({precision})"


def time_text(picos: int, precision: int) -> str:
    """Trino's text of a time of day (SqlTime.toString: exactly ``precision`` digits)."""
    seconds, fraction = divmod(picos % DAY, 10**12)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction:012d}"[: len(text) + 1 + precision] if precision else text


def offset_text(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def round_picos(picos: int, precision: int) -> int:
    """DateTimes.round to ``precision`` digits, half up, modulo a day."""
    unit = 10 ** (12 - precision)
    return (picos + unit // 2) // unit * unit % DAY


def _constant(picos: int, precision: int, offset: Optional[int]) -> exp.Expression:
    """The struct of one time value (a literal's), its text computed here."""
    text = time_text(picos, precision)
    if offset is None:
        out = spark(
            f"named_struct('{TIME_FIELD}', _0, 'athena_picos', {picos}L)", exp.Literal.string(text)
        )
    else:
        text += offset_text(offset)
        out = spark(
            f"named_struct('{TIMETZ_FIELD}', _0, 'athena_picos', {picos}L, 'athena_offset', {offset})",
            exp.Literal.string(text),
        )
    out.meta["athena_time_text"] = text  # datetime.timezone reads a literal's offset
    return _typed(out, _name(offset is not None, precision), _kind(offset is not None, precision))


def _two(value: str) -> str:
    return f"lpad(CAST({value} AS STRING), 2, '0')"


def _text_sql(precision: int) -> str:
    """Spark SQL of the text of ``athena_v`` picoseconds (castToVarchar's digits)."""
    hour, minute, second = (f"athena_v div {UNIT_PICOS[u]}L" for u in ("hour", "minute", "second"))
    text = f"concat({_two(hour)}, ':', {_two(f'({minute}) % 60')}, ':', {_two(f'({second}) % 60')}"
    if precision:
        text += (
            f", '.', substr(lpad(CAST(athena_v % {10**12}L AS STRING), 12, '0'), 1, {precision})"
        )
    return text + ")"


def _offset_sql(offset: str) -> str:
    return (
        f"concat(CASE WHEN {offset} < 0 THEN '-' ELSE '+' END, {_two(f'abs({offset}) div 60')}, "
        f"':', {_two(f'abs({offset}) % 60')})"
    )


def make_time(
    picos: exp.Expression, precision: int, offset: Optional[exp.Expression] = None
) -> exp.Expression:
    """The struct of the picoseconds ``picos`` (a BIGINT in [0, a day), rounded to
    ``precision`` already), with the offset ``offset`` (minutes) a time with time zone;
    NULL where ``picos`` (or ``offset``) is NULL."""
    text = _text_sql(precision)
    if offset is None:
        fields = f"'{TIME_FIELD}', {text}, 'athena_picos', athena_v"
        out = spark(
            f"element_at(transform(array(CAST(_0 AS BIGINT)), athena_v -> "
            f"if(athena_v IS NULL, NULL, named_struct({fields}))), 1)",
            picos,
        )
    else:
        fields = (
            f"'{TIMETZ_FIELD}', concat({text}, {_offset_sql('_1')}), "
            "'athena_picos', athena_v, 'athena_offset', _1"
        )
        out = spark(
            f"element_at(transform(array(CAST(_0 AS BIGINT)), athena_v -> "
            f"if(athena_v IS NULL OR _1 IS NULL, NULL, named_struct({fields}))), 1)",
            picos,
            spark("CAST(_0 AS INT)", offset),
        )
    zoned = offset is not None
    return _typed(out, _name(zoned, precision), _kind(zoned, precision))


def _field(value: exp.Expression, name: str) -> exp.Expression:
    return exp.Dot(this=exp.paren(value.copy()), expression=exp.to_identifier(name))


def picos_of(value: exp.Expression) -> exp.Expression:
    """The picoseconds of the day of a time value (local, of one with a time zone)."""
    return typed(_field(value, "athena_picos"), "bigint")


def offset_of(value: exp.Expression) -> exp.Expression:
    return typed(_field(value, "athena_offset"), "integer")


def _key(value: exp.Expression, zoned: bool) -> exp.Expression:
    """What Trino compares: the picoseconds, of a time with time zone those of its
    UTC-normalized instant (floorMod(picos - offset minutes, a day))."""
    if zoned:
        out = spark(
            f"pmod(_0 - _1 * {UNIT_PICOS['minute']}L, {DAY}L)", picos_of(value), offset_of(value)
        )
    else:
        out = picos_of(value)
    return typed(out, "bigint")


def _rounded(picos: exp.Expression, precision: int) -> exp.Expression:
    """DateTimes.round of Spark picoseconds to ``precision`` digits, modulo a day."""
    if precision >= 12:
        return picos
    unit = 10 ** (12 - precision)
    return spark(f"pmod((_0 + {unit // 2}L) div {unit}L * {unit}L, {DAY}L)", picos)


# ---- literals ------------------------------------------------------------------------------------
def parse_time(node: exp.Expression, text: str, zoned: bool) -> Tuple[int, int, Optional[int]]:
    """(picoseconds, digits, offset minutes or None) of a time literal's text
    (DateTimes.parseTime / parseTimeWithTimeZone); Fails where Trino's literal is invalid."""
    if not re.search("[A-Za-z]", text) and not valid_time_text(text):  # a zone's name: below
        raise Fails(f"INVALID_LITERAL: '{text}' is not a valid time literal")
    match = _TIME_LITERAL.match(text)
    if not match:  # no time of day at all (DateTimes.parseTime)
        raise Fails(f"INVALID_LITERAL: '{text}' is not a valid time literal")
    zone_text = match.group("zone")
    if zone_text and not zoned:
        raise Refused(f"{node.sql('athena')} (a time literal the emulator cannot read)")
    hour, minute, second = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
    digits = match.group(4) or ""
    if len(digits) > 12:
        raise Fails(f"INVALID_LITERAL: TIME precision must be in range [0, 12]: {len(digits)}")
    fraction = int((digits + "0" * 12)[:12])
    picos = ((hour * 60 + minute) * 60 + second) * 10**12 + fraction
    offset = None
    if zoned:
        suffix = _offset_suffix(node, text, zone_text)
        sign = -1 if suffix[0] == "-" else 1
        offset = sign * (int(suffix[1:3]) * 60 + int(suffix[4:6]))
    return picos, len(digits), offset


def time_cast(node: exp.Expression, safe: bool) -> exp.Expression:
    """CAST to time(p) or time(p) with time zone (conversion.py's cast, through
    datetime._time_cast): of a string literal (``TIME '01:00'``), a time, a timestamp."""
    value, target = node.this, node.args["to"]
    zoned = target.this == T.TIMETZ
    literal = isinstance(value, exp.Literal) and value.is_string
    declared = int(target.expressions[0].this.this) if target.expressions else None
    precision = 3 if declared is None else declared
    if precision > 12:
        raise Fails(f"INVALID_LITERAL: TIME precision must be in range [0, 12]: {precision}")
    stamp = _timestamp_literal(value)
    if stamp is not None:
        picos = _stamp_picos(stamp, zoned)
        out = _constant(round_picos(picos, precision), precision, 0 if zoned else None)
    elif literal:
        try:
            picos, _, offset = parse_time(node, value.this, zoned)
        except Fails:
            if "safe" not in node.args:  # the typed literal TIME '...'
                raise
            if safe:
                return used(make_time(exp.Null(), precision, exp.Null() if zoned else None), node)
            what = "time with time zone" if zoned else "time"
            raise Fails(
                f"INVALID_CAST_ARGUMENT: Value cannot be cast to {what}: {value.this}"
            ) from None
        offset = (offset or 0) if zoned else None
        out = _constant(round_picos(picos, precision), precision, offset)
    else:
        out = _cast_value(node, value, zoned, precision)
    return used(out, node)


def _cast_value(
    node: exp.Expression, value: exp.Expression, zoned: bool, precision: int
) -> exp.Expression:
    """CAST(a time, time with time zone or timestamp AS time(p) [with time zone]): Trino's
    TimeToTimeCast (TimeOperators.castToTime), TimeToTimeWithTimeZoneCast (the session's
    offset, UTC: +00:00), TimeWithTimeZoneToTimeCast (the local time),
    TimeWithTimeZoneToTimeWithTimeZoneCast, TimestampToTimeCast and
    TimestampToTimeWithTimeZoneCast: rounded half up to p digits, modulo a day."""
    source = type_of(value)
    found = time_type(source)
    if found is not None:
        from_zoned, from_precision = found
        picos = picos_of(value)
        if precision < from_precision:
            picos = _rounded(picos, precision)
        offset = offset_of(value) if from_zoned else exp.Literal.number(0)
        return make_time(picos, precision, offset if zoned else None)
    if is_timestamp(source) and source is not None:
        micros = spark("unix_micros(_0)", value)
        if zoned:  # floorMod of the epoch microseconds
            picos = spark(f"pmod(_0, {86_400 * 10**6}L) * 1000000L", micros)
        else:  # TimestampToTimeCast: the second of the day plus the Java remainder's micros
            seconds = "(_0 - pmod(_0, 1000000L)) div 1000000L"  # floorDiv
            picos = spark(
                f"pmod({seconds}, 86400L) * {10**12}L + (_0 % 1000000L) * 1000000L", micros
            )
        return make_time(
            _rounded(picos, precision), precision, exp.Literal.number(0) if zoned else None
        )
    raise Refused(
        f"{node.sql('athena')} (a cast to a time of a value other than a time or a timestamp)"
    )


def _offset_suffix(node: exp.Expression, text: str, zone_text: Optional[str]) -> str:
    """The ``+08:35`` of a TIME WITH TIME ZONE literal: an offset of -14:00 to +14:00
    (Trino's DateTimes.parseTimeWithTimeZone; Athena refuses a zone's name)."""
    offset = _OFFSET.match(zone_text or "")
    if not offset and zone_text and zone_id(zone_text) not in (None, "UTC"):
        # Athena engine 3: a political time zone with TIME is not supported
        raise Fails(f"INVALID_LITERAL: '{text}' is not a valid TIME literal")
    if not offset:
        raise Refused(f"{node.sql('athena')} (a time literal the emulator cannot read)")
    hours, minutes = int(offset.group(2)), int(offset.group(3) or 0)
    if minutes > 59 or hours * 60 + minutes > 14 * 60:
        raise Fails(f"INVALID_LITERAL: '{text}' is not a valid time literal")
    return f"{offset.group(1)}{hours:02d}:{minutes:02d}"


def _timestamp_literal(value: exp.Expression) -> Optional[str]:
    """The text of a TIMESTAMP(p) literal (left as it is by datetime._time_cast under a
    cast to a time, for any p up to 12), else None."""
    if isinstance(value, exp.Cast) and isinstance(value.this, exp.Literal):
        target = value.args["to"]
        if target.this == T.TIMESTAMP and value.this.is_string:
            return str(value.this.this)
    return None


_STAMP = re.compile(
    r"^\s*(-?\d{4,})-(\d{1,2})-(\d{1,2})(?: (\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,12}))?)?)?\s*$"
)


def _stamp_picos(text: str, zoned: bool) -> int:
    """The picoseconds of the day of a timestamp literal: TimestampToTimeWithTimeZoneCast
    takes floorMod of the epoch microseconds; TimestampToTimeCast adds the second of the
    day and Java's remainder of the epoch microseconds (negative before 1970)."""
    import datetime

    match = _STAMP.match(text)
    if not match:
        raise Refused(f"TIMESTAMP '{text}' (a timestamp literal the emulator cannot read)")
    year, month, day, hour, minute, second = (int(match.group(i) or 0) for i in range(1, 7))
    fraction = int(((match.group(7) or "") + "0" * 12)[:12])
    try:
        days = (datetime.date(year, month, day) - datetime.date(1970, 1, 1)).days
    except ValueError:
        raise Refused(
            f"TIMESTAMP '{text}' (a timestamp literal the emulator cannot read)"
        ) from None
    second_of_day = (hour * 60 + minute) * 60 + second
    if zoned or fraction == 0:
        return second_of_day * 10**12 + fraction
    micros = (days * 86_400 + second_of_day) * 10**6 + fraction // 10**6
    java_remainder = micros - int(micros / 10**6) * 10**6 if micros >= 0 else -((-micros) % 10**6)
    return second_of_day * 10**12 + java_remainder * 10**6 + fraction % 10**6


# ---- where a time may be used --------------------------------------------------------------------
_COMPARISONS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Between,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
)
#: the functions of a time that this module computes (their rewrites call :func:`function`)
_CONSUMERS = (
    exp.Cast,
    exp.TryCast,
    exp.TimestampTrunc,
    exp.DateAdd,
    exp.DateDiff,
    exp.Extract,
    exp.Hour,
    exp.Minute,
    exp.Second,
    exp.Typeof,
    exp.Format,
    exp.Is,
)
_CONSUMER_NAMES = ("millisecond", "second", "timezone_hour", "timezone_minute", "timezone")


def _outer(node: exp.Expression) -> Tuple[exp.Expression, Any]:
    child: exp.Expression = node
    parent: Any = node.parent
    while isinstance(parent, (exp.Paren, exp.Try)):  # try(...) of it is the same value or NULL
        child, parent = parent, parent.parent
    return child, parent


def _use(node: exp.Expression, zoned: bool) -> str:
    """How a time value ``node`` is used: "key" (an operand of a comparison: compared as
    its picoseconds), "add" (time +/- interval), "ok" (an argument of a function here, a
    column of a select); Refused for anything else."""
    child, parent = _outer(node)
    if isinstance(parent, _COMPARISONS):
        return "key"
    if isinstance(parent, (exp.Add, exp.Sub)):
        return "add"
    if isinstance(parent, _CONSUMERS) or (
        isinstance(parent, exp.Anonymous) and str(parent.name).lower() in _CONSUMER_NAMES
    ):
        return "ok"
    if isinstance(parent, exp.Alias):
        child, parent = parent, parent.parent
    selected = isinstance(parent, exp.Select) and any(child is e for e in parent.expressions)
    if selected and _selected(parent, zoned):
        return _typed_columns(parent) if parent.parent is not None else "ok"
    if isinstance(parent, exp.Tuple) and isinstance(parent.parent, exp.Values):
        index = next((i for i, e in enumerate(parent.expressions) if e is child), -1)
        if _one_type(parent.parent, index):
            return _typed_columns(parent)
    if isinstance(parent, exp.Ordered):
        return "key"
    where = parent.sql("athena") if parent is not None else ""
    where = where if len(where) <= 80 else where[:80] + " ..."
    raise Refused(
        f"a time used in {where}",
        "the emulator runs a time in comparisons, casts, time functions and select columns only",
    )


def _typed_columns(node: exp.Expression) -> str:
    """A time in a CTE, a derived table or a VALUES is read through columns: each of the
    statement's columns must have a known type, so that each use of one holding a time
    is checked (:func:`_check_columns`) and none gets the struct as another value."""
    root = node.root()
    untyped = [c.sql("athena") for c in root.find_all(exp.Column) if type_of(c) is None]
    if untyped:
        raise Refused(
            f"a time read through the column {untyped[0]}",
            "the emulator cannot tell that column's type, so cannot check its uses",
        )
    return "ok"


def _blind(key: exp.Expression) -> bool:
    """An ORDER BY key that may name a time with time zone without being typed one (a
    position, an untyped name), so ordering by its struct, not its instant."""
    return isinstance(key, exp.Literal) or (isinstance(key, exp.Column) and type_of(key) is None)


def _selected(select: exp.Expression, zoned: bool) -> bool:
    """Whether a time may be a column of ``select``: of the statement's query, a CTE's or a
    derived table's (their columns' uses are checked in turn), with no DISTINCT, GROUP BY
    or set operation (which would compare the structs); a time with time zone not where
    ORDER BY names a column by position or an untyped name (its struct's text does not
    order as its instant)."""
    if any(select.args.get(k) for k in ("distinct", "group")):
        return False
    order = select.args.get("order")
    if order and zoned and any(_blind(o.this) for o in order.expressions):
        return False
    container = select.parent
    return (
        container is None
        or isinstance(container, exp.CTE)
        or (
            isinstance(container, exp.Subquery)
            and isinstance(container.parent, (exp.From, exp.Join))
        )
    )


def _one_type(values: exp.Expression, index: int) -> bool:
    """Whether the VALUES column ``index`` has one time type in every row (Trino would
    coerce rows of other precisions to the widest, which the structs' text does not)."""
    if index < 0:
        return False
    kinds = set()
    for row in values.expressions:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        if index >= len(items):
            return False
        kinds.add(time_type(type_of(items[index])))
    return len(kinds) == 1


def used(out: exp.Expression, node: exp.Expression) -> exp.Expression:
    """``out`` (the time ``node`` computes) as its use needs it (:func:`_use`); the
    statement's columns of a time type are checked (and keyed) once, here."""
    _check_columns(node.root())  # type: ignore[arg-type]
    found = time_type(out.type)
    assert found is not None
    use = _use(node, found[0])
    if use == "key":
        _compared_with_times(node)
        return _key(out, found[0])
    if use == "add":
        _, parent = _outer(node)
        assert parent is not None
        parent.replace(used(_arithmetic(parent, node, out, found), parent))
    return out


def _values_alias(values: exp.Expression) -> Tuple[str, list]:
    """(the table name, the column names) a VALUES is read by: its own alias
    (``(VALUES ...) AS t(x)``) or its CTE's (``WITH t(x) AS (VALUES ...)``, which the
    emulator reads as ``SELECT * FROM (VALUES ...)``)."""
    alias = values.args.get("alias")
    if alias is not None and alias.columns:
        return alias.name, [c.name for c in alias.columns]
    select = values.parent.parent if isinstance(values.parent, exp.From) else None
    cte = select.parent if isinstance(select, exp.Select) else None
    if isinstance(cte, exp.CTE) and cte.this.is_star and cte.args.get("alias") is not None:
        return cte.alias, [c.name for c in cte.args["alias"].columns]
    return "", []


def _type_values_columns(root: exp.Expression) -> None:
    """Give the columns read from a VALUES of time values their time type (the
    translation's typing does not follow a VALUES): one type in every row only."""
    for values in list(root.find_all(exp.Values)):
        table, names = _values_alias(values)
        for index, name in enumerate(names):
            first = values.expressions[0] if values.expressions else None
            items = first.expressions if isinstance(first, exp.Tuple) else [first]
            kind = (
                type_of(items[index]) if index < len(items) and items[index] is not None else None
            )
            if time_type(kind) is None or not _one_type(values, index):
                continue
            for column in root.find_all(exp.Column):
                same_table = not column.table or column.table.lower() == table.lower()
                if column.name.lower() == name.lower() and same_table and type_of(column) is None:
                    column.type = kind.copy() if kind is not None else None


def _compared_with_times(node: exp.Expression) -> None:
    """Refuse a comparison of a time with a value the emulator cannot tell is a time
    (Trino compares a time only with a time: its other operand would stay a struct)."""
    child, parent = _outer(node)
    if isinstance(parent, exp.Ordered):
        return
    for other in parent.args.values():
        if other is None or other is child or not isinstance(other, exp.Expression):
            continue
        if time_type(type_of(other)) is None and type_of(other) != exp.DataType.build("bigint"):
            raise Refused(f"{parent.sql('athena')} (a time compared with a value that is not one)")


def _check_columns(root: exp.Expression) -> None:
    if root.meta.get("athena_time_columns"):
        return
    root.meta["athena_time_columns"] = True
    _type_values_columns(root)
    for column in list(root.find_all(exp.Column)):
        found = time_type(type_of(column))
        if found is None or column.parent is None:
            continue
        use = _use(column, found[0])
        if use == "key":
            column.replace(_key(column.copy(), found[0]))
        elif use == "add":
            _, parent = _outer(column)
            assert parent is not None
            parent.replace(used(_arithmetic(parent, column, column.copy(), found), parent))


# ---- operations ----------------------------------------------------------------------------------
_INTERVAL_MILLIS = {"DAY": 86_400_000, "HOUR": 3_600_000, "MINUTE": 60_000, "SECOND": 1000}


def _interval_millis(node: exp.Expression, interval: exp.Expression, name: str) -> int:
    """The milliseconds of an interval day to second literal (IntervalDayTime)."""
    while isinstance(interval, exp.Paren):
        interval = interval.this
    negative = False
    if isinstance(interval, exp.Neg):
        negative, interval = True, interval.this
    unit = interval.args.get("unit") if isinstance(interval, exp.Interval) else None
    unit_name = unit.name.upper() if isinstance(unit, exp.Expression) else ""
    op = "+" if isinstance(node, exp.Add) else "-"
    if unit_name in ("YEAR", "MONTH"):
        raise Fails(f"TYPE_MISMATCH: Cannot apply operator: {name} {op} interval year to month")
    amount = interval.this if isinstance(interval, exp.Interval) else None
    text = str(amount.this).strip() if isinstance(amount, exp.Literal) else ""
    if unit_name not in _INTERVAL_MILLIS or not re.fullmatch(r"[+-]?\d+(\.\d{1,3})?", text):
        raise Refused(f"{node.sql('athena')} (time arithmetic other than with an interval literal)")
    whole, _, fraction = text.lstrip("+-").partition(".")
    millis = int(whole) * _INTERVAL_MILLIS[unit_name]
    if fraction:
        millis += int((fraction + "000")[:3]) * _INTERVAL_MILLIS[unit_name] // 1000
    return -millis if negative != text.startswith("-") else millis


def _arithmetic(
    node: exp.Expression, operand: exp.Expression, value: exp.Expression, found: Tuple[bool, int]
) -> exp.Expression:
    """time +/- interval day to second and interval + time: TimeOperators.add (and
    TimeWithTimeZoneOperators'), wrapped around midnight, of type time(max(3, p))."""
    zoned, precision = found
    name = _name(zoned, precision)
    interval = node.expression if _outer(operand)[0] is node.this else node.this
    if isinstance(node, exp.Sub) and interval is node.this:
        raise Refused(f"{node.sql('athena')} (an interval minus a time)")
    millis = _interval_millis(node, interval, name)
    delta = (-millis if isinstance(node, exp.Sub) else millis) * 10**9 % DAY
    picos = spark(f"pmod(_0 + {delta}L, {DAY}L)", picos_of(value))
    return make_time(picos, max(3, precision), offset_of(value) if zoned else None)


def _unit_text(node: exp.Expression, what: exp.Expression) -> str:
    unit = node.args.get("unit")
    text = str(unit.name if isinstance(unit, exp.Expression) else unit or "").lower()
    if text not in UNIT_PICOS:
        raise Fails(f"INVALID_FUNCTION_ARGUMENT: '{text}' is not a valid Time field")
    return text


def _argument(node: exp.Expression, value: exp.Expression) -> Optional[Tuple[bool, int]]:
    found = time_type(type_of(value))
    if found is not None:
        _check_columns(node.root())  # type: ignore[arg-type]
    return found


def trunc_form(node: exp.Expression) -> Optional[exp.Expression]:
    """date_trunc(unit, a time): TimeFunctions.truncate / timetz.DateTrunc (millisecond,
    second, minute, hour; another unit fails); None: not a time."""
    found = _argument(node, node.this)
    if found is None:
        return None
    size = UNIT_PICOS[_unit_text(node, node.this)]
    picos = spark(f"_0 div {size}L * {size}L", picos_of(node.this))
    out = make_time(picos, found[1], offset_of(node.this) if found[0] else None)
    return used(out, node)


def add_form(node: exp.Expression) -> Optional[exp.Expression]:
    """date_add(unit, n, a time): TimeFunctions.dateAdd / timetz.DateAdd: n modulo the
    units of a day (Java's remainder), added around midnight; of precision 3 or less
    rounded to it."""
    found = _argument(node, node.this)
    if found is None:
        return None
    zoned, precision = found
    unit = _unit_text(node, node.this)
    delta = f"(CAST(_1 AS BIGINT) % {_UNITS_PER_DAY[unit]}L) * {UNIT_PICOS[unit]}L"
    picos = spark(f"pmod(_0 + {delta}, {DAY}L)", picos_of(node.this), node.expression)
    if precision <= 3:
        picos = _rounded(picos, precision)
    return used(make_time(picos, precision, offset_of(node.this) if zoned else None), node)


def diff_form(node: exp.Expression) -> Optional[exp.Expression]:
    """date_diff(unit, a, b) of times: TimeFunctions.dateDiff / timetz.DateDiff, whole
    units from a to b toward zero (of times with time zone, their normalized instants)."""
    first, second = _argument(node, node.this), _argument(node, node.expression)
    if first is None and second is None:
        return None
    if first is None or second is None:
        raise Refused(f"{node.sql('athena')} (a time and a value of another type)")
    size = UNIT_PICOS[_unit_text(node, node.this)]
    zoned = first[0] or second[0]
    start, end = _key(node.expression, zoned), _key(node.this, zoned)
    return typed(spark(f"(_0 - _1) div {size}L", end, start), "bigint")


_FIELDS = {
    "HOUR": f"_0 div {UNIT_PICOS['hour']}L",
    "MINUTE": f"(_0 div {UNIT_PICOS['minute']}L) % 60",
    "SECOND": f"(_0 div {UNIT_PICOS['second']}L) % 60",
    "MILLISECOND": f"(_0 div {UNIT_PICOS['millisecond']}L) % 1000",
    "TIMEZONE_HOUR": "_1 div 60",
    "TIMEZONE_MINUTE": "_1 % 60",
}


def field_form(node: exp.Expression, field: str, value: exp.Expression) -> Optional[exp.Expression]:
    """hour, minute, second, millisecond, timezone_hour, timezone_minute and extract of a
    time (TimeFunctions, timetz.Extract*, TimeZoneHour/Minute: of the local time of day;
    the offset's hours and minutes truncated toward zero); None: not a time."""
    found = _argument(node, value)
    if found is None:
        return None
    if isinstance(node, exp.Extract) and field == "MILLISECOND":  # not a field of EXTRACT
        raise Fails("SYNTAX_ERROR: Invalid EXTRACT field: MILLISECOND")
    if field not in _FIELDS or (field.startswith("TIMEZONE") and not found[0]):
        raise Refused(f"{node.sql('athena')} (extract of {field} from {_name(*found)})")
    offset = offset_of(value) if found[0] else exp.Literal.number(0)
    return typed(spark(f"CAST({_FIELDS[field]} AS BIGINT)", picos_of(value), offset), "bigint")


def cast_from_time(node: exp.Expression, safe: bool) -> Optional[exp.Expression]:
    """CAST of a time (to a time: :func:`time_cast`; to varchar: its text, as
    TimeOperators.castToVarchar and TimeWithTimeZoneToVarcharCast write it); None: not a
    time. A cast to a timestamp (which takes the session's current date) is refused."""
    value, target = node.this, node.args["to"]
    found = _argument(node, value)
    if found is None:
        return None
    if target.this in (T.TIME, T.TIMETZ):
        return time_cast(node, safe)
    if target.this in (T.VARCHAR, T.TEXT) and not target.expressions:
        field = TIMETZ_FIELD if found[0] else TIME_FIELD
        return typed(_field(value, field), "varchar")
    raise Refused(f"{node.sql('athena')} (a cast of a time to {target.sql('athena')})")


def timestamp_under_time_cast(node: exp.Expression) -> bool:
    """Whether ``node`` (a TIMESTAMP(p > 6) literal) is the value of a cast to a time,
    which reads its text (Spark keeps no more than microseconds)."""
    _, parent = _outer(node)
    return (
        isinstance(parent, exp.Cast)
        and parent.args["to"].this in (T.TIME, T.TIMETZ)
        and _timestamp_literal(node) is not None
    )


def _local_time_sql() -> str:
    """Spark SQL of java.time.LocalTime.toString of ``athena_n`` nanoseconds of the day:
    HH:mm, then :ss unless the seconds and nanoseconds are 0, then 3, 6 or 9 digits."""
    n = "athena_n"
    second, fraction = f"({n} div 1000000000L) % 60", f"{n} % 1000000000L"
    digits = (
        f"CASE WHEN {fraction} = 0 THEN '' "
        f"WHEN {fraction} % 1000000 = 0 THEN concat('.', lpad(CAST({fraction} div 1000000 AS STRING), 3, '0')) "
        f"WHEN {fraction} % 1000 = 0 THEN concat('.', lpad(CAST({fraction} div 1000 AS STRING), 6, '0')) "
        f"ELSE concat('.', lpad(CAST({fraction} AS STRING), 9, '0')) END"
    )
    seconds = (
        f"CASE WHEN {n} % 60000000000L = 0 THEN '' ELSE concat(':', {_two(second)}, {digits}) END"
    )
    return (
        f"concat({_two(f'{n} div 3600000000000L')}, ':', "
        f"{_two(f'({n} div 60000000000L) % 60')}, {seconds})"
    )


@FORMATS.register(5, "times (Java's LocalTime text)")
def _format_of_times(node: exp.Expression) -> Optional[exp.Expression]:
    """format('%s', a time): FormatFunction gives Java's Formatter a LocalTime of the time
    rounded to nanoseconds (its toString); a time with time zone its cast to varchar
    (FormatFunction maps no OffsetTime); only ``%s`` of times, and text; None: no time
    among the arguments."""
    kinds = [time_type(type_of(a)) for a in node.expressions]
    if not any(kinds):
        return None
    pattern = node.this
    text = str(pattern.this) if isinstance(pattern, exp.Literal) and pattern.is_string else None
    parts = text.split("%s") if text is not None else []
    plain = all("%" not in p.replace("%%", "") for p in parts)
    if text is None or not plain or len(parts) != len(kinds) + 1 or not all(kinds):
        raise Refused(f"{node.sql('athena')} (format of a time other than by %s)")
    _check_columns(node.root())  # type: ignore[arg-type]
    pieces: list = [exp.Literal.string(parts[0].replace("%%", "%"))]
    for value, part in zip(node.expressions, parts[1:]):
        nanos = spark(f"pmod((_0 + 500L) div 1000L, {DAY // 1000}L)", picos_of(value))
        local = spark(
            f"element_at(transform(array(_0), athena_n -> {_local_time_sql()}), 1)", nanos
        )
        zoned = time_type(type_of(value))
        if zoned is not None and zoned[0]:  # no OffsetTime: the cast to varchar's text
            local = _field(value, TIMETZ_FIELD)
        pieces += [local, exp.Literal.string(part.replace("%%", "%"))]
    return typed(exp.Anonymous(this="concat", expressions=pieces), "varchar")
