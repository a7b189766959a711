"""Results as Athena writes them: the ``GetQueryResults`` column type and text of a Spark
value (what pyathena and dbt-athena parse). Pure: no Spark session, no moto.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
from typing import Any, Optional, Tuple

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


def athena_value(value: Any, spark_type: str = "", digits: Optional[int] = None) -> Optional[str]:
    """A value as Athena's result text (None: SQL NULL, sent without ``VarCharValue``);
    ``spark_type`` is the class name of the column's Spark type, where it matters;
    ``digits`` the fraction digits of the column's Athena timestamp type
    (:func:`fraction_digits`: a timestamp(6) prints 6 digits, zeros too)."""
    if value is None:
        return None
    if spark_type == "YearMonthIntervalType" and isinstance(value, int):
        return months_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime.datetime, datetime.timedelta)):
        return time_text(value, digits)
    if isinstance(value, (datetime.date, decimal.Decimal, int, float, str)):
        return _non_finite(value) if isinstance(value, float) else str(value)
    if isinstance(value, (bytes, bytearray)):
        return " ".join(f"{b:02x}" for b in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{athena_value(k)}={_nested(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        if hasattr(value, "asDict"):  # a Spark Row: Athena's row text
            return _row_text(value)
        return "[" + ", ".join(_nested(v) for v in value) + "]"
    return str(value)


def _non_finite(value: float) -> str:
    """A double's text; NaN and the infinities as Java names them."""
    if math.isfinite(value):
        return str(value)
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _row_text(row: Any) -> Optional[str]:
    fields = getattr(row, "__fields__", None) or []
    if fields and fields[0] in _TEXT_STRUCTS:  # a zoned or time-of-day value: its text
        return str(row[0])
    return athena_value(row.asDict())


def _nested(value: Any) -> str:
    text = athena_value(value)
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


def fraction_digits(athena: str) -> Optional[int]:
    """The fraction digits of a column whose Athena type is ``athena`` when it is a
    timestamp(p) (None: not one)."""
    found = _TIMESTAMP.fullmatch(athena.strip())
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
    if text.startswith(("array", "map", "row")):
        return text.split("(", 1)[0].strip(), 0, 0
    sized = _SIZED.fullmatch(text)
    if sized:
        base = (sized.group("base") + sized.group("rest")).strip()
        return base, int(sized.group("p")), int(sized.group("s") or 0)
    return text, _PRECISION.get(text, 0), 0
