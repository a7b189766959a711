"""Conversion functions (Trino's ``functions/conversion.md``): CAST and TRY_CAST, typeof,
format, format_number and parse_data_size; and the types a query may name.

Casts and ``format`` live here, ``typeof`` and the names of types in conversion_types.py
(its :data:`TYPEOFS`), each once. A type whose values another page holds registers its case
in :data:`CASTS`, ``TYPEOFS`` or :data:`FORMATS` (a
:class:`~athena_spark_emulator.sql.functions.table.Hooks` with explicit priorities):

* casts: datetime.py (10: from a timestamp with time zone, to a zoned or time-of-day type
  or a timestamp(p > 6)), json_cast.py (20: to and from JSON), ipaddress.py (30: to
  ipaddress and uuid);
* typeof: datetime.py (10: timestamps, intervals, the types rewrites give);
* format: datetime_format.py (10: dates only, Java's %t conversions), decimal.py (20: a
  decimal or date argument, Java's Formatter).

Examples: ``tests/conformance/examples/conversion.yml``.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import zoneinfo
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion_types import athena_type_name
from athena_spark_emulator.sql.functions.json import java_double
from athena_spark_emulator.sql.functions.table import Fails, Hooks, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    is_date,
    is_decimal,
    is_double,
    is_integral,
    is_text,
    is_timestamp,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import (
    ERROR_END,
    ERROR_MARK,
    AthenaError,
    Unsupported,
    try_form,
    udf,
    udf_call,
)

# ---- types and casts ------------------------------------------------------------------------
T = exp.DataType.Type
CASTABLE = {
    T.BOOLEAN,
    T.TINYINT,
    T.SMALLINT,
    T.INT,
    T.BIGINT,
    T.FLOAT,
    T.DOUBLE,
    T.DECIMAL,
    T.VARCHAR,
    T.CHAR,
    T.TEXT,
    T.DATE,
    T.TIMESTAMP,
    T.ARRAY,
    T.MAP,
    T.STRUCT,
    T.JSON,  # json_cast.py
}


ZONED_TYPES = (T.TIMESTAMPTZ, T.TIME, T.TIMETZ)  # literals only: datetime_zoned.typed_cast

#: The cases of CAST/TRY_CAST other pages run: fn(cast node, value, target type, safe)
CASTS = Hooks("cast")
#: The cases of format() other pages run: fn(format node)
FORMATS = Hooks("format")


def _type_check(node: exp.Expression) -> Optional[str]:
    if node.this in ZONED_TYPES and isinstance(node.parent, (exp.Cast, exp.TryCast)):
        return None
    if node.this not in CASTABLE and node.this not in CASTS.types:
        return f"the type {node.sql('athena')}"
    if node.this == T.TIMESTAMP and node.expressions:
        precision = int(node.expressions[0].this.this)
        literal = isinstance(node.parent, exp.Cast) and isinstance(node.parent.this, exp.Literal)
        if precision > 6 and not (precision <= 12 and literal):  # date_diff, casts to time
            return f"the type {node.sql('athena')} (precision 6 at most: Spark keeps microseconds)"
    for child in node.expressions:
        if isinstance(child, exp.DataType):
            reason = _type_check(child)
            if reason:
                return reason
    return None


same(exp.DataType, "type", _type_check)

# Trino's Decimals.DECIMAL_PATTERN: the sign, the leading zeros (no digits of the type:
# DECIMAL '0.018' is decimal(3,3), DECIMAL '000001' decimal(1,0)), the integral digits, the
# fraction (DECIMAL '.999' has no digit before its point: decimal(3,3))
_DECIMAL_TEXT = re.compile(r"^\s*[+-]?(0*)([0-9]*)(?:\.([0-9]*))?\s*$")


def _sized_text(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType, safe: bool
) -> exp.Expression:
    """varchar(n) keeps n characters; char(n) is padded with spaces to n."""
    size = int(target.expressions[0].this.this)
    text = exp.Cast(this=value, to=exp.DataType.build("string"))
    if safe:
        text = exp.TryCast(this=value, to=exp.DataType.build("string"), safe=True)
    if target.this == T.CHAR:
        out = spark(f"rpad(_0, {size}, ' ')", text)
    elif is_integral(source) or (source is not None and source.this == T.BOOLEAN):
        return _fitting_text(text, target, safe)
    else:
        if not is_text(source) and not (isinstance(value, exp.Literal) and value.is_string):
            raise Refused(f"{node.sql('athena')} (a varchar(n) cast of a non-text value)")
        out = spark(f"substring(_0, 1, {size})", text)
    out.type = target
    return out


def _fitting_text(text: exp.Expression, target: exp.DataType, safe: bool) -> exp.Expression:
    """castToVarchar of IntegerOperators, BigintOperators, BooleanOperators and
    DoubleOperators: the value's (Athena) text where it fits in varchar(n)'s n characters,
    else INVALID_CAST_ARGUMENT (TRY_CAST: NULL)."""
    size = int(target.expressions[0].this.this)
    failed = exp.Literal.string(f"{ERROR_MARK}INVALID_CAST_ARGUMENT: Value ")
    tail = exp.Literal.string(f" cannot be represented as varchar({size}){ERROR_END}")
    otherwise = "NULL" if safe else "raise_error(concat(_1, _0, _2))"
    out = spark(f"CASE WHEN length(_0) <= {size} THEN _0 ELSE {otherwise} END", text, failed, tail)
    out.type = target
    return out


def _named_fields(row: exp.DataType) -> exp.DataType:
    """``row(integer, integer)``: Spark needs field names; Athena's are field0, field1."""
    fields = []
    for i, field in enumerate(row.expressions):
        if isinstance(field, exp.DataType):
            field = exp.ColumnDef(this=exp.to_identifier(f"field{i}"), kind=field)
        fields.append(field)
    return exp.DataType(this=T.STRUCT, expressions=fields, nested=True)


