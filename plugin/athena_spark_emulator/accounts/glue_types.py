"""Glue (Hive DDL) column types of seed tables: parse a type, check that a seed value fits it
and convert it to the value the table holds. Pure: the standard library only.

Grammar (case-insensitive names, any spaces)::

    tinyint | smallint | int | integer | bigint | float | double | boolean | string
    | decimal | decimal(p) | decimal(p,s)      1 <= p <= 38, 0 <= s <= p (decimal: (10,0))
    | varchar(n) (1..65535) | char(n) (1..255) | date | timestamp | binary
    | array<T> | map<K,V> (K primitive) | struct<name:T, ...>

What fits (checked, never coerced: a value that does not fit is an error, not a NULL):

* integers: Python ints (not booleans) in the type's range;
* float, double: numbers (a float must fit 32 bits);
* decimal(p,s): numbers or strings of digits (``"12.50"``: exact), with at most s digits
  after the point and p-s before it;
* boolean: true/false; string, varchar(n), char(n): strings (at most n characters; char(n)
  is held padded with spaces to n, as Hive holds it);
* date: ``YYYY-MM-DD`` (a string, or the date YAML reads from an unquoted one);
* timestamp: ``YYYY-MM-DD HH:MM:SS[.ffffff]`` (or ``T`` between; or YAML's unquoted
  timestamp), without a time zone;
* binary: a string (its UTF-8 bytes) or YAML's ``!!binary``;
* array<T>: a list; map<K,V>: a mapping (numeric keys may be strings of digits, as JSON
  object keys are); struct<...>: a mapping by field name (missing fields are NULL) or a list
  in field order. ``null`` fits every type.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import difflib
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

INTEGERS = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
SIMPLE = {*INTEGERS, "float", "double", "boolean", "string", "date", "timestamp", "binary"}
PRIMITIVES = SIMPLE | {"decimal", "varchar", "char"}
ALIASES = {"integer": "int"}
NESTED = {"array", "map", "struct"}
SYNTAX = (
    "tinyint, smallint, int, bigint, float, double, decimal(p,s), boolean, string, "
    "varchar(n), char(n), date, timestamp, binary, array<T>, map<K,V>, struct<name:T,...>"
)
FLOAT_MAX = 3.4028234663852886e38
_TOKEN = re.compile(r"\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(\d+)|(`(?:[^`]|``)+`)|([<>(),:]))")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?")
_DECIMAL_TEXT = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_INTEGER_TEXT = re.compile(r"[+-]?\d+")


class GlueTypeError(ValueError):
    """A column type that is not a Glue type; the message says what is wrong."""


class ValueMismatch(ValueError):
    """A value that does not fit its type. ``path``: where inside a nested value (list
    indexes, map keys, struct fields), empty for the value itself."""

    def __init__(self, message: str, path: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.path = list(path)


@dataclass(frozen=True)
class GlueType:
    """A parsed type: ``name`` (canonical, lower-case) with ``params`` (decimal's precision
    and scale, varchar/char's length) or ``children`` (array: element; map: key, value;
    struct: the fields' types, named by ``fields``)."""

    name: str
    params: Tuple[int, ...] = ()
    children: Tuple[GlueType, ...] = ()
    fields: Tuple[str, ...] = ()

    def __str__(self) -> str:
        """The canonical text, as Glue stores it (``decimal(10,2)``, ``map<string,int>``)."""
        if self.name == "array":
            return f"array<{self.children[0]}>"
        if self.name == "map":
            return f"map<{self.children[0]},{self.children[1]}>"
        if self.name == "struct":
            inner = ",".join(f"{_field(f)}:{t}" for f, t in zip(self.fields, self.children))
            return f"struct<{inner}>"
        if self.params:
            return f"{self.name}({','.join(str(p) for p in self.params)})"
        return self.name

    def walk(self) -> List[GlueType]:
        """This type and every type nested in it."""
        found = [self]
        for child in self.children:
            found.extend(child.walk())
        return found


def _field(name: str) -> str:
    plain = re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)
    return name if plain else "`" + name.replace("`", "``") + "`"


