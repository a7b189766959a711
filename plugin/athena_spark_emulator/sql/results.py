"""Results as Athena writes them: the ``GetQueryResults`` column type and text of a Spark
value (what pyathena and dbt-athena parse). Pure: no Spark session, no moto.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import struct
from typing import Any, List, Optional, Tuple

from athena_spark_emulator.sql.java_hash import hash_map_order, key_hash

_SIMPLE_TYPES = {
    "StringType": "varchar",
    "VarcharType": "varchar",
    "CharType": "varchar",
    "LongType": "bigint",
    "IntegerType": "integer",
    "ShortType": "smallint",
    "ByteType": "tinyint",
    "DoubleType": "double",
    "FloatType": "real",
    "DecimalType": "decimal",
    "DateType": "date",
    "TimestampType": "timestamp",
    "TimestampNTZType": "timestamp",
    "BooleanType": "boolean",
    "ArrayType": "array",
    "MapType": "map",
    "StructType": "row",
    "BinaryType": "varbinary",
    "NullType": "unknown",
    "DayTimeIntervalType": "interval day to second",
    "YearMonthIntervalType": "interval year to month",
}


#: The Spark structs that stand for Athena's zoned and time-of-day values (functions/datetime_zoned.py):
#: the first field's name, the Athena type; the value prints as that field's text.
_TEXT_STRUCTS = {
    "athena_tstz": "timestamp with time zone",
    "athena_time": "time",
    "athena_timetz": "time with time zone",
}


def _text_struct(spark_type: Any) -> Optional[str]:
    fields = getattr(spark_type, "fields", None)
    if type(spark_type).__name__ == "StructType" and fields:
        return _TEXT_STRUCTS.get(fields[0].name)
    return None


def athena_type(spark_type: Any) -> str:
    """The ``ColumnInfo.Type`` Athena reports for a Spark data type."""
    return _text_struct(spark_type) or _SIMPLE_TYPES.get(
        type(spark_type).__name__, spark_type.simpleString()
    )


def athena_value(value: Any, spark_type: Any = "", digits: Optional[int] = None) -> Optional[str]:
    """A value as Athena's result text (None: SQL NULL, sent without ``VarCharValue``);
    ``spark_type`` is the column's Spark type, or its class name, where it matters (given
    the type itself, the reals inside an array, map or row print as reals too);
    ``digits`` the fraction digits of the column's Athena timestamp or decimal type
    (:func:`fraction_digits`: a timestamp(6) prints 6 digits, zeros too; a decimal(38,20)
    20, however Spark scaled the value it hands back)."""
    if value is None:
        return None
    kind = spark_type if isinstance(spark_type, str) else type(spark_type).__name__
    if kind == "YearMonthIntervalType" and isinstance(value, int):
        return months_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.timedelta)):
        return time_text(value, digits)
    if isinstance(value, float):
        return real_text(value) if kind == "FloatType" else _non_finite(value)
    if isinstance(value, decimal.Decimal):
        return decimal_text(value, digits)
    if isinstance(value, (datetime.date, int, str)):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return " ".join(f"{b:02x}" for b in value)
    return _container_text(value, spark_type)


def _container_text(value: Any, spark_type: Any) -> Optional[str]:
    """A map's (``{k=v, ...}``), a row's (``{name=v, ...}``) or an array's (``[v, ...]``)
    text, each part printed by its type where ``spark_type`` is the Spark type itself."""
    entries = _map_entries(value, spark_type)
    if entries is not None:
        key, item = (getattr(spark_type, n, None) for n in ("keyType", "valueType"))
        parts = (f"{_nested(k, key)}={_nested(v, item)}" for k, v in _map_order(entries, key))
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, (list, tuple)):
        if hasattr(value, "asDict"):  # a Spark Row: Athena's row text
            return _row_text(value, spark_type)
        element = getattr(spark_type, "elementType", None)
        return "[" + ", ".join(_nested(v, element) for v in value) + "]"
    return str(value)


def _map_entries(value: Any, spark_type: Any) -> Optional[List[Tuple[Any, Any]]]:
    """A map value's (key, value) entries: of a dict, or of the ``map_entries`` rows a map
    whose keys Python cannot hash is collected as (statements.result_of); None: no map."""
    if isinstance(value, dict):
        return list(value.items())
    if type(spark_type).__name__ == "MapType" and isinstance(value, list):
        return [(entry[0], entry[1]) for entry in value]
    return None


def _map_order(entries: List[Tuple[Any, Any]], key_type: Any) -> List[Tuple[Any, Any]]:
    """A map's entries in the order Athena prints them: Trino's MapType.getObjectValue
    puts them into a java.util.HashMap, whose iteration order java_hash models for keys of
    integral, varchar, boolean, double and real types; Spark's order for the others."""
    order = hash_map_order([key_hash(k, key_type) for k, _ in entries])
    return entries if order is None else [entries[i] for i in order]