def _bare_decimal(node: Any, value: exp.Expression) -> exp.DataType:
    """``DECIMAL '1.50'`` is decimal(3,2), its precision and scale from the text as Trino's
    Decimals.parse counts them (leading zeros are no digits of the type); any other bare
    DECIMAL, ``CAST('1.50' AS DECIMAL)`` too, is Trino's decimal(38,0)."""
    literal = isinstance(value, exp.Literal) and value.is_string and "safe" not in node.args
    match = _DECIMAL_TEXT.match(value.this) if literal else None
    if not match or not any(match.groups()):
        return exp.DataType.build("decimal(38,0)")
    whole, fraction = match.group(2), match.group(3) or ""
    return exp.DataType.build(f"decimal({max(len(whole) + len(fraction), 1)},{len(fraction)})")


def _rounded_timestamp(
    node: Any,
    value: exp.Expression,
    source: Optional[exp.DataType],
    target: exp.DataType,
) -> Optional[exp.Expression]:
    """``cast(x as timestamp(p))`` where x may have more fractional digits than p: rounded
    half up to p digits, as Trino does (None: no rounding needed)."""
    precision = int(target.expressions[0].this.this) if target.expressions else 3
    if (isinstance(value, exp.Literal) and value.is_string) or precision >= 6:
        return None
    source_digits = 6
    if is_timestamp(source) and source is not None:  # Athena's timestamp is timestamp(3)
        source_digits = int(source.expressions[0].this.this) if source.expressions else 3
    elif is_date(source):
        source_digits = 0
    elif source is not None and not is_timestamp(source):
        source_digits = 6 if source.this in (T.VARCHAR, T.TEXT, T.CHAR) else 0
    if source_digits <= precision:
        return None
    out = spark(
        f"timestamp_micros(CAST(round(unix_micros(CAST(_0 AS TIMESTAMP)), "
        f"{precision - 6}) AS BIGINT))",
        value,
    )
    out.type = exp.DataType.build(f"timestamp({precision})")  # a bare TIMESTAMP is (3)
    return out


@udf("double_text", "string")
def double_text(value: Optional[float]) -> Optional[str]:
    """CAST(double AS varchar), Trino's DoubleOperators.castToVarchar: Java's
    DecimalFormat("0.0###################E0") of the double's shortest digits (``2.5E0``,
    ``1.0E-5``), ``0E0``/``-0E0``, ``NaN``, ``Infinity``/``-Infinity``."""
    if value is None:
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0E0" if math.copysign(1.0, value) < 0 else "0E0"
    sign, digits, exponent = decimal.Decimal(repr(value)).as_tuple()
    text = "".join(str(d) for d in digits).rstrip("0")
    power = len(digits) - 1 + int(exponent)
    return f"{'-' if sign else ''}{text[0]}.{text[1:] or '0'}E{power}"