# ---- parsing ---------------------------------------------------------------------------------
def parse(text: str) -> GlueType:
    """The :class:`GlueType` of ``text``; :class:`GlueTypeError` naming the problem."""
    if not isinstance(text, str) or not text.strip():
        raise GlueTypeError(f"{text!r} is not a Glue column type (one of {SYNTAX})")
    tokens = _tokens(text)
    parser = _Parser(text, tokens)
    found = parser.type()
    if parser.position < len(tokens):
        parser.fail(f"unexpected {tokens[parser.position]!r} after {str(found)!r}")
    return found


def _tokens(text: str) -> List[str]:
    tokens, position = [], 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = _TOKEN.match(text, position)
        if not match:
            bad = text[position:].strip()[0]
            raise GlueTypeError(
                f"{text!r} is not a Glue column type: unexpected {bad!r} (types: {SYNTAX})"
            )
        tokens.append(next(g for g in match.groups() if g is not None))
        position = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str, tokens: List[str]) -> None:
        self.text, self.tokens, self.position = text, tokens, 0

    def fail(self, problem: str, types: bool = False) -> None:
        listed = f" (types: {SYNTAX})" if types else ""
        raise GlueTypeError(f"{self.text!r} is not a Glue column type: {problem}{listed}")

    def peek(self) -> Optional[str]:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self, expected: Optional[str] = None) -> str:
        token = self.peek()
        if token is None:
            self.fail(f"it ends where {expected!r} is expected" if expected else "it ends early")
        assert token is not None
        if expected is not None and token != expected:
            self.fail(f"expected {expected!r}, found {token!r}")
        self.position += 1
        return token

    def number(self, what: str) -> int:
        token = self.take()
        if not token.isdigit():
            self.fail(f"{what} is a number, not {token!r}")
        return int(token)

    def type(self) -> GlueType:
        word = self.take()
        name = ALIASES.get(word.lower(), word.lower())
        if name not in PRIMITIVES and name not in NESTED:
            close = difflib.get_close_matches(name, sorted(PRIMITIVES | NESTED | {"integer"}), 1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            self.fail(f"unknown type {word!r}{hint}", types=True)
        if name == "decimal":
            return self.decimal()
        if name in ("varchar", "char"):
            return self.sized(name)
        if name in NESTED:
            return self.nested(name)
        return GlueType(name)

    def decimal(self) -> GlueType:
        if self.peek() != "(":
            return GlueType("decimal", (10, 0))
        self.take("(")
        precision = self.number("decimal's precision")
        scale = 0
        if self.peek() == ",":
            self.take(",")
            scale = self.number("decimal's scale")
        self.take(")")
        if not 1 <= precision <= 38:
            self.fail(f"decimal's precision is 1 to 38, not {precision}")
        if scale > precision:
            self.fail(f"decimal's scale ({scale}) is at most its precision ({precision})")
        return GlueType("decimal", (precision, scale))

    def sized(self, name: str) -> GlueType:
        if self.peek() != "(":
            self.fail(f"{name} needs a length: {name}(n)")
        self.take("(")
        length = self.number(f"{name}'s length")
        self.take(")")
        limit = 65535 if name == "varchar" else 255
        if not 1 <= length <= limit:
            self.fail(f"{name}'s length is 1 to {limit}, not {length}")
        return GlueType(name, (length,))

    def nested(self, name: str) -> GlueType:
        self.take("<")
        if self.peek() == ">":
            self.fail(f"{name}<...> names the type(s) inside it")
        if name == "array":
            element = self.type()
            self.take(">")
            return GlueType("array", children=(element,))
        if name == "map":
            key = self.type()
            if key.name in NESTED:
                self.fail(f"a map's key is a primitive type, not {str(key)!r}")
            self.take(",")
            value = self.type()
            self.take(">")
            return GlueType("map", children=(key, value))
        fields: List[str] = []
        types: List[GlueType] = []
        while True:
            field = self.take()
            if field.startswith("`"):
                field = field[1:-1].replace("``", "`")
            elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", field):
                self.fail(f"a struct field needs a name before its type, found {field!r}")
            if field.lower() in (f.lower() for f in fields):
                self.fail(f"struct field {field!r} appears twice")
            self.take(":")
            fields.append(field)
            types.append(self.type())
            if self.peek() == ",":
                self.take(",")
                continue
            self.take(">")
            return GlueType("struct", children=tuple(types), fields=tuple(fields))


# ---- values ----------------------------------------------------------------------------------
def describe(value: Any) -> str:
    """How a seed value reads in an error: its YAML/JSON text and, when that misleads, what
    YAML made of it."""
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, datetime.datetime):
        return f"{value.isoformat(sep=' ')} (a timestamp)"
    if isinstance(value, datetime.date):
        return f"{value.isoformat()} (a date)"
    if isinstance(value, (bytes, bytearray)):
        return f"!!binary ({len(value)} bytes)"
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, decimal.Decimal)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, datetime.datetime):
        return "a timestamp"
    if isinstance(value, datetime.date):
        return "a date"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _mismatch(value: Any, kind: GlueType, fix: str) -> ValueMismatch:
    return ValueMismatch(f"{describe(value)} does not fit {kind}: {fix}")


