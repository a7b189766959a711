"""The Athena type and the seed value of a literal, as Trino types it, and whether a Hive or an
Iceberg table's column holds it (column_forms.py lifts the literals). Pure: the standard
library.

Trino's rules (``io.trino.sql.analyzer.ExpressionAnalyzer``: ``visitLongLiteral``,
``visitDecimalLiteral``, ``visitDoubleLiteral``, ``visitGenericLiteral``): an integer
literal is integer when it fits 32 bits, else bigint; a literal with a point is
decimal(p,s), p and s as ``io.trino.spi.type.Decimals.parse`` counts them (leading zeros
are no digits, p at least 1); one with an exponent is double; a typed literal has its type
(``TIMESTAMP '... .123'`` is timestamp(3): its precision is its digits of fractional
seconds). Values are given in the forms ``athena_spark_emulator.accounts.glue_types``
accepts for a seed row.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Tuple

HIVE = "hive"
ICEBERG = "iceberg"
KINDS = (HIVE, ICEBERG)
#: the timestamp precision of each table format's ``timestamp`` columns
TIMESTAMP_PRECISION = {HIVE: 3, ICEBERG: 6}

INT_RANGES = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "integer": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
_GLUE_SCALARS = {
    "tinyint": "tinyint",
    "smallint": "smallint",
    "integer": "int",
    "bigint": "bigint",
    "real": "float",
    "double": "double",
    "boolean": "boolean",
    "varchar": "string",
    "date": "date",
    "varbinary": "binary",
}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP = re.compile(
    r"(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}(?::\d{2})?)(?:(?<=:\d{2}:\d{2})\.(\d{1,12}))?"
)
_DECIMAL = re.compile(r"([+-]?)0*(\d*)(?:\.(\d*))?")


@dataclass(frozen=True)
class Type:
    """The Athena type of a liftable value; ``precision``: a timestamp literal's digits of
    fractional seconds (timestamps anywhere inside)."""

    name: str  # "integer", "decimal(2,1)", "array", "row", "timestamp"
    children: Tuple[Type, ...] = ()
    precision: Optional[int] = None

    def athena(self, kind: str) -> str:
        if self.name == "timestamp":
            return f"timestamp({TIMESTAMP_PRECISION[kind]})"
        if self.name == "array":
            return f"array({self.children[0].athena(kind)})"
        if self.name == "row":
            fields = ", ".join(f"field{i} {c.athena(kind)}" for i, c in enumerate(self.children))
            return f"row({fields})"
        return self.name

    def glue(self) -> str:
        if self.name == "timestamp":
            return "timestamp"
        if self.name == "array":
            return f"array<{self.children[0].glue()}>"
        if self.name == "row":
            fields = ",".join(f"field{i}:{c.glue()}" for i, c in enumerate(self.children))
            return f"struct<{fields}>"
        return _GLUE_SCALARS.get(self.name, self.name)  # decimal(p,s) is its own Glue name

    def held_by(self, kind: str) -> bool:
        """Whether a ``kind`` table's column holds this type's values exactly."""
        if kind == ICEBERG and self.name in ("tinyint", "smallint"):
            return False
        if self.name == "row":
            return False  # a struct column's fields have names; an anonymous ROW's have none
        if self.name == "timestamp":
            # no fractional seconds: the Hive column's .000 is what harness rule 5 drops
            return self.precision == TIMESTAMP_PRECISION[kind] or (
                self.precision == 0 and kind == HIVE
            )
        return all(c.held_by(kind) for c in self.children)

    def same(self, other: Type) -> bool:
        return (self.name, self.children, self.precision) == (
            other.name,
            other.children,
            other.precision,
        )


@dataclass(frozen=True)
class Value:
    """A liftable value: its type and the value a seed row holds (glue_types' forms)."""

    type: Type
    value: Any


def integer_type(number: int) -> Optional[str]:
    """Trino's type of an integer literal: integer, else bigint (None: wider)."""
    for name in ("integer", "bigint"):
        low, high = INT_RANGES[name]
        if low <= number <= high:
            return name
    return None


def decimal_type(text: str) -> Optional[Tuple[int, int, str]]:
    """(precision, scale, the value's text) of a decimal literal, as
    ``io.trino.spi.type.Decimals.parse`` counts them: leading zeros are no digits, and
    precision is at least 1 (None: not a decimal, or more than 38 digits)."""
    match = _DECIMAL.fullmatch(text.strip())
    if match is None or not (match.group(2) or match.group(3) or "0" in text):
        return None
    sign, integral, fraction = match.group(1), match.group(2), match.group(3) or ""
    scale = len(fraction)
    precision = max(len(integral) + scale, 1)
    if precision > 38:
        return None
    return precision, scale, f"{'-' if sign == '-' else ''}{integral or '0'}.{fraction}"


def number_value(text: str) -> Optional[Value]:
    """A number literal as written: integer/bigint, decimal (a point) or double (an
    exponent)."""
    if re.fullmatch(r"\d+", text):
        name = integer_type(int(text))
        return Value(Type(name), int(text)) if name else None
    if re.search(r"[eE]", text):
        return Value(Type("double"), float(text))
    parsed = decimal_type(text)
    if parsed is None:
        return None
    precision, scale, value = parsed
    return Value(Type(f"decimal({precision},{scale})"), value.rstrip(".") if not scale else value)


def typed_literal_value(word: str, text: str) -> Optional[Value]:
    """``<word> '<text>'``: DATE, TIMESTAMP, DECIMAL, REAL, DOUBLE and the integer types, as
    a table can hold them (None: another type, or a value we do not read exactly)."""
    reader = _TYPED_READERS.get(word.lower())
    return reader(word.lower(), text.strip()) if reader else None


def _date_value(word: str, text: str) -> Optional[Value]:
    if not _DATE.fullmatch(text):
        return None
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return None
    return Value(Type("date"), text)


def _decimal_value(word: str, text: str) -> Optional[Value]:
    if re.match(r"[+-]?0\d", text):
        return None  # leading zeros: see the module's docstring
    parsed = decimal_type(text)
    if parsed is None:
        return None
    precision, scale, value = parsed
    return Value(Type(f"decimal({precision},{scale})"), value)


def _floating_value(word: str, text: str) -> Optional[Value]:
    try:
        number = float(text)
    except ValueError:
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return Value(Type(word), number)


def _integer_value(word: str, text: str) -> Optional[Value]:
    if not re.fullmatch(r"[+-]?\d+", text):
        return None
    low, high = INT_RANGES[word]
    number = int(text)
    return Value(Type(word), number) if low <= number <= high else None


def _timestamp_value(text: str) -> Optional[Value]:
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        return None
    day, clock, fraction = match.group(1), match.group(2), match.group(3) or ""
    try:
        datetime.datetime.fromisoformat(f"{day} {clock}")
    except ValueError:
        return None
    if len(fraction) > 6:
        return None
    return Value(Type("timestamp", precision=len(fraction)), text)


_TYPED_READERS = {
    "date": _date_value,
    "timestamp": lambda word, text: _timestamp_value(text),
    "decimal": _decimal_value,
    "real": _floating_value,
    "double": _floating_value,
    **{name: _integer_value for name in INT_RANGES},
}


def common_type(values: Sequence[Optional[Value]]) -> Optional[Type]:
    """The one type of non-NULL values (None: none, or two types)."""
    types = [v.type for v in values if v is not None]
    if not types or any(not t.same(types[0]) for t in types[1:]):
        return None
    return types[0]