@udf("finite_for_decimal", "double")
def finite_for_decimal(value: Optional[float], name: str, target: str) -> Optional[float]:
    """A double on its way to a decimal: NaN and Infinity fail as Trino's DecimalCasts
    fail (Spark's cast gives NULL)."""
    if value is not None and (math.isnan(value) or math.isinf(value)):
        text = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        raise AthenaError(f"INVALID_CAST_ARGUMENT: Cannot cast {name} '{text}' to {target}")
    return value


@udf("real_to_decimal", "string")
def real_to_decimal(text: Optional[str], precision: int, scale: int) -> Optional[str]:
    """CAST(real AS decimal(p, s)), Trino's DecimalConversions.realToLongDecimal: the
    real's Java text (``String.valueOf(float)``, Spark's cast of a float to a string: the
    real 1456213.432632456 is ``1456213.4``) read as a BigDecimal and set to scale s, half
    up; NaN, the infinities and a value past p digits fail ``Cannot cast REAL '1.0E10' to
    DECIMAL(5, 2)``. The answer is the decimal's text, which Spark's cast takes exactly."""
    if text is None:
        return None
    context = decimal.Context(prec=100)
    number = decimal.Decimal(text) if text not in ("NaN", "Infinity", "-Infinity") else None
    if number is not None:
        number = number.quantize(decimal.Decimal(1).scaleb(-scale), decimal.ROUND_HALF_UP, context)
    if number is None or abs(number.scaleb(scale, context)) >= 10**precision:
        raise AthenaError(
            f"INVALID_CAST_ARGUMENT: Cannot cast REAL '{text}' to DECIMAL({precision}, {scale})"
        )
    return f"{number:f}"


def _finite(value: exp.Expression, source: Any, target: exp.DataType) -> exp.Expression:
    """A double checked for NaN and Infinity (Spark's cast of a double to a decimal is
    Trino's: BigDecimal.valueOf(double)); a real as the decimal text Trino makes of it."""
    p, s = (int(e.this.this) for e in target.expressions)
    if source.this == T.FLOAT:
        text = spark("CAST(_0 AS STRING)", value)
        return udf_call("real_to_decimal", text, exp.Literal.number(p), exp.Literal.number(s))
    literals = (exp.Literal.string("DOUBLE"), exp.Literal.string(f"DECIMAL({p}, {s})"))
    return udf_call("finite_for_decimal", value, *literals)


def _text_cast(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType, safe: bool
) -> Optional[exp.Expression]:
    """A cast to varchar/char where Spark's text differs from Athena's (None: it does not)."""
    typed = _typed_text_literal(node, value, target) if not target.expressions else None
    if typed is not None:
        return typed
    if is_timestamp(source):  # Athena writes the type's fractional digits, 3 at least
        digits = 3
        if source is not None and source.expressions:
            digits = max(3, int(source.expressions[0].this.this))
        fmt = "yyyy-MM-dd HH:mm:ss." + "S" * digits
        return spark(f"date_format(_0, '{fmt}')", value)
    if source is not None and source.this == T.DOUBLE and not target.expressions:
        out = udf_call("double_text", value)
        out.type = exp.DataType.build("varchar")
        return out
    if source is not None and source.this == T.DOUBLE and target.this != T.CHAR:
        return _fitting_text(udf_call("double_text", value), target, safe)
    if is_double(source):
        raise Refused(f"cast of a double to varchar ({node.sql('athena')})")
    if target.expressions:
        return _sized_text(node, value, source, target, safe)
    return None


# Trino's DateTimes.DATETIME_PATTERN (Java's \\d is ASCII digits only)
_DATETIME_TEXT = re.compile(
    r"(?P<year>[-+]?[0-9]{4,})-(?P<month>[0-9]{1,2})-(?P<day>[0-9]{1,2})"
    r"(?: (?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{1,2})"
    r"(?::(?P<second>[0-9]{1,2})(?:\.(?P<fraction>[0-9]+))?)?)?"
    r"\s*(?P<timezone>.+)?"
)
_OFFSET_ID = re.compile(r"[+-](?:[0-9]{1,2}|[0-9]{2}:?[0-9]{2}|[0-9]{2}:?[0-9]{2}:?[0-9]{2})")