def convert(value: Any, kind: Union[GlueType, str]) -> Any:
    """``value`` as the table holds it (ints, floats, Decimal, bool, str, date, datetime,
    bytes, list, dict); :class:`ValueMismatch` when it does not fit ``kind``."""
    kind = parse(kind) if isinstance(kind, str) else kind
    if value is None:
        return None
    return _CONVERTERS[kind.name](value, kind)


def _boolean(value: Any, kind: GlueType) -> bool:
    if not isinstance(value, bool):
        raise _mismatch(value, kind, f"{_kind(value)}; write true or false (unquoted)")
    return value


def _binary(value: Any, kind: GlueType) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise _mismatch(value, kind, f"{_kind(value)}; write a string (its UTF-8 bytes)")


def _array(value: Any, kind: GlueType) -> List[Any]:
    if not isinstance(value, list):
        raise _mismatch(value, kind, f"{_kind(value)}; write a list: [...]")
    return [_nested(item, kind.children[0], i) for i, item in enumerate(value)]


def _nested(value: Any, kind: GlueType, step: Any) -> Any:
    try:
        return convert(value, kind)
    except ValueMismatch as exc:
        raise ValueMismatch(exc.message, [step, *exc.path]) from None


def _integer(value: Any, kind: GlueType) -> int:
    low, high = INTEGERS[kind.name]
    if isinstance(value, float) and value.is_integer() and not isinstance(value, bool):
        raise _mismatch(value, kind, f"{kind} holds whole numbers: write {int(value)}")
    if not isinstance(value, int) or isinstance(value, bool):
        fix = "write a whole number (unquoted)"
        if isinstance(value, float):
            fix = "make the column double or decimal(p,s), or write a whole number"
            raise _mismatch(value, kind, f"a fraction; {fix}")
        raise _mismatch(value, kind, f"{_kind(value)}; {fix}")
    if not low <= value <= high:
        wider = {"tinyint": "smallint", "smallint": "int", "int": "bigint"}.get(kind.name)
        widen = f", or make the column {wider}" if wider else ""
        raise _mismatch(value, kind, f"out of {kind}'s range {low}..{high}{widen}")
    return value


def _floating(value: Any, kind: GlueType) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, decimal.Decimal)):
        raise _mismatch(value, kind, f"{_kind(value)}; write a number (unquoted)")
    number = float(value)  # a Decimal: from the Python API
    if kind.name == "float" and math.isfinite(number) and abs(number) > FLOAT_MAX:
        raise _mismatch(value, kind, "out of float's range (32 bits); make the column double")
    return number


