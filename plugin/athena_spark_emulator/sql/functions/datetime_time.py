"""Athena's TIME and TIME WITH TIME ZONE values (Trino's ``functions/datetime.md``, a part of
that page: datetime.py names its modules): how they are held in Spark, their literals,
casts and operations.

**A time** (``TIME '01:00'``, ``TIME '01:02:03.456 -08:00'``) is a struct ``athena_time``
(or ``athena_timetz``) of its printed text, used only where datetime_zoned.check_use lets
it; ``+``/``-`` of an interval day to second literal is computed when the statement is
translated.
"""

from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.datetime_zoned import (
    _OFFSET,
    _digits,
    _precision,
    _typed,
    check_use,
    round_nanos,
    zone_id,
)
from athena_spark_emulator.sql.functions.table import Fails, Refused
from athena_spark_emulator.sql.spark_forms import spark

T = exp.DataType.Type
TIME_FIELD, TIMETZ_FIELD = "athena_time", "athena_timetz"

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


def time_cast(node: exp.Expression, safe: bool) -> exp.Expression:
    """CAST to time or time with time zone (conversion.py's cast, through
    datetime._time_cast): a literal string only (``TIME '01:00'``)."""
    value, target = node.this, node.args["to"]
    if not (isinstance(value, exp.Literal) and value.is_string):
        raise Refused(f"{node.sql('athena')} (a cast of a value that is not a literal)")
    return time_literal(node, value.this, target, _precision(target, 0))


def time_literal(
    node: exp.Expression, text: str, target: exp.DataType, precision: int
) -> exp.Expression:
    if not re.search("[A-Za-z]", text) and not valid_time_text(text):  # a zone's name: below
        raise Fails(f"INVALID_LITERAL: '{text}' is not a valid time literal")
    match = _TIME_LITERAL.match(text)
    zoned = target.this == T.TIMETZ
    if not match or len(match.group(4) or "") > 9:
        raise Refused(f"{node.sql('athena')} (a time literal the emulator cannot read)")
    zone_text = match.group("zone")
    if zone_text and not zoned:
        raise Refused(f"{node.sql('athena')} (a time literal the emulator cannot read)")
    hour, minute, second = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
    if hour > 23 or minute > 59 or second > 59:
        raise Refused(f"{node.sql('athena')} (a time literal the emulator cannot read)")
    fraction = int(((match.group(4) or "") + "000000000")[:9])
    nanos = round_nanos(((hour * 60 + minute) * 60 + second) * 10**9 + fraction, precision)
    zone_suffix = _offset_suffix(node, text, zone_text) if zoned else ""
    name = f"time({precision}) with time zone" if zoned else f"time({precision})"
    kind = exp.DataType(
        this=target.this, expressions=[exp.DataTypeParam(this=exp.Literal.number(precision))]
    )
    child, parent = node, node.parent
    while isinstance(parent, exp.Paren):
        child, parent = parent, parent.parent
    if isinstance(parent, (exp.Add, exp.Sub)) and not zoned and parent.this is child:
        nanos = _time_arithmetic(parent, nanos, name)
        precision = max(3, precision)  # TimeOperators: time(p) +/- interval is time(max(3, p))
        result = _time_value(nanos, precision, zone_suffix, zoned)
        kind.set("expressions", [exp.DataTypeParam(this=exp.Literal.number(precision))])
        result.type, result.meta["athena_typeof"] = kind, f"time({precision})"
        check_use(parent, "time", time=True)
        parent.replace(result)
        return node
    check_use(node, "time", time=True)
    out = _time_value(nanos, precision, zone_suffix, zoned)
    out.meta["athena_time_text"] = _time_text(nanos, precision) + zone_suffix
    return _typed(out, name, kind)


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


def _time_text(nanos: int, precision: int) -> str:
    nanos %= 86400 * 10**9
    seconds, fraction = divmod(nanos, 10**9)
    text = f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction:09d}"[: len(text) + 1 + _digits(precision)]


def _time_value(nanos: int, precision: int, zone_suffix: str, zoned: bool) -> exp.Expression:
    field = TIMETZ_FIELD if zoned else TIME_FIELD
    return spark(
        f"named_struct('{field}', _0)",
        exp.Literal.string(_time_text(nanos, precision) + zone_suffix),
    )


_TIME_UNITS = {"HOUR": 3600 * 10**9, "MINUTE": 60 * 10**9, "SECOND": 10**9}


def _time_arithmetic(parent: exp.Expression, nanos: int, name: str) -> int:
    """``TIME '01:00' + INTERVAL '3' HOUR``: the time, wrapped around midnight."""
    interval = parent.expression
    while isinstance(interval, exp.Paren):
        interval = interval.this
    unit = interval.args.get("unit") if isinstance(interval, exp.Interval) else None
    unit_name = unit.name.upper() if unit is not None else ""
    if unit_name in ("YEAR", "MONTH"):
        op = "+" if isinstance(parent, exp.Add) else "-"
        raise Fails(f"TYPE_MISMATCH: Cannot apply operator: {name} {op} interval year to month")
    amount = interval.this if isinstance(interval, exp.Interval) else None
    if (
        unit_name not in _TIME_UNITS
        or not isinstance(amount, exp.Literal)
        or not re.fullmatch(r"-?\d+", str(amount.this).strip())
    ):
        raise Refused(
            f"{parent.sql('athena')} (time arithmetic other than with an interval literal)"
        )
    delta = int(str(amount.this).strip()) * _TIME_UNITS[unit_name]
    return nanos + delta if isinstance(parent, exp.Add) else nanos - delta