def _java_zone(text: str) -> Optional[datetime.tzinfo]:
    """Java's ZoneId.of(text) (None: Java rejects it); an offset only as UTC, enough here,
    where only a region's gaps move the wall time."""
    prefix = next((p for p in ("UTC", "GMT", "UT") if text.startswith(p)), "")
    rest = text[len(prefix) :]
    if text == "Z" or (prefix and not rest):
        return datetime.timezone.utc
    if _OFFSET_ID.fullmatch(rest):
        digits = rest[1:].replace(":", "")
        hours = int(digits[:2]) if len(digits) != 1 else int(digits)
        minutes = int(digits[2:4] or 0) if len(digits) > 2 else 0
        seconds = int(digits[4:6] or 0) if len(digits) > 4 else 0
        if hours > 18 or minutes > 59 or seconds > 59 or hours * 3600 + minutes * 60 > 18 * 3600:
            return None
        return datetime.timezone.utc
    if prefix or not re.fullmatch(r"[A-Za-z][A-Za-z0-9~/._+-]+", text):
        return None
    try:
        return zoneinfo.ZoneInfo(text)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


@udf("varchar_to_timestamp", "bigint")
def varchar_to_timestamp(text: Optional[str], precision: int) -> Optional[int]:
    """Trino's VarcharToTimestampCast to timestamp(p <= 6), as epoch microseconds: the text
    trimmed, its fraction rounded half up to p digits; a zone in the text is checked and
    dropped, the wall time kept (moved forward only across a region's gap, as Java's
    ZonedDateTime.of does)."""
    if text is None:
        return None
    error = AthenaError(f"INVALID_CAST_ARGUMENT: Value cannot be cast to timestamp: {text}")
    match = _DATETIME_TEXT.fullmatch(text.strip())
    if not match:
        raise error
    parts = match.groupdict()
    zone = _java_zone(parts["timezone"]) if parts["timezone"] is not None else None
    if parts["timezone"] is not None and zone is None:
        raise error
    year = int(parts["year"])
    if not 1 <= year <= 9999:
        raise Unsupported(f"cast of '{text}' to timestamp (a year outside 1 to 9999)")
    try:
        wall = datetime.datetime(
            year,
            int(parts["month"]),
            int(parts["day"]),
            int(parts["hour"] or 0),
            int(parts["minute"] or 0),
            int(parts["second"] or 0),
        )
    except ValueError:
        raise error from None
    if zone is not None and zone is not datetime.timezone.utc:
        utc = wall.replace(tzinfo=zone, fold=0).astimezone(datetime.timezone.utc)
        wall = utc.astimezone(zone).replace(tzinfo=None)
    fraction = parts["fraction"] or ""
    value = int(fraction or 0)
    if len(fraction) > precision:  # Trino's DateTimes.round: half up, the scale kept
        bound = 10 ** (len(fraction) - precision)
        value = (value + bound // 2) // bound * bound
    micros = (
        value * 10 ** (6 - len(fraction))
        if len(fraction) <= 6
        else value // 10 ** (len(fraction) - 6)
    )
    epoch = wall - datetime.datetime(1970, 1, 1)
    return (epoch.days * 86400 + epoch.seconds) * 1_000_000 + micros


def _text_to_timestamp(node: Any, value: exp.Expression, target: exp.DataType, safe: bool) -> Any:
    digits = int(target.expressions[0].this.this) if target.expressions else 3
    call = udf_call("varchar_to_timestamp", value, exp.Literal.number(digits))
    out = spark("timestamp_micros(_0)", try_form(call) if safe else call)
    out.type = node.args["to"]
    return out


def _timestamp_target(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType
) -> exp.Expression:
    """Spark's timestamp, or the value rounded to the target's precision (a Spark form)."""
    digits = int(target.expressions[0].this.this) if target.expressions else 3
    literal = isinstance(value, exp.Literal) and value.is_string
    if digits not in (3, 6) and not literal:
        raise Refused(f"{node.sql('athena')} (timestamp(3) and timestamp(6) only)")
    rounded = _rounded_timestamp(node, value, source, target)
    return rounded if rounded is not None else exp.DataType.build("timestamp")


def _typed_text_literal(
    node: Any, value: exp.Expression, target: exp.DataType
) -> Optional[exp.Expression]:
    """A typed literal (sqlglot's Cast without CAST's arguments): CHAR 'abc' is char(3)
    (Trino's CharLiteral), VARCHAR 'abc' unbounded varchar (a GenericLiteral, typed by
    ExpressionAnalyzer.visitGenericLiteral as the type it names: TestVarcharOperators'
    testTypeConstructor) (None: not one)."""
    if target.this == T.TEXT:
        return None
    if "safe" in node.args or not (isinstance(value, exp.Literal) and value.is_string):
        if target.this == T.CHAR:  # CAST(x AS CHAR) is char(1)
            target.set("expressions", [exp.DataTypeParam(this=exp.Literal.number(1))])
        return None
    out = spark("CAST(_0 AS STRING)", value)
    sized = target.this == T.CHAR
    out.type = exp.DataType.build(f"char({len(value.this)})" if sized else "varchar")
    return out


def _source_value(value: exp.Expression, source: Any, target: exp.DataType, safe: bool) -> Any:
    """The value as Spark's cast needs it: a double checked for NaN and Infinity on its way
    to a decimal, a fraction rounded half up on its way to an integer."""
    if target.this == T.DECIMAL and is_double(source) and target.expressions:
        value = _finite(value, source, target)
        if safe:
            value = value.transform(try_form)
    if target.this == T.BIGINT and source is not None and source.this == T.DOUBLE:
        value = udf_call("double_to_bigint", value)
        return value.transform(try_form) if safe else value
    if is_integral(target) and (is_double(source) or is_decimal(source)):
        value = spark("round(_0)", value)
    return value


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


@udf("double_to_bigint", "bigint")
def double_to_bigint(value: Optional[float]) -> Optional[int]:
    """CAST(double AS bigint), Trino's DoubleOperators.castToLong: rounded half up (away
    from zero, DoubleMath.roundToLong); NaN, the infinities and a value beyond a long fail
    ``Unable to cast 9.223372036854776E18 to bigint`` (Spark's cast gives the nearest long)."""
    if value is None:
        return None
    rounded = None
    if math.isfinite(value):
        rounded = int(decimal.Decimal(value).to_integral_value(rounding=decimal.ROUND_HALF_UP))
    if rounded is None or not _LONG_MIN <= rounded <= _LONG_MAX:
        text = java_double(value)
        raise AthenaError(f"INVALID_CAST_ARGUMENT: Unable to cast {text} to bigint")
    return rounded


def _check_decimal_precision(target: exp.DataType) -> None:
    """DECIMAL(p, s) with p outside 1..38 fails as Trino's DecimalType.createDecimalType
    fails (Spark takes DECIMAL(0, 0))."""
    if target.this != T.DECIMAL or not target.expressions:
        return
    precision = int(target.expressions[0].this.this)
    if not 1 <= precision <= 38:
        raise Fails(
            f"INVALID_FUNCTION_ARGUMENT: DECIMAL precision must be in range [1, 38]: {precision}"
        )


def _to_timestamp(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType, safe: bool
) -> exp.Expression:
    """A cast to timestamp(p): text read as Trino reads it (not a typed literal, whose
    precision is its own), else Spark's timestamp or the value rounded to p digits."""
    text_source = is_text(source) or (isinstance(value, exp.Literal) and value.is_string)
    if text_source and "safe" in node.args:
        return _text_to_timestamp(node, value, target, safe)
    return _timestamp_target(node, value, source, target)


_CONTAINERS = (T.ARRAY, T.MAP, T.STRUCT)


def _parts(kind: exp.DataType) -> list:
    """The element, key and value, or field types of a container type."""
    return [f.args.get("kind") if isinstance(f, exp.ColumnDef) else f for f in kind.expressions]


def _no_cast(source: Optional[exp.DataType], target: Optional[exp.DataType]) -> bool:
    """Trino has no cast from ``source`` to ``target`` (False: it has one, or the types are
    not known): a number or boolean to or from a date or timestamp (Trino's
    DateOperators, TimestampOperators and the number types' operators register none) or
    to or from an array, map or row; element by element inside those (ArrayToArrayCast,
    MapToMapCast and RowToRowCast cast each element with the scalar cast)."""
    if not isinstance(source, exp.DataType) or not isinstance(target, exp.DataType):
        return False
    if source.this in _CONTAINERS and source.this == target.this:
        pairs = list(zip(_parts(source), _parts(target)))
        return len(pairs) == len(target.expressions) and any(_no_cast(a, b) for a, b in pairs)
    scalar = (is_integral, is_decimal, is_double, lambda k: k.this == T.BOOLEAN)
    if (source.this in _CONTAINERS) != (target.this in _CONTAINERS):
        other = target if source.this in _CONTAINERS else source
        return any(f(other) for f in scalar) or other.this in (T.DATE, T.TIMESTAMP)
    timed = [k.this in (T.DATE, T.TIMESTAMP) for k in (source, target)]
    numbers = [any(f(k) for f in scalar) for k in (source, target)]
    return (timed[0] and numbers[1]) or (numbers[0] and timed[1])


def _cast_type_name(kind: exp.DataType) -> str:
    """Trino's name of ``kind`` in a cast's TYPE_MISMATCH (a bare timestamp is (3))."""
    if kind.this in (T.ARRAY, T.MAP):
        inner = ", ".join(_cast_type_name(k) for k in _parts(kind))
        return f"{'array' if kind.this == T.ARRAY else 'map'}({inner})"
    if kind.this == T.TIMESTAMP:
        return f"timestamp({kind.expressions[0].this.this if kind.expressions else 3})"
    return athena_type_name(kind) or kind.sql("athena").lower()


def _check_cast_exists(node: Any, source: Optional[exp.DataType]) -> None:
    """A cast Trino does not have fails analysis: ExpressionAnalyzer.visitCast's
    TYPE_MISMATCH ``Cannot cast integer to timestamp(3)`` (TRY_CAST too)."""
    target = node.args["to"]
    if _no_cast(source, target):
        names = (_cast_type_name(source), _cast_type_name(target))  # type: ignore[arg-type]
        raise Fails(f"TYPE_MISMATCH: Cannot cast {names[0]} to {names[1]}")


def _distinct_map_keys(
    value: exp.Expression, source: Any, target: exp.DataType, out: exp.Expression, safe: bool
) -> exp.Expression:
    """A map cast whose cast keys collide fails, as Trino's MapToMapCast.mapCast does
    (INVALID_CAST_ARGUMENT ``duplicate keys``: ``map(array[1, 2], ...)`` to map(boolean,
    ...), 'NaN' and ' NaN ' to double; Spark keeps one of them); TRY_CAST is NULL then."""
    key = target.expressions[0]
    kept = isinstance(source, exp.DataType) and source.this == T.MAP and source.expressions
    if kept and source.expressions[0].sql("spark") == key.sql("spark"):
        return out  # the keys are not cast
    failed = exp.Literal.string(f"{ERROR_MARK}INVALID_CAST_ARGUMENT: duplicate keys{ERROR_END}")
    keys = exp.DataType(this=T.ARRAY, expressions=[key.copy()], nested=True)
    checked = spark(
        f"CASE WHEN size(array_distinct(CAST(map_keys(_0) AS {keys.sql('spark')}))) "
        f"< size(map_keys(_0)) THEN {'NULL' if safe else 'raise_error(_2)'} ELSE _1 END",
        value,
        out,
        failed,
    )
    checked.type = out.type
    return checked


def _cast(node: Any, safe: bool) -> exp.Expression:
    target = node.to
    value = node.this
    hooked = CASTS.first(node, value, target, safe)
    if hooked is not None:
        return hooked
    source = type_of(value)
    _check_cast_exists(node, source)
    _check_decimal_precision(target)
    if target.this == T.DECIMAL and not target.expressions:
        target = _bare_decimal(node, value)
    if target.this in (T.VARCHAR, T.CHAR, T.TEXT):
        text = _text_cast(node, value, source, target, safe)
        if text is not None:
            return text
        target = exp.DataType.build("string")
    value = _source_value(value, source, target, safe)
    if target.this == T.STRUCT:
        target = _named_fields(target)
    if target.this == T.TIMESTAMP:
        target = _to_timestamp(node, value, source, target, safe)
        if not isinstance(target, exp.DataType):
            return target  # rounded, or read from text
    athena_type = node.args["to"]
    if athena_type.this == T.DECIMAL and not athena_type.expressions:
        athena_type = target
    out = exp.TryCast(this=value, to=target, safe=True) if safe else exp.Cast(this=value, to=target)
    out.type = athena_type
    return _distinct_map_keys(value, source, target, out, safe) if target.this == T.MAP else out


@rewrites(exp.Cast, "cast")
def cast(node: exp.Expression) -> exp.Expression:
    return _cast(node, safe=False)


@rewrites(exp.TryCast, "try_cast")
def try_cast(node: exp.Expression) -> exp.Expression:
    return _cast(node, safe=True)


def _check_format_string(node: exp.Expression) -> None:
    """format()'s first argument must be a varchar: Trino's ExpressionAnalyzer.visitFormat
    fails the statement with TYPE_MISMATCH otherwise (``format(5, 8)``; a char and a bare
    NULL, of Trino's type unknown, too)."""
    kind = type_of(node.this)
    literal = isinstance(node.this, exp.Literal) and node.this.is_string
    if isinstance(node.this, exp.Null):
        name = "unknown"
    elif literal or kind is None or kind.this in (T.VARCHAR, T.TEXT, T.NULL, T.UNKNOWN):
        return
    else:
        name = athena_type_name(kind) or kind.sql("athena").lower()
    raise Fails(
        f"TYPE_MISMATCH: Type of first argument to format() must be VARCHAR (actual: {name})"
    )


@rewrites(exp.Format, "format")
def format_(node: exp.Expression) -> exp.Expression:
    _check_format_string(node)
    hooked = FORMATS.first(node)  # dates, decimals (datetime_format.py, decimal.py)
    if hooked is not None:
        return hooked
    for arg in node.expressions:
        kind = type_of(arg)
        literal = isinstance(arg, exp.Literal) and arg.is_string
        if not literal and not (is_integral(kind) or is_double(kind) or is_text(kind)):
            raise Refused(f"{node.sql('athena')} (format of a value other than a number or text)")
        if is_integral(kind):  # Trino formats every integer as a Java long (%x of -1)
            arg.replace(spark("CAST(_0 AS BIGINT)", arg.copy()))
    return node


# ---- conversion -----------------------------------------------------------------------------
_DATA_SIZE_UNITS = {
    "B": 0,
    "kB": 10,
    "MB": 20,
    "GB": 30,
    "TB": 40,
    "PB": 50,
    "EB": 60,
    "ZB": 70,
    "YB": 80,
}


@udf("parse_data_size", "decimal(38,0)")
def parse_data_size(text: Optional[str]) -> Optional[decimal.Decimal]:
    """Trino's parse_data_size: ``2.3MB`` is 2411724 bytes (the fraction dropped)."""
    if text is None:
        return None
    length = 0
    while length < len(text) and (text[length] in "0123456789." or text[length].isdigit()):
        length += 1
    unit = _DATA_SIZE_UNITS.get(text[length:])
    number = text[:length]
    if not number or unit is None or not re.fullmatch(r"\d+\.?\d*|\.\d+", number):
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid data size: '{text}'")
    value = int(decimal.Decimal(number) * (2**unit))
    if abs(value) >= 10**38:
        raise AthenaError(f"NUMERIC_VALUE_OUT_OF_RANGE: Value out of range: '{text}' ('{value}B')")
    return decimal.Decimal(value)


@rewrites("parse_data_size", "parse_data_size")
def _parse_data_size(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("parse_data_size", *node.expressions), "decimal(38,0)")


def _java_half_up(value: float, digits: int) -> str:
    """Java's DecimalFormat("#.##") (HALF_UP, of the double's exact value) for ``digits``."""
    rounded = decimal.Decimal(value).quantize(
        decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP
    )
    text = f"{rounded:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", "0") and value < 0:
        return "-0"
    return text