def _decimal(value: Any, kind: GlueType) -> decimal.Decimal:
    precision, scale = kind.params
    if isinstance(value, bool) or not isinstance(value, (int, float, str, decimal.Decimal)):
        raise _mismatch(value, kind, f"{_kind(value)}; write a number, or a string of digits")
    if isinstance(value, str) and not _DECIMAL_TEXT.fullmatch(value.strip()):
        raise _mismatch(value, kind, 'not a number; write digits such as "12.50"')
    if isinstance(value, float) and not math.isfinite(value):
        raise _mismatch(value, kind, "a decimal is a finite number")
    # a float's shortest text: 10.1 is 10.1, not the binary fraction behind it
    number = decimal.Decimal(repr(value) if isinstance(value, float) else str(value).strip())
    exact = decimal.Context(prec=max(len(number.as_tuple().digits), 1))  # no rounding
    exponent = number.normalize(exact).as_tuple().exponent  # 1.50 has 1 significant place
    assert isinstance(exponent, int)
    places = max(0, -exponent)
    whole = max(0, number.adjusted() + 1) if number != 0 else 0
    if places > scale or whole > precision - scale:
        need_scale = max(places, scale)
        need = max(whole, precision - scale) + need_scale
        widen = (
            f"or make the column decimal({need},{need_scale})"
            if need <= 38
            else "no decimal(p,s) holds it (p <= 38): use double"
        )
        raise _mismatch(
            value,
            kind,
            f"{whole} digit(s) before the point and {places} after, {kind} holds "
            f"{precision - scale} and {scale}: round or shorten the value, {widen}",
        )
    return number.quantize(decimal.Decimal(1).scaleb(-scale), context=decimal.Context(prec=80))


def _text(value: Any, kind: GlueType) -> str:
    if not isinstance(value, str):
        what = _kind(value)
        why = {
            "a boolean": " (YAML reads unquoted yes/no/on/off/true/false as booleans)",
            "a date": " (YAML reads an unquoted YYYY-MM-DD as a date)",
            "a timestamp": " (YAML reads an unquoted date and time as a timestamp)",
        }.get(what, "")
        raise _mismatch(value, kind, f"{what}{why}; quote it")
    if kind.params and len(value) > kind.params[0]:
        raise _mismatch(
            value,
            kind,
            f"{len(value)} characters, {kind} holds {kind.params[0]}: shorten it or widen "
            "the column",
        )
    if kind.name == "char":
        return value.ljust(kind.params[0])
    return value


def _date(value: Any, kind: GlueType) -> datetime.date:
    if isinstance(value, datetime.datetime):
        raise _mismatch(value, kind, "a timestamp; write the date only: YYYY-MM-DD")
    if isinstance(value, datetime.date):
        return value
    match = _DATE.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise _mismatch(value, kind, f'{_kind(value)}; write a date as "YYYY-MM-DD"')
    try:
        return datetime.date(*(int(g) for g in match.groups()))
    except ValueError as exc:
        raise _mismatch(value, kind, f"not a calendar date ({exc})") from None


def _timestamp(value: Any, kind: GlueType) -> datetime.datetime:
    fix = 'write "YYYY-MM-DD HH:MM:SS[.ffffff]"'
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            raise _mismatch(value, kind, f"timestamp has no time zone; {fix} (UTC)")
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    match = _TIMESTAMP.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        if isinstance(value, str) and _DATE.fullmatch(value.strip()):
            match = _TIMESTAMP.fullmatch(value.strip() + " 00:00")
        if match is None:
            raise _mismatch(value, kind, f"{_kind(value)}; {fix}, without a time zone")
    year, month, day, hour, minute, second, fraction = match.groups()
    if fraction and len(fraction.rstrip("0")) > 6:
        raise _mismatch(value, kind, f"finer than microseconds; {fix}")
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        return datetime.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro
        )
    except ValueError as exc:
        raise _mismatch(value, kind, f"not a calendar time ({exc})") from None