def _non_finite(value: float) -> str:
    """A double's text; NaN and the infinities as Java names them."""
    if math.isfinite(value):
        return str(value)
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _float32(value: float) -> float:
    """The float32 nearest ``value`` (infinite past the largest float32)."""
    try:
        return float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def real_text(value: float) -> str:
    """A real as Athena prints it: Trino's RealType is a float32 (``Float.intBitsToFloat``)
    and its text is Java's ``Float.toString``: the fewest decimal digits that read back as
    the same float32 (``12.2``, not the widened double's ``12.199999809265137``), in E
    notation below 1e-3 and from 1e7 (``1.0E7``, ``1.0E-4``, ``-2.1474836E9``), and
    ``NaN``, ``Infinity``, ``-Infinity``, ``-0.0``."""
    if not math.isfinite(value):
        return _non_finite(value)
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    target = _float32(value)
    if not math.isfinite(target):
        return _non_finite(target)
    shortest = next(
        text for text in (f"{target:.{p}e}" for p in range(9)) if _float32(float(text)) == target
    )
    return java_text(decimal.Decimal(shortest))


def java_text(number: decimal.Decimal) -> str:
    """A finite non-zero number's shortest digits as Java's Double.toString and
    Float.toString lay them out: plain from 1e-3 up to 1e7 with at least one fraction digit
    (``754.1985``, ``0.001``, ``100.0``), else ``d.dddE±n`` (``1.0E7``, ``1.0E-4``)."""
    sign, digit_tuple, exponent = number.normalize().as_tuple()
    digits = "".join(str(d) for d in digit_tuple)
    point = len(digits) + int(exponent)  # the decimal point after this many digits
    minus = "-" if sign else ""
    if decimal.Decimal("0.001") <= abs(number) < decimal.Decimal(10_000_000):
        if point <= 0:
            return f"{minus}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{minus}{digits}{'0' * (point - len(digits))}.0"
        return f"{minus}{digits[:point]}.{digits[point:]}"
    return f"{minus}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


def decimal_text(value: decimal.Decimal, scale: Optional[int] = None) -> str:
    """A decimal as Trino prints it (``Decimals.toString``: the unscaled digits with the
    type's scale): plain notation, every fraction digit of the scale, so a decimal(38,20)
    zero is ``0.00000000000000000000`` (Python's ``str`` gives ``0E-20``)."""
    if scale is not None and value.is_finite():
        value = value.quantize(decimal.Decimal(1).scaleb(-scale), context=_WIDE)
    return format(value, "f")


#: Enough digits to rescale any decimal(38,s) exactly; half up as Trino's Decimals round.
_WIDE = decimal.Context(prec=80, rounding=decimal.ROUND_HALF_UP)


def _row_text(row: Any, spark_type: Any = None) -> Optional[str]:
    fields = getattr(row, "__fields__", None) or []
    if fields and fields[0] in _TEXT_STRUCTS:  # a zoned or time-of-day value: its text
        return str(row[0])
    types = {f.name: f.dataType for f in getattr(spark_type, "fields", None) or []}
    return "{" + ", ".join(f"{k}={_nested(v, types.get(k))}" for k, v in row.asDict().items()) + "}"


