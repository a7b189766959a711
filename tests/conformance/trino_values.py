"""Values of Trino's tests as Athena prints them (GetQueryResults text) with their Trino
type: Java values of ``isEqualTo(...)`` (``123L``, ``754.1985f``, ``decimal("12345",
createDecimalType(5, 2))``, ``ImmutableList.of(...)``) and SQL literals of ``matches(...)``
(``TIMESTAMP '2020-05-01 12:34:56.1'``, ``VALUES (1, 'a'), (2, 'b')``). What cannot be
rendered with certainty raises ``Skip`` with the reason counted in EXTRACTION.md."""

from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, List, Optional, Tuple


class Skip(Exception):
    """An assertion not converted; ``args[0]`` is the reason (a short, stable phrase)."""

    @property
    def reason(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class JValue:
    """A Java value of a test: ``kind`` is long/int/short/byte/double/float/bool/str/null/
    list/map/decimal/varbinary/type/code/char; ``type`` the Trino type it has, where the
    Java class says it with certainty."""

    kind: str
    value: Any
    type: Optional[str] = None


_INT_TYPES = {"long": "bigint", "int": "integer", "short": "smallint", "byte": "tinyint"}
_JAVA_TYPES = {**_INT_TYPES, "double": "double", "float": "real", "bool": "boolean"}
_INT_RANGES = {
    "bigint": 2**63,
    "integer": 2**31,
    "smallint": 2**15,
    "tinyint": 2**7,
}


def jvalue(kind: str, value: Any) -> JValue:
    return JValue(kind, value, _JAVA_TYPES.get(kind))


# ---------------------------------------------------------------------------------------
# Java's text of floating-point numbers (Double.toString, Float.toString)


def _java_notation(digits: str, exponent: int, negative: bool) -> str:
    """``digits`` (no leading zeros) times 10**exponent, the first digit's place being
    exponent: Java's decimal form for 1e-3 <= |x| < 1e7, else ``d.dddE<n>``."""
    sign = "-" if negative else ""
    if -3 <= exponent < 7:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            fraction = digits[exponent + 1 :] or "0"
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _special(x: float) -> Optional[str]:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    return None


def _shortest(text: str) -> Tuple[str, int, bool]:
    """(significant digits, exponent of the first, negative) of a number's text."""
    sign, digits, exp = Decimal(text).normalize().as_tuple()
    return "".join(map(str, digits)), int(exp) + len(digits) - 1, bool(sign)


def java_double(x: float) -> str:
    special = _special(x)
    if special is not None:
        return special
    return _java_notation(*_shortest(repr(x)))


def _to_float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def java_float(x: float) -> str:
    special = _special(x)
    if special is not None:
        return special
    x = _to_float32(x)
    for precision in range(1, 10):
        text = f"{x:.{precision - 1}e}"
        if _to_float32(float(text)) == x:
            return _java_notation(*_shortest(text))
    raise Skip("a real value without a shortest text")  # pragma: no cover


# ---------------------------------------------------------------------------------------
# Java values as Athena's text


def decimal_text(unscaled: int, scale: int) -> str:
    """BigDecimal(unscaled, scale).toPlainString()."""
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    if scale == 0:
        return sign + digits
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def text(value: JValue, nested: bool = False) -> Optional[str]:
    """A Java value as Athena prints it (None: SQL NULL; inside an array or map, ``null``)."""
    kind, v = value.kind, value.value
    if kind == "null":
        return "null" if nested else None
    if kind in _INT_TYPES or kind == "decimal":
        return str(v)
    if kind == "double":
        return java_double(v)
    if kind == "float":
        return java_float(v)
    if kind == "bool":
        return "true" if v else "false"
    if kind == "str":
        return v
    if kind == "varbinary":
        return " ".join(f"{b:02x}" for b in v)
    if kind == "list":
        return "[" + ", ".join(str(text(e, True)) for e in v) + "]"
    if kind == "map":
        return "{" + ", ".join(f"{text(k, True)}={text(e, True)}" for k, e in v) + "}"
    raise Skip(f"expected Java value of kind {kind}")


def java_type_of(value: JValue) -> Optional[str]:
    """The Trino type a Java value's class implies (Long is bigint, ...); None where several
    could (a List is an array or a row, a String varchar, char or json)."""
    return value.type


# ---------------------------------------------------------------------------------------
# SQL literals (the expected side of matches(...))

_DATETIME = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"
_ZONE = r"(?:[+-]\d{2}:\d{2}|UTC|[A-Z][A-Za-z_]+(?:/[A-Za-z_]+)+)"
_TIMESTAMP = re.compile(rf"({_DATETIME})(?:\.(\d{{1,12}}))?(?: ?({_ZONE}))?")
_TIME = re.compile(r"(\d{2}:\d{2}:\d{2})(?:\.(\d{1,12}))? ?([+-]\d{2}:\d{2})?")
_TYPED = re.compile(r"(?is)([a-z][a-z ]*?)\s*'((?:[^']|'')*)'")
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def split_top(sql: str, sep: str = ",") -> List[str]:
    """``sql`` split at ``sep`` outside quotes, parentheses and brackets."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(sql):
        ch = sql[i]
        if ch in "'\"":
            i = sql.index(ch, i + 1) + 1
            while i < len(sql) and sql[i] == ch:  # a doubled quote
                i = sql.index(ch, i + 1) + 1
            continue
        depth += (ch in "([" and 1) or (-1 if ch in ")]" else 0)
        if depth == 0 and sql.startswith(sep, i):
            parts.append(sql[start:i].strip())
            start = i + len(sep)
        i += 1
    parts.append(sql[start:].strip())
    return parts


def normal_type(name: str) -> str:
    """A SQL type name as typeof prints it: lower case, single spaces, no space after a
    comma inside parentheses of precisions (``decimal(5,2)``), `int` is `integer`."""
    t = " ".join(name.lower().split())
    t = re.sub(r"\s*\(\s*", "(", t)
    t = re.sub(r"\s*\)", ")", t)
    t = re.sub(r"(\d)\s*,\s*(\d)", r"\1,\2", t)
    t = re.sub(r",\s*", ", ", t)
    t = re.sub(r"\bint\b", "integer", t)
    if t in ("timestamp", "time"):
        t += "(3)"
    return t


def sql_literal(sql: str) -> Tuple[Optional[str], str]:
    """(Athena's text, Trino type) of one SQL literal; Skip for anything else."""
    s = sql.strip()
    low = s.lower()
    if low == "null":
        return None, "unknown"
    if low in ("true", "false"):
        return low, "boolean"
    if _NUMBER.fullmatch(s):
        return _number_literal(s)
    if low.startswith("interval"):
        raise Skip("expected interval literal")
    if s.startswith("'") and s.endswith("'") and _TYPED.fullmatch("varchar" + s):
        value = s[1:-1].replace("''", "'")
        return value, f"varchar({len(value)})"
    cast = re.fullmatch(r"(?is)cast\s*\(\s*null\s+as\s+(.+)\)", s)
    if cast:
        return None, normal_type(cast.group(1))
    if re.match(r"(?i)array\s*\[", s) and s.endswith("]"):
        return _array_literal(s[s.index("[") + 1 : -1])
    if re.fullmatch(r"(?i)x'[0-9a-f\s]*'", s):
        hexdigits = re.sub(r"\s", "", s[2:-1]).lower()
        return " ".join(hexdigits[i : i + 2] for i in range(0, len(hexdigits), 2)), "varbinary"
    typed = _TYPED.fullmatch(s)
    if typed:
        return typed_literal(" ".join(typed.group(1).lower().split()), typed.group(2))
    raise Skip("expected value is an expression, not a literal")


def _number_literal(s: str) -> Tuple[str, str]:
    if re.search(r"[eE]", s):
        return java_double(float(s)), "double"
    if "." in s:
        return decimal_literal(s)
    value = int(s)
    return str(value), "integer" if -(2**31) <= value < 2**31 else "bigint"


def decimal_literal(s: str) -> Tuple[str, str]:
    m = re.fullmatch(r"([-+]?)(\d*)(?:\.(\d*))?", s.strip())
    if not m or not (m.group(2) or m.group(3)):
        raise Skip("expected decimal literal not read")
    whole, fraction = m.group(2).lstrip("0"), m.group(3) or ""
    precision = max(len(whole) + len(fraction), 1)
    if precision > 38:
        raise Skip("expected decimal literal over 38 digits")
    unscaled = int((whole or "0") + fraction) * (-1 if m.group(1) == "-" else 1)
    if unscaled == 0 and m.group(1) == "-":
        raise Skip("expected negative zero decimal")
    return decimal_text(unscaled, len(fraction)), f"decimal({precision},{len(fraction)})"


def _integer(value: str, type_name: str) -> Tuple[str, str]:
    if not re.fullmatch(r"[-+]?\d+", value.strip()):
        raise Skip(f"expected {type_name} literal not read")
    number = int(value)
    bound = _INT_RANGES[type_name]
    if not -bound <= number < bound:
        raise Skip(f"expected {type_name} literal out of range")
    return str(number), type_name


def _floating(type_name: str, value: str) -> Tuple[str, str]:
    if not re.fullmatch(r"[-+]?[\d.eE+-]+|NaN|[-+]?Infinity", value):
        raise Skip(f"expected {type_name} literal not read")
    number = float(value)
    return (
        (java_double(number), "double") if type_name == "double" else (java_float(number), "real")
    )


_SIMPLE_LITERALS = {  # type: (the value's pattern, its text, its type)
    "date": (r"\d{4}-\d{2}-\d{2}", str, lambda v: "date"),
    "varchar": (r"(?s).*", str, lambda v: "varchar"),
    "char": (r"(?s).*", str, lambda v: f"char({len(v)})"),
    "uuid": (r"[0-9a-fA-F-]{36}", str.lower, lambda v: "uuid"),
    "ipaddress": (r"\d{1,3}(?:\.\d{1,3}){3}", str, lambda v: "ipaddress"),
}


def typed_literal(type_name: str, value: str) -> Tuple[Optional[str], str]:
    value = value.replace("''", "'")
    if type_name in ("bigint", "integer", "int", "smallint", "tinyint"):
        return _integer(value, normal_type(type_name))
    if type_name in ("double", "real"):
        return _floating(type_name, value)
    if type_name == "decimal":
        return decimal_literal(value)
    if type_name == "timestamp":
        return _timestamp_literal(value)
    if type_name == "time":
        return _time_literal(value)
    simple = _SIMPLE_LITERALS.get(type_name)
    if simple and re.fullmatch(simple[0], value):
        return simple[1](value), simple[2](value)
    raise Skip(f"expected {type_name.split()[0]} literal")


def _timestamp_literal(value: str) -> Tuple[str, str]:
    m = _TIMESTAMP.fullmatch(value)
    if not m:
        raise Skip("expected timestamp literal not in canonical form")
    fraction = m.group(2) or ""
    shown = m.group(1) + (f".{fraction}" if fraction else "")
    if m.group(3):
        return f"{shown} {m.group(3)}", f"timestamp({len(fraction)}) with time zone"
    return shown, f"timestamp({len(fraction)})"


def _time_literal(value: str) -> Tuple[str, str]:
    m = _TIME.fullmatch(value)
    if not m:
        raise Skip("expected time literal not in canonical form")
    fraction = m.group(2) or ""
    shown = m.group(1) + (f".{fraction}" if fraction else "")
    if m.group(3):
        return shown + m.group(3), f"time({len(fraction)}) with time zone"
    return shown, f"time({len(fraction)})"


def _array_literal(body: str) -> Tuple[str, str]:
    items = [sql_literal(e) for e in split_top(body)] if body.strip() else []
    element = unify_types([t for _, t in items])
    return "[" + ", ".join("null" if v is None else v for v, _ in items) + "]", f"array({element})"


_INT_ORDER = ["tinyint", "smallint", "integer", "bigint"]


def unify_types(types: List[str]) -> str:
    """The common type of literals whose text does not change under the coercion (integers
    widen, varchar(n) to the longest); Skip where coercion would change a value's text."""
    known = sorted({t for t in types if t != "unknown"})
    if len(known) <= 1:
        return known[0] if known else "unknown"
    if all(t in _INT_ORDER for t in known):
        return max(known, key=_INT_ORDER.index)
    lengths = [re.fullmatch(r"varchar\((\d+)\)", t) for t in known]
    if all(lengths):
        return f"varchar({max(int(m.group(1)) for m in lengths if m)})"
    if "varchar" in known and all(t.startswith("varchar") for t in known):
        return "varchar"
    raise Skip("expected values of different types (coercion would change their text)")


def values_rows(sql: str) -> Tuple[List[List[Optional[str]]], List[str]]:
    """Rows and column types of ``VALUES r1, r2, ...`` of literals."""
    m = re.fullmatch(r"(?is)\s*values\s+(.*?)\s*;?\s*", sql)
    if not m:
        raise Skip("expected result is a query, not VALUES")
    rows: List[List[Tuple[Optional[str], str]]] = []
    for item in split_top(m.group(1)):
        row = re.fullmatch(r"(?is)(?:row\s*)?\((.*)\)", item)
        if row and split_top(row.group(1)) and _balanced(row.group(1)):
            rows.append([sql_literal(v) for v in split_top(row.group(1))])
        else:
            rows.append([sql_literal(item)])
    if len({len(r) for r in rows}) != 1:
        raise Skip("VALUES rows of different widths")
    types = [unify_types([r[i][1] for r in rows]) for i in range(len(rows[0]))]
    return [[v for v, _ in r] for r in rows], types


def _balanced(body: str) -> bool:
    depth = 0
    for part in re.sub(r"'(?:[^']|'')*'", "", body):
        depth += {"(": 1, ")": -1}.get(part, 0)
        if depth < 0:
            return False
    return depth == 0