def _map(value: Any, kind: GlueType) -> Dict[Any, Any]:
    if not isinstance(value, dict):
        raise _mismatch(value, kind, f"{_kind(value)}; write a mapping: {{key: value, ...}}")
    key_type, value_type = kind.children
    converted: Dict[Any, Any] = {}
    for key, item in value.items():
        if key is None:
            raise ValueMismatch(f"a map key is never null in {kind}", [key])
        raw = key
        if isinstance(key, str) and (
            (key_type.name in INTEGERS and _INTEGER_TEXT.fullmatch(key.strip()))
            or (key_type.name in ("float", "double") and _DECIMAL_TEXT.fullmatch(key.strip()))
        ):
            raw = int(key) if key_type.name in INTEGERS else float(key)
        new_key = _nested(raw, key_type, key)
        if new_key in converted:
            raise ValueMismatch(f"map key {describe(key)} appears twice in {kind}", [key])
        converted[new_key] = _nested(item, value_type, key)
    return converted


def _struct(value: Any, kind: GlueType) -> Dict[str, Any]:
    fields = list(kind.fields)
    if isinstance(value, list):
        if len(value) != len(fields):
            raise _mismatch(
                value,
                kind,
                f"{len(value)} value(s) for {len(fields)} field(s) ({', '.join(fields)})",
            )
        value = dict(zip(fields, value))
    if not isinstance(value, dict):
        raise _mismatch(value, kind, f"{_kind(value)}; write a mapping by field name")
    unknown = [k for k in value if k not in fields]
    if unknown:
        raise ValueMismatch(
            f"{describe(unknown[0])} is not a field of {kind} (fields: {', '.join(fields)})",
            [unknown[0]],
        )
    return {
        field: _nested(value.get(field), child, field)
        for field, child in zip(fields, kind.children)
    }


_CONVERTERS: Dict[str, Callable[[Any, GlueType], Any]] = {
    **{name: _integer for name in INTEGERS},
    "float": _floating,
    "double": _floating,
    "decimal": _decimal,
    "boolean": _boolean,
    "string": _text,
    "varchar": _text,
    "char": _text,
    "date": _date,
    "timestamp": _timestamp,
    "binary": _binary,
    "array": _array,
    "map": _map,
    "struct": _struct,
}


# ---- where the values go -------------------------------------------------------------------
def hive_json(value: Any, kind: GlueType) -> str:
    """The JSON text of a converted value in a Hive table's JSON file: decimals as exact
    numbers, dates ``YYYY-MM-DD``, timestamps ``YYYY-MM-DD HH:MM:SS.ffffff`` (Hive's text),
    binary base64, structs and maps as objects."""
    if value is None:
        return "null"
    name = kind.name
    if name == "decimal":
        return format(value, "f")
    if name == "date":
        return json.dumps(value.isoformat())
    if name == "timestamp":
        return json.dumps(value.isoformat(sep=" ", timespec="microseconds"))
    if name == "binary":
        return json.dumps(base64.b64encode(value).decode("ascii"))
    if name == "array":
        return "[" + ", ".join(hive_json(v, kind.children[0]) for v in value) + "]"
    if name == "map":
        key_type, value_type = kind.children
        return (
            "{"
            + ", ".join(
                f"{json.dumps(_key_text(k, key_type))}: {hive_json(v, value_type)}"
                for k, v in value.items()
            )
            + "}"
        )
    if name == "struct":
        return (
            "{"
            + ", ".join(
                f"{json.dumps(f)}: {hive_json(value.get(f), t)}"
                for f, t in zip(kind.fields, kind.children)
            )
            + "}"
        )
    return json.dumps(value)


def _key_text(key: Any, kind: GlueType) -> str:
    """A map key as a JSON object key (text; :func:`spark_json_columns` casts it back)."""
    if kind.name in ("date", "timestamp", "binary"):
        return str(json.loads(hive_json(key, kind)))
    if kind.name in ("boolean", "decimal"):
        return hive_json(key, kind)
    return str(key)


def hive_json_row(names: Sequence[str], types: Sequence[GlueType], values: Sequence[Any]) -> str:
    """One JSON line of a Hive table's file (values converted)."""
    return (
        "{"
        + ", ".join(f"{json.dumps(n)}: {hive_json(v, t)}" for n, t, v in zip(names, types, values))
        + "}"
    )


