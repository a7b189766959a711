"""Decimal functions and operators (Trino's ``functions/decimal.md``): format() of decimal
values with Java's Formatter (%s %d %f of a BigDecimal, which Spark's format_string has
not), a case of conversion.py's FORMATS. Decimal division is math.py's. Examples:
``tests/conformance/examples/decimal.yml``.
"""

from __future__ import annotations

import datetime
import decimal
import re
from typing import Any, Callable, Dict, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion import FORMATS
from athena_spark_emulator.sql.functions.table import Refused
from athena_spark_emulator.sql.spark_forms import (
    is_date,
    is_decimal,
    is_integral,
    is_text,
    literal_text,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import Unsupported, udf, udf_call

# ---- format() with decimals: Java's Formatter for %s %d %f (Spark's has no BigDecimal) ---------
_SPECIFIER = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([tT][a-zA-Z]|[a-zA-Z%])")
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DATE_PARTS: Dict[str, Callable[[datetime.date], str]] = {
    "A": lambda d: _DAYS[d.weekday()],
    "a": lambda d: _DAYS[d.weekday()][:3],
    "B": lambda d: _MONTHS[d.month - 1],
    "b": lambda d: _MONTHS[d.month - 1][:3],
    "h": lambda d: _MONTHS[d.month - 1][:3],
    "C": lambda d: f"{d.year // 100:02d}",
    "Y": lambda d: f"{d.year:04d}",
    "y": lambda d: f"{d.year % 100:02d}",
    "j": lambda d: f"{d.timetuple().tm_yday:03d}",
    "m": lambda d: f"{d.month:02d}",
    "d": lambda d: f"{d.day:02d}",
    "e": lambda d: str(d.day),
    "D": lambda d: f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}",
    "F": lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}",
}


def _date_part(found: re.Match, value: Any, flags: str, width: Optional[int]) -> str:
    """Java's %t conversions of a LocalDate (Trino's date), in English."""
    conv = found.group(5)
    part = _DATE_PARTS.get(conv[1])
    if (
        part is None
        or type(value) is not datetime.date
        or found.group(4)
        or set(flags) - {"-"}
        or ("-" in flags and width is None)
    ):
        raise Unsupported(f"format with the specifier {found.group(0)} of {type(value).__name__}")
    text = part(value)
    return _pad(text.upper() if conv[0] == "T" else text, flags, width)


def _pad(text: str, flags: str, width: Optional[int]) -> str:
    if width is None:
        return text
    return text.ljust(width) if "-" in flags else text.rjust(width)


def _number_spec(flags: str, width: Optional[int], precision: Optional[int], conv: str) -> str:
    if set(flags) - set("-+ 0,") or (("-" in flags or "0" in flags) and width is None):
        raise Unsupported(f"format with the flags {flags!r}")
    if ("-" in flags and "0" in flags) or ("+" in flags and " " in flags):
        raise Unsupported(f"format with the flags {flags!r}")
    if "0" in flags and "," in flags:
        raise Unsupported("format with both the flags 0 and ,")
    sign = "+" if "+" in flags else (" " if " " in flags else "-")
    spec = ("<" if "-" in flags else "") + sign + ("0" if "0" in flags else "")
    spec += str(width or "") + ("," if "," in flags else "")
    return spec + (f".{precision}f" if conv == "f" else "d")


def java_format(fmt: str, values: tuple) -> str:
    """``fmt`` filled as Java's String.format does, for %s (text, integers, decimals), %d
    (integers), %f (decimals), %% and %n; anything else is refused."""
    out, last, ordinary = [], 0, [0]
    for found in _SPECIFIER.finditer(fmt):
        out.append(fmt[last : found.start()])
        last = found.end()
        out.append(_specifier(found, values, ordinary))
    out.append(fmt[last:])
    return "".join(out)


def _argument(found: re.Match, values: tuple, ordinary: list) -> Any:
    """The value a specifier formats: its explicit index, or the next ordinary one."""
    index = found.group(1)
    if index:
        position = int(index[:-1]) - 1
    else:
        position = ordinary[0]
        ordinary[0] += 1
    if not 0 <= position < len(values):
        raise Unsupported(f"format with the specifier {found.group(0)} (no such argument)")
    return values[position]


def _specifier(found: re.Match, values: tuple, ordinary: list) -> str:
    index, flags, width_text, precision_text, conv = found.groups()
    width = int(width_text) if width_text else None
    precision = int(precision_text[1:]) if precision_text else None
    if conv in "%n":
        if index or flags or width_text or precision_text:
            raise Unsupported(f"format with the specifier {found.group(0)}")
        return "%" if conv == "%" else "\n"
    if "<" in flags or (conv not in "sdf" and conv[0] not in "tT"):
        raise Unsupported(f"format with the specifier {found.group(0)}")
    value = _argument(found, values, ordinary)
    if conv[0] in "tT" and value is not None:
        return _date_part(found, value, flags, width)
    if conv == "s" or value is None:
        if set(flags) - {"-"} or ("-" in flags and width is None):
            raise Unsupported(f"format with the specifier {found.group(0)}")
        text = "null" if value is None else str(value)
        return _pad(text[:precision] if precision is not None else text, flags, width)
    integral = isinstance(value, int) and not isinstance(value, bool)
    if conv == "d" and integral and precision is None:
        return format(value, _number_spec(flags, width, None, "d"))
    if conv == "f" and isinstance(value, decimal.Decimal):
        digits = 6 if precision is None else precision
        rounded = value.quantize(decimal.Decimal(1).scaleb(-digits), decimal.ROUND_HALF_UP)
        return format(rounded, _number_spec(flags, width, digits, "f"))
    raise Unsupported(f"format with the specifier {found.group(0)} of {type(value).__name__}")


@udf("format", "string")
def format_values(fmt: Optional[str], *values: Any) -> Optional[str]:
    if fmt is None:
        return None
    stray = _SPECIFIER.sub("", fmt)
    if "%" in stray:
        raise Unsupported(f"format with the format string {fmt!r}")
    return java_format(fmt, values)


def _format_decimals(node: exp.Expression) -> exp.Expression:
    for arg in node.expressions:
        kind = type_of(arg)
        literal = literal_text(arg) is not None
        known = is_integral(kind) or is_decimal(kind) or is_date(kind)
        if not (literal or known or is_text(kind)):
            raise Refused(
                f"{node.sql('athena')} (format of a decimal with a value other than a decimal, integer or text)"
            )
    values = [
        spark("CAST(_0 AS BIGINT)", a) if is_integral(type_of(a)) else a for a in node.expressions
    ]
    return typed(udf_call("format", node.this, *values), "varchar")


@FORMATS.register(20, "decimals and dates among other values (Java's Formatter)")
def _format_of_decimals(node: exp.Expression) -> Optional[exp.Expression]:
    kinds = [type_of(a) for a in node.expressions]
    if any(is_decimal(k) or is_date(k) for k in kinds):
        return _format_decimals(node)
    return None