@udf("format_number", "string")
def format_number(value: Any) -> Optional[str]:
    """Trino's format_number: 123456 is 123K, 1000000 is 1M (three significant digits)."""
    if value is None:
        return None
    if isinstance(value, float):  # a double: Java's (long) cast
        if math.isnan(value):
            count = 0
        else:
            count = (
                int(max(min(value, 2**63 - 1), -(2**63)))
                if math.isfinite(value)
                else (2**63 - 1 if value > 0 else -(2**63))
            )
    else:
        count = int(value)
    fractional = float(count)
    unit = ""
    for symbol in "KMBTQ":
        if fractional >= 1000 or fractional <= -1000:
            fractional /= 1000
            unit = symbol
    digits = 2 if fractional < 10 else (1 if fractional < 100 else 0)
    return _java_half_up(fractional, digits) + unit


@rewrites("format_number", "format_number")
def _format_number(node: exp.Expression) -> exp.Expression:
    [value] = node.expressions
    kind = type_of(value)
    if is_integral(kind):
        arg = spark("CAST(_0 AS BIGINT)", value)
    elif is_double(kind) or is_decimal(kind):
        arg = spark("CAST(_0 AS DOUBLE)", value)
    else:
        raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    return typed(udf_call("format_number", arg), "varchar")