def json_map_keys_unsupported(kind: GlueType) -> Optional[GlueType]:
    """The first map in ``kind`` whose keys are not strings: Spark's JSON reader takes
    string map keys only, so :func:`spark_json_columns` reads them as strings and casts."""
    for nested in kind.walk():
        if nested.name == "map" and nested.children[0].name not in ("string", "varchar", "char"):
            return nested
    return None


def _json_cast(expr: str, kind: GlueType, depth: int = 0) -> Optional[str]:
    """A Spark SQL expression turning ``expr`` (read as :func:`spark_type` with string map keys) into
    ``kind``: map keys cast from their JSON text; None when nothing needs casting."""
    if json_map_keys_unsupported(kind) is None:
        return None
    var = f"x{depth}"
    if kind.name == "array":
        inner = _json_cast(var, kind.children[0], depth + 1)
        return f"transform({expr}, {var} -> {inner})"
    if kind.name == "map":
        key_type, value_type = kind.children
        values = _json_cast(f"v{depth}", value_type, depth + 1)
        if values is not None:
            expr = f"transform_values({expr}, (k{depth}, v{depth}) -> {values})"
        if key_type.name in ("string", "varchar", "char"):
            return expr
        key = (
            f"unbase64(k{depth})"
            if key_type.name == "binary"
            else (f"cast(k{depth} as {spark_type(key_type)})")
        )
        return f"transform_keys({expr}, (k{depth}, v{depth}) -> {key})"
    fields = []
    for field, child in zip(kind.fields, kind.children):
        access = f"{expr}.`{field.replace('`', '``')}`"
        fields.append(f"'{field}', {_json_cast(access, child, depth + 1) or access}")
    return f"if({expr} is null, null, named_struct({', '.join(fields)}))"


def spark_json_columns(columns: Sequence[Tuple[str, str]]) -> Tuple[str, List[str]]:
    """How Spark reads a Hive JSON table with Glue ``columns``: the read schema (DDL; map
    keys as strings) and one select expression per column (a cast of the map keys back to
    their type where needed). A type that does not parse is passed to Spark as it is."""
    ddl, selects = [], []
    for name, text in columns:
        quoted = "`" + name.replace("`", "``") + "`"
        try:
            kind = parse(text)
        except GlueTypeError:
            ddl.append(f"{quoted} {text}")
            selects.append(quoted)
            continue
        ddl.append(f"{quoted} {spark_type(kind, string_map_keys=True)}")
        cast = _json_cast(quoted, kind)
        selects.append(f"{cast} AS {quoted}" if cast else quoted)
    return ", ".join(ddl), selects


def spark_type(kind: GlueType, string_map_keys: bool = False) -> str:
    """The Spark SQL type that reads ``kind`` (Spark reads char/varchar as string); with
    ``string_map_keys``, every map key is a string (what Spark's JSON reader takes)."""
    if kind.name in ("varchar", "char"):
        return "string"
    if kind.name == "array":
        return f"array<{spark_type(kind.children[0], string_map_keys)}>"
    if kind.name == "map":
        key = "string" if string_map_keys else spark_type(kind.children[0])
        return f"map<{key},{spark_type(kind.children[1], string_map_keys)}>"
    if kind.name == "struct":
        inner = ",".join(
            "`" + f.replace("`", "``") + "`:" + spark_type(t, string_map_keys)
            for f, t in zip(kind.fields, kind.children)
        )
        return f"struct<{inner}>"
    return str(kind)


_ATHENA_NAMES = {"int": "integer", "float": "real", "string": "varchar", "binary": "varbinary"}