def _nested(value: Any, spark_type: Any = None) -> str:
    text = athena_value(value, spark_type or "", getattr(spark_type, "scale", None))
    return "null" if text is None else text


def time_text(value: Any, digits: Optional[int] = None) -> str:
    """A timestamp with milliseconds, or microseconds when there are any or it is a
    timestamp(6) (``digits``); an interval day to second as ``1 02:03:04.000``."""
    if isinstance(value, datetime.timedelta):
        return interval_text(value)
    text = value.strftime("%Y-%m-%d %H:%M:%S.%f")
    return text[:-3] if value.microsecond % 1000 == 0 and digits != 6 else text


def interval_text(value: datetime.timedelta) -> str:
    micros = value.days * 86_400_000_000 + value.seconds * 1_000_000 + value.microseconds
    sign = "-" if micros < 0 else ""
    micros = abs(micros)
    days, rest = divmod(micros, 86_400_000_000)
    hours, rest = divmod(rest, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, rest = divmod(rest, 1_000_000)
    return f"{sign}{days} {hours:02d}:{minutes:02d}:{seconds:02d}.{rest // 1000:03d}"


def months_text(months: int) -> str:
    """An interval year to month as Athena prints it: ``3-5``."""
    sign = "-" if months < 0 else ""
    return f"{sign}{abs(months) // 12}-{abs(months) % 12}"


_TIMESTAMP = re.compile(r"timestamp\((\d+)\)")
_DECIMAL = re.compile(r"decimal\(\s*\d+\s*,\s*(\d+)\s*\)")


def fraction_digits(athena: str) -> Optional[int]:
    """The fraction digits of a column whose Athena type is ``athena`` when it is a
    timestamp(p) (p) or a decimal(p,s) (s); None: neither."""
    found = _TIMESTAMP.fullmatch(athena.strip()) or _DECIMAL.fullmatch(athena.strip())
    return int(found.group(1)) if found else None


# ColumnInfo's Precision of the types whose precision is not in their name, as Athena
# reports them (PyAthena's test suite, recorded from Athena: tests/pyathena/.../test_cursor.py
# ``description``); a decimal(p,s) is p and s, a varchar(n) n, a timestamp(p) p.
_PRECISION = {
    "tinyint": 3,
    "smallint": 5,
    "integer": 10,
    "bigint": 19,
    "real": 17,  # Athena names a Hive float column's type "float", precision 17
    "float": 17,
    "double": 17,
    "varchar": 2147483647,
    "timestamp": 3,
    "time": 3,
    "timestamp with time zone": 3,
    "varbinary": 1073741824,
}
_SIZED = re.compile(r"(?P<base>[a-z ]+?)\s*\((?P<p>\d+)(?:\s*,\s*(?P<s>\d+))?\)(?P<rest>.*)")


def column_info(athena: str) -> Tuple[str, int, int]:
    """ColumnInfo's ``Type``, ``Precision`` and ``Scale`` of a column of Athena type
    ``athena``: ``decimal(36,8)`` is ("decimal", 36, 8), ``varchar`` ("varchar",
    2147483647, 0), ``timestamp(6) with time zone`` ("timestamp with time zone", 6, 0),
    ``array(integer)`` ("array", 0, 0)."""
    text = athena.strip().lower()
    if text == "real":  # Athena names it as Hive does (PyAthena's recorded ColumnInfo)
        return "float", _PRECISION["real"], 0
    if text.startswith(("array", "map", "row")):
        return text.split("(", 1)[0].strip(), 0, 0
    sized = _SIZED.fullmatch(text)
    if sized:
        base = (sized.group("base") + sized.group("rest")).strip()
        return base, int(sized.group("p")), int(sized.group("s") or 0)
    return text, _PRECISION.get(text, 0), 0