def athena_type(kind: GlueType, timestamp_precision: int = 3) -> str:
    """The Athena (Trino) name of a Glue type as Athena reads the column: ``int`` is
    ``integer``, ``float`` ``real``, ``string`` ``varchar``, ``binary`` ``varbinary``,
    ``timestamp`` ``timestamp(3)`` in a Hive table (``timestamp_precision=6``: an Iceberg
    table's), ``array<T>`` ``array(T)``, ``map<K,V>`` ``map(K, V)``, ``struct<a:T>``
    ``row(a T)``."""
    inner = [athena_type(child, timestamp_precision) for child in kind.children]
    if kind.name == "array":
        return f"array({inner[0]})"
    if kind.name == "map":
        return f"map({inner[0]}, {inner[1]})"
    if kind.name == "struct":
        return "row(" + ", ".join(f"{f} {t}" for f, t in zip(kind.fields, inner)) + ")"
    if kind.name == "timestamp":
        return f"timestamp({timestamp_precision})"
    if kind.params:
        return f"{kind.name}({','.join(str(p) for p in kind.params)})"
    return _ATHENA_NAMES.get(kind.name, kind.name)


def spark_read_type(text: str) -> str:
    """:func:`spark_type` of a Glue column's type text; the text itself when it does not
    parse (Spark then says what it makes of it)."""
    try:
        return spark_type(parse(text))
    except GlueTypeError:
        return text


def convert_rows(
    columns: Sequence[Tuple[str, GlueType]], rows: Iterable[Union[Sequence[Any], Mapping[str, Any]]]
) -> List[List[Any]]:
    """Rows (sequences in column order, or mappings by column name) as lists of converted
    values in column order; :class:`ValueMismatch` with ``path`` ``[row, column, ...]``."""
    names = [name for name, _ in columns]
    converted: List[List[Any]] = []
    for i, row in enumerate(rows):
        if isinstance(row, Mapping):
            unknown = [k for k in row if k not in names]
            if unknown:
                raise ValueMismatch(
                    f"unknown column {unknown[0]!r} (columns: {', '.join(names)})", [i]
                )
            values = [row.get(name) for name in names]
        else:
            values = list(row)
            if len(values) != len(names):
                raise ValueMismatch(
                    f"{len(values)} value(s) for {len(names)} column(s) ({', '.join(names)})", [i]
                )
        try:
            converted.append([_nested(v, kind, name) for v, (name, kind) in zip(values, columns)])
        except ValueMismatch as exc:
            raise ValueMismatch(exc.message, [i, *exc.path]) from None
    return converted


def iceberg_lost_null(value: Any, kind: GlueType) -> Optional[ValueMismatch]:
    """Where in ``value`` (converted) a NULL sits that pyiceberg would write as an empty
    list or map: a null ``array<struct<...>>`` or ``map<K,struct<...>>`` (pyiceberg 0.12
    rebuilds those arrays from their offsets without their validity: apache/iceberg-python
    issue 3833), as a ValueMismatch with its path; None if nowhere."""
    if value is None:
        lossy = kind.name in ("array", "map") and kind.children[-1].name == "struct"
        return ValueMismatch(iceberg_lost_null_message(kind)) if lossy else None
    children: List[Tuple[Any, Any, GlueType]] = []
    if kind.name == "array":
        children = [(i, v, kind.children[0]) for i, v in enumerate(value)]
    elif kind.name == "map":
        children = [(k, v, kind.children[1]) for k, v in value.items()]
    elif kind.name == "struct":
        children = [(f, value.get(f), t) for f, t in zip(kind.fields, kind.children)]
    for step, item, child in children:
        found = iceberg_lost_null(item, child)
        if found is not None:
            return ValueMismatch(found.message, [step, *found.path])
    return None


ICEBERG_LOST_NULL = (
    "NOT_SUPPORTED: null for {kind} in an Iceberg seed table: pyiceberg, which writes the "
    "emulator's Iceberg tables, would store it as an empty {what}; write {empty} or use a "
    "hive table"
)


def iceberg_lost_null_message(kind: GlueType) -> str:
    what, empty = ("list", "[]") if kind.name == "array" else ("map", "{}")
    return ICEBERG_LOST_NULL.format(kind=kind, what=what, empty=empty)
