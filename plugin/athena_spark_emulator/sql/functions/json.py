"""Athena's JSON type and JSON functions: JSON literals and ``json_parse``, ``json_format``,
CAST to and from JSON, ``json_extract``/``json_extract_scalar``/``json_size`` (Trino's
legacy JSON paths), ``json_array_get``/``_length``/``_contains``, ``is_json_scalar``,
``json_object``, ``json_array``, and the SQL/JSON ``json_query``/``json_value``/
``json_exists``. Each an entry of the function table (functions.py) backed by a Python UDF
(udfs.py); registered when the ``athena_spark_emulator.sql`` package is imported.

How a JSON value is represented: as a Spark string holding the JSON text Trino would hold.
Trino stores a JSON value as text too, canonicalised where it parses one (``json_parse``,
``JSON '...'``: Jackson's ``ORDER_MAP_ENTRIES_BY_KEYS``, so object keys sorted, no
whitespace, integers as written, other numbers as Java prints a double: ``1.0``, ``1.2``,
``1.0E10``), and copied as found where it extracts one (``json_extract`` keeps the input's
key order). Every JSON function reads text either way, so it need not know whether its
argument is a JSON value or a varchar holding JSON. Where the difference matters (CAST
to/from JSON, ``json_format``) the translation asks sqlglot's type annotation
(``spark_forms.type_of``: ``JSON '...'``, ``json_parse``, ``CAST(... AS JSON)`` and the
rewrites here are typed ``json``) and refuses when it cannot tell.

A cast from JSON to a structured type (``ARRAY(INTEGER)``, ``MAP(VARCHAR, JSON)``,
``ROW(...)``) converts the value in Python with Trino's rules (a string ``"1"`` to an
integer, a double rounded half away from zero, an array read positionally as a row, a
JSON leaf kept as its text) and hands Spark an exact JSON text for ``from_json``.

A query's result columns the translation knows are JSON are reported as ``json`` in
GetQueryResults (translate.json_columns); a statement that would write one to a table is
refused. ``json_table`` (PATH and NESTED PATH columns, the default plan) is Spark's
``inline`` over the rows a UDF computes.

What sqlglot cannot parse, or parses into something else, is rewritten in the statement's
text before parsing (:func:`json_clauses`, called by syntax.parse): json_array's ``NULL ON
NULL``/``RETURNING`` clauses, json_query's ``EMPTY ARRAY``/``EMPTY OBJECT`` behaviours,
json_exists's ``ON ERROR``, and json_extract's path (kept as written: sqlglot reads
``$.a:b`` as ``$.a.b``, Trino as the key ``a:b``). Refused: FORMAT JSON inputs, PASSING,
json_table's PLAN and ordinality, casts of JSON to decimal, time or varchar(n), a JSON
number with a fraction as varchar (Trino prints a double as varchar its own way).
"""

from __future__ import annotations

import json
import math
import re
import uuid
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Callable, Iterator, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion import JSON_CAST, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import call, spark, type_of, typed
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

T = exp.DataType.Type
JSON_TYPE = exp.DataType.build("json")
# The emulator's own functions that SQL/JSON clauses sqlglot cannot parse (or paths it would
# read otherwise) become (json_clauses)
_NULL_ON_NULL = "emulator_json_array_null_on_null"
_QUERY = "emulator_json_query_with_clauses"
_EXTRACT = "emulator_json_extract"
_EXTRACT_SCALAR = "emulator_json_extract_scalar"
_EXISTS = "emulator_json_exists_with_clauses"
_BYTES = "emulator_json_bytes_"


# ---- JSON text: parse, print ------------------------------------------------------------------
class Num:
    """A JSON number as written (``kind`` int or float): Trino keeps an integer's text and
    reads anything else as a double."""

    __slots__ = ("is_float", "text")

    def __init__(self, text: str, is_float: bool) -> None:
        self.text = text
        self.is_float = is_float

    def value(self) -> Any:
        return float(self.text) if self.is_float else int(self.text)


class Obj(list):
    """A JSON object: its (key, value) pairs in the order written, duplicates kept."""

    def get(self, key: str) -> Tuple[bool, Any]:
        for k, v in self:
            if k == key:
                return True, v
        return False, None

    def as_dict(self) -> dict:
        return dict(self)  # a later duplicate wins, as Jackson's map reading


class JsonSyntaxError(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise JsonSyntaxError(f"not JSON: {name}")


_DECODER = json.JSONDecoder(
    object_pairs_hook=Obj,
    parse_float=lambda s: Num(s, True),
    parse_int=lambda s: Num(s, False),
    parse_constant=_no_constant,
)


def parse(text: str) -> Any:
    """A JSON text as values (Obj, list, str, Num, True/False, None); JsonSyntaxError when
    it is not one JSON value (Jackson's strict reading: no NaN, no trailing text)."""
    try:
        value, end = _DECODER.raw_decode(text, _skip_space(text, 0))
    except ValueError as exc:
        raise JsonSyntaxError(str(exc)) from None
    if _skip_space(text, end) != len(text):
        raise JsonSyntaxError("trailing text")
    return value


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\n\r":
        at += 1
    return at


def java_double(value: float) -> str:
    """A double as Java's Double.toString prints it (Jackson's, Trino's): ``1.0``,
    ``0.001``, ``1.0E7``, ``1.0E-4``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    digits_tuple, exponent = Decimal(repr(magnitude)).normalize().as_tuple()[1:]
    digits = "".join(str(d) for d in digits_tuple)
    point = len(digits) + int(exponent)  # the decimal point after this many digits
    if 1e-3 <= magnitude < 1e7:
        if point <= 0:
            return f"{sign}0.{'0' * -point}{digits}"
        if point >= len(digits):
            return f"{sign}{digits}{'0' * (point - len(digits))}.0"
        return f"{sign}{digits[:point]}.{digits[point:]}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{point - 1}"


_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def quote(text: str) -> str:
    """A JSON string as Jackson writes it (non-ASCII kept, control characters escaped)."""
    out = ['"']
    for char in text:
        escaped = _ESCAPES.get(char)
        if escaped is not None:
            out.append(escaped)
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def dump(value: Any, sort: bool = False) -> str:
    """A parsed value as compact JSON text; ``sort``: Trino's canonical JSON (object keys
    sorted, a duplicate key's last value)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Num):
        return java_double(float(value.text)) if value.is_float else str(int(value.text))
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, Obj):
        pairs = sorted(value.as_dict().items()) if sort else list(value)
        return "{" + ",".join(f"{quote(k)}:{dump(v, sort)}" for k, v in pairs) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v, sort) for v in value) + "]"
    raise TypeError(f"not a JSON value: {value!r}")


def canonical(text: str) -> str:
    return dump(parse(text), sort=True)


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, list)  # Obj is a list too


def _scalar_text(value: Any) -> Optional[str]:
    """A JSON scalar as Trino's getText gives it (a number as written, a string unquoted)."""
    if value is None:
        return None
    if isinstance(value, Num):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---- json_parse, json_format, is_json_scalar -------------------------------------------------
@udf("json_parse", "string")
def json_parse(text: Optional[str]) -> Optional[str]:
    """Trino's json_parse: the text's canonical JSON, or INVALID_FUNCTION_ARGUMENT."""
    if text is None:
        return None
    try:
        return canonical(text)
    except JsonSyntaxError:
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: Cannot convert value to JSON: '{text}'"
        ) from None


@udf("is_json_scalar", "boolean")
def is_json_scalar(text: Optional[str]) -> Optional[bool]:
    if text is None:
        return None
    try:
        return _is_scalar(parse(text))
    except JsonSyntaxError:
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid JSON value: {text}") from None


def _json_literal(text: str) -> exp.Expression:
    """JSON text known at translation: a string literal that keeps its type json (a bare
    literal would read as a varchar(n) to typeof)."""
    return typed(
        exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build("string")), JSON_TYPE
    )


def is_json(node: exp.Expression) -> bool:
    """Whether the translation knows ``node`` is a JSON value."""
    kind = _json_type(node)
    return kind is not None and kind.this == T.JSON


def _json_type(node: exp.Expression) -> Optional[exp.DataType]:
    kind = type_of(node)
    if kind is not None and kind.this != T.UNKNOWN:
        return kind
    # element_at(map(varchar, json), k) / a[i]: sqlglot leaves the element's type unknown
    if isinstance(node, (exp.Bracket, exp.Anonymous)) and str(node.name).lower() in (
        "element_at",
        "try_element_at",
        "",
    ):
        args = node.expressions if isinstance(node, exp.Anonymous) else [node.this]
        container = type_of(args[0]) if args else None
        if container is not None and container.expressions:
            if container.this == T.ARRAY:
                return container.expressions[0]
            if container.this == T.MAP and len(container.expressions) == 2:
                return container.expressions[1]
    return None


@rewrites(exp.ParseJSON, "json_parse")
def parse_json(node: exp.Expression) -> exp.Expression:
    """A literal's canonical text is computed here (Spark cannot run a UDF in VALUES); a
    literal that is not JSON fails at run time (NULL under try), as any other text."""
    text = node.this
    if isinstance(text, exp.Literal) and text.is_string:
        try:
            return _json_literal(canonical(text.this))
        except JsonSyntaxError:
            pass
    return typed(udf_call("json_parse", text), JSON_TYPE)


@rewrites(exp.JSONFormat, "json_format")
def json_format(node: exp.Expression) -> exp.Expression:
    if node.args.get("options"):
        raise Refused(f"{node.sql('athena')} (json_format with options)")
    if not is_json(node.this):
        raise Refused(
            f"{node.sql('athena')}", "the emulator cannot tell that its argument is a JSON value"
        )
    return typed(spark("CAST(_0 AS STRING)", node.this), "varchar")


@rewrites("is_json_scalar", "is_json_scalar")
def is_json_scalar_(node: exp.Expression) -> exp.Expression:
    return udf_call("is_json_scalar", *node.expressions)


# ---- Trino's legacy JSON path (json_extract, json_extract_scalar, json_size) ----------------
# Trino's JsonPathTokenizer: .key (letters, digits, _ and :), [key] (letters, digits, _),
# ["key"] (escapes \" and \\ only)
_PATH_KEY = re.compile(r"\.([\w:]+)")
_PATH_QUOTED = re.compile(r'\["((?:[^"\\]|\\["\\])*)"\]')
_PATH_BARE = re.compile(r"\[(\w+)\]")


def legacy_path(path: str) -> List[str]:
    """The keys of a path ``$.a.b[0]["c d"]`` (Trino's JsonPathTokenizer, without
    wildcards); INVALID_FUNCTION_ARGUMENT for anything else."""
    text = path
    if not text.startswith("$"):
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid JSON path: '{path}'")
    keys, at = [], 1
    while at < len(text):
        for pattern in (_PATH_KEY, _PATH_QUOTED, _PATH_BARE):
            match = pattern.match(text, at)
            if match:
                key = match.group(1)
                keys.append(re.sub(r"\\(.)", r"\1", key) if pattern is _PATH_QUOTED else key)
                at = match.end()
                break
        else:
            raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid JSON path: '{path}'")
    return keys


def _walk(value: Any, keys: List[str]) -> Tuple[bool, Any]:
    for key in keys:
        if isinstance(value, Obj):
            found, value = value.get(key)
            if not found:
                return False, None
        elif isinstance(value, list) and key.isdigit():
            if int(key) >= len(value):
                return False, None
            value = value[int(key)]
        else:
            return False, None
    return True, value


def _extract(text: Optional[str], path: Optional[str]) -> Tuple[bool, Any]:
    if text is None or path is None:
        return False, None
    keys = legacy_path(path)
    try:
        document = parse(text)
    except JsonSyntaxError:
        return False, None  # Trino's json_extract is NULL for text that is not JSON
    return _walk(document, keys)


@udf("json_extract", "string")
def json_extract(text: Optional[str], path: Optional[str]) -> Optional[str]:
    found, value = _extract(text, path)
    return dump(value) if found else None


@udf("json_extract_scalar", "string")
def json_extract_scalar(text: Optional[str], path: Optional[str]) -> Optional[str]:
    found, value = _extract(text, path)
    if not found or not _is_scalar(value):
        return None
    return _scalar_text(value)


@udf("json_size", "bigint")
def json_size(text: Optional[str], path: Optional[str]) -> Optional[int]:
    found, value = _extract(text, path)
    if not found:
        return None
    return 0 if _is_scalar(value) else len(value)


def _path_text(node: exp.Expression, path: Optional[exp.Expression]) -> exp.Expression:
    if isinstance(path, exp.JSONPath) or path is None:
        # sqlglot's reading of a path is not Trino's ($.a:b is the key "a:b" in Trino, $.a.b
        # in sqlglot's); json_clauses keeps the text, so this is a path it did not see
        raise Refused(_UNSUPPORTED_PATH)
    return path


@rewrites(exp.JSONExtract, "json_extract")
def json_extract_(node: exp.Expression) -> exp.Expression:
    if node.args.get("json_query"):
        return json_query_(node)
    if node.args.get("expressions") or node.args.get("variant_extract"):
        raise Refused(node.sql("athena"))
    return typed(udf_call("json_extract", node.this, _path_text(node, node.expression)), JSON_TYPE)


@rewrites(exp.JSONExtractScalar, "json_extract_scalar")
def json_extract_scalar_(node: exp.Expression) -> exp.Expression:
    if node.args.get("expressions"):
        raise Refused(node.sql("athena"))
    path = _path_text(node, node.expression)
    return typed(udf_call("json_extract_scalar", node.this, path), "varchar")


@rewrites(_EXTRACT, "json_extract")
def json_extract_text_path(node: exp.Expression) -> exp.Expression:
    """json_extract with its path as written (json_clauses)."""
    if len(node.expressions) != 2:
        raise Refused("json_extract with other than two arguments")
    return typed(udf_call("json_extract", *node.expressions), JSON_TYPE)


@rewrites(_EXTRACT_SCALAR, "json_extract_scalar")
def json_extract_scalar_text_path(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused("json_extract_scalar with other than two arguments")
    out = udf_call("json_extract_scalar", *node.expressions)
    return typed(out, "varchar")


@rewrites("json_size", "json_size")
def json_size_(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("json_size", *node.expressions), "bigint")


# ---- json_array_get, json_array_length, json_array_contains -----------------------------------
def _array(text: Optional[str]) -> Optional[list]:
    if text is None:
        return None
    try:
        value = parse(text)
    except JsonSyntaxError:
        return None
    return value if isinstance(value, list) and not isinstance(value, Obj) else None


@udf("json_array_get", "string")
def json_array_get(text: Optional[str], index: Optional[int]) -> Optional[str]:
    """Trino's json_array_get: an element as JSON, a scalar as its bare text (``a``)."""
    items = _array(text)
    if items is None or index is None:
        return None
    if index >= len(items) or index < -len(items):
        return None
    item = items[index]
    return dump(item) if not _is_scalar(item) else _scalar_text(item)


@udf("json_array_length", "bigint")
def json_array_length(text: Optional[str]) -> Optional[int]:
    items = _array(text)
    return None if items is None else len(items)


@udf("json_array_contains", "boolean")
def json_array_contains(text: Optional[str], value: Any, kind: str) -> Optional[bool]:
    """Whether a JSON array has an element equal to ``value`` (``kind``: b boolean, i
    bigint, d double, s varchar; Trino compares only elements of that JSON kind: ``1.0``
    is no bigint 1, ``1`` no double 1.0)."""
    items = _array(text)
    if items is None or value is None:
        return None
    if kind == "d" and not math.isfinite(value):
        return False
    for item in items:
        if kind == "b" and isinstance(item, bool) and item == value:
            return True
        if kind == "i" and isinstance(item, Num) and not item.is_float and int(item.text) == value:
            return True
        if kind == "d" and isinstance(item, Num) and item.is_float and float(item.text) == value:
            return True
        if kind == "s" and isinstance(item, str) and item == value:
            return True
    return False


@rewrites("json_array_get", "json_array_get")
def json_array_get_(node: exp.Expression) -> exp.Expression:
    text, index = node.expressions
    return typed(udf_call("json_array_get", text, spark("CAST(_0 AS BIGINT)", index)), JSON_TYPE)


@rewrites("json_array_length", "json_array_length")
def json_array_length_(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("json_array_length", *node.expressions), "bigint")


@rewrites(exp.JSONArrayContains, "json_array_contains")
def json_array_contains_(node: exp.Expression) -> exp.Expression:
    value = node.expression
    kind = type_of(value)
    code = None
    if isinstance(value, exp.Literal) and value.is_string:
        code = "s"
    elif isinstance(value, exp.Boolean) or (kind is not None and kind.this == T.BOOLEAN):
        code = "b"
    elif kind is not None and kind.this in (T.TINYINT, T.SMALLINT, T.INT, T.BIGINT):
        code = "i"
    elif kind is not None and kind.this in (T.DOUBLE, T.FLOAT, T.DECIMAL):
        code, value = "d", spark("CAST(_0 AS DOUBLE)", value)
    elif kind is not None and kind.this in (T.VARCHAR, T.CHAR, T.TEXT):
        code = "s"
    if code is None:
        raise Refused(f"{node.sql('athena')} (a value whose type the emulator cannot tell)")
    out = udf_call("json_array_contains", node.this, value, exp.Literal.string(code))
    return typed(out, "boolean")


# ---- CAST to JSON, json_array, json_object -----------------------------------------------------
def descriptor(kind: Optional[exp.DataType], what: str) -> Any:
    """The Athena type ``kind`` as the UDFs read it: ``"j"`` json, ``"s"`` varchar, ``"b"``
    boolean, ``["i", bits]``, ``"d"`` double, ``"n"`` decimal, ``"date"``, ``["a", e]``,
    ``["m", k, v]``, ``["r", [[name, t], ...]]``; Refused for others."""
    if kind is None or kind.this in (T.UNKNOWN, T.NULL):
        raise Refused(what, "the emulator cannot tell the value's type")
    simple = {
        T.JSON: "j",
        T.VARCHAR: "s",
        T.CHAR: "s",
        T.TEXT: "s",
        T.BOOLEAN: "b",
        T.DOUBLE: "d",
        T.DECIMAL: "n",
        T.DATE: "date",
    }
    bits = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}
    if kind.this in simple:
        return simple[kind.this]
    if kind.this in bits:
        return ["i", bits[kind.this]]
    params = [e for e in kind.expressions]
    if kind.this == T.ARRAY and len(params) == 1:
        return ["a", descriptor(params[0], what)]
    if kind.this == T.MAP and len(params) == 2:
        key = descriptor(params[0], what)
        if key not in ("s", "b", "d", "n") and not (isinstance(key, list) and key[0] == "i"):
            raise Refused(what, "a map key type JSON has no text for")
        return ["m", key, descriptor(params[1], what)]
    if kind.this == T.STRUCT and params and all(isinstance(p, exp.ColumnDef) for p in params):
        if any(p.name != p.name.lower() for p in params):  # Athena's names are lower case
            raise Refused(what, "row field names with capitals")
        return ["r", [[p.name, descriptor(p.args.get("kind"), what)] for p in params]]
    raise Refused(what, f"a cast between JSON and {kind.sql('athena')}")


def to_json(value: Any, kind: Any) -> Optional[str]:
    """A SQL value of Athena type ``kind`` (a descriptor) as Trino's JSON text (CAST(x AS
    JSON)); None for NULL."""
    if value is None:
        return None
    if kind == "j":
        return str(value)
    if kind == "s":
        return quote(str(value))
    if kind == "b":
        return "true" if value else "false"
    if kind == "d":
        return java_double(float(value))
    if kind == "n":
        return str(value)
    if kind == "date":
        return quote(value.isoformat())
    tag = kind[0]
    if tag == "i":
        return str(int(value))
    if tag == "a":
        return "[" + ",".join(to_json(v, kind[1]) or "null" for v in value) + "]"
    if tag == "m":
        entries = sorted((_key_text(k, kind[1]), v) for k, v in value.items())
        return (
            "{" + ",".join(f"{quote(k)}:{to_json(v, kind[2]) or 'null'}" for k, v in entries) + "}"
        )
    if tag == "r":
        fields = kind[1]
        return (
            "{"
            + ",".join(
                f"{quote(name)}:{to_json(value[i], sub) or 'null'}"
                for i, (name, sub) in enumerate(fields)
            )
            + "}"
        )
    raise TypeError(f"no JSON for {kind!r}")


def _key_text(key: Any, kind: Any) -> str:
    if kind == "b":
        return "true" if key else "false"
    if kind == "d":
        return java_double(float(key))
    return str(key)


@udf("to_json", "string")
def to_json_udf(value: Any, kind: Optional[str]) -> Optional[str]:
    return to_json(value, json.loads(kind or '"j"'))


def _to_json_call(value: exp.Expression, what: str) -> exp.Expression:
    if isinstance(value, exp.Null):
        return typed(spark("CAST(NULL AS STRING)"), JSON_TYPE)
    kind = descriptor(_json_type(value), what)
    if kind == "j":
        return value
    if kind == "s" and isinstance(value, exp.Literal) and value.is_string:
        return _json_literal(quote(value.this))
    return typed(udf_call("to_json", value, exp.Literal.string(json.dumps(kind))), JSON_TYPE)


_MEMBER_TYPES = {T.BOOLEAN, T.TINYINT, T.SMALLINT, T.INT, T.BIGINT, T.DOUBLE, T.VARCHAR, T.CHAR}
_MEMBER_TYPES |= {T.TEXT, T.DATE}


def _json_member(node: exp.Expression, what: str) -> exp.Expression:
    """A json_array/json_object member as JSON text: booleans, numbers and strings as JSON
    literals, a json_query result as the JSON it holds (FORMAT JSON implied), a date as
    its text (Trino casts other values to varchar); anything else refused."""
    if node.meta.get("athena_json_query") if node._meta else False:
        return udf_call("json_member", node)
    if isinstance(node, exp.Null):
        return spark("CAST(NULL AS STRING)")
    kind = _json_type(node)
    if isinstance(node, exp.Literal) and node.is_string:
        kind = exp.DataType.build("varchar")
    if kind is None or kind.this not in _MEMBER_TYPES:
        shown = kind.sql("athena") if kind is not None else "a value of unknown type"
        raise Refused(f"{what} (a member of type {shown})")
    return _to_json_call(node, what)


@udf("json_member", "string")
def json_member(text: Optional[str]) -> Optional[str]:
    """A json_query result (JSON text) inside json_array/json_object: inserted as JSON."""
    if text is None:
        return None
    try:
        return dump(parse(text))
    except JsonSyntaxError:
        raise AthenaError("JSON_INPUT_CONVERSION_ERROR: malformed JSON") from None


_UUID_TEXT = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _uuid_literals(members: List[exp.Expression]) -> None:
    """``UUID '...'`` members of json_array/json_object: Trino casts them to varchar, its
    lower-case text; that text stands in for the literal (the emulator has no uuid type)."""
    for member in members:
        # other texts keep their cast, which the type check refuses
        if (
            isinstance(member, exp.Cast)
            and member.to.this == T.UUID
            and isinstance(member.this, exp.Literal)
            and member.this.is_string
            and _UUID_TEXT.fullmatch(member.this.this)
        ):
            member.replace(exp.Literal.string(str(uuid.UUID(member.this.this))))


def _json_array_check(node: exp.Expression) -> Optional[str]:
    _uuid_literals(list(node.expressions))
    return None


@rewrites("json_array", "json_array", _json_array_check)
def json_array_(node: exp.Expression) -> exp.Expression:
    return _json_array(node, null_on_null=False)


def _json_array(node: exp.Expression, null_on_null: bool) -> exp.Expression:
    what = f"{node.sql('athena')}"
    members = [_json_member(a, what) for a in node.expressions]
    if null_on_null:
        members = [spark("coalesce(_0, 'null')", m) for m in members]
    if not members:
        return typed(exp.Literal.string("[]"), "varchar")
    # ABSENT ON NULL (json_array's default): concat_ws leaves NULLs out
    out = spark(
        "concat('[', _0, ']')",
        exp.Anonymous(this="concat_ws", expressions=[exp.Literal.string(","), *members]),
    )
    return typed(out, "varchar")


_ENCODINGS = {"UTF8": "utf-8", "UTF16": "utf-16-le", "UTF32": "utf-32-le"}


def _returning_name(returning: Any) -> str:
    if isinstance(returning, exp.DataType):
        return returning.sql("athena").upper()
    if isinstance(returning, (exp.Anonymous, exp.Column)):
        return str(returning.name).upper()
    return ""


def _json_object_check(node: exp.Expression) -> Optional[str]:
    """Reads ``RETURNING varchar(n) | varbinary [FORMAT JSON] [ENCODING UTFn]`` (which
    sqlglot keeps as a function call or a column) into the node's meta, so that the check
    of its parts does not see them as a function or column of the query."""
    returning, encoding = node.args.get("return_type"), node.args.get("encoding")
    if returning and type(returning).__name__ == "FormatJson":
        returning = returning.this
    name = _returning_name(returning) if returning else "VARCHAR"
    if name not in ("VARCHAR", "VARBINARY"):
        return f"{node.sql('athena')} (RETURNING {name})"
    code = str(encoding.name).upper() if isinstance(encoding, exp.Expression) else "UTF8"
    if code not in _ENCODINGS or (encoding and name != "VARBINARY"):
        return f"{node.sql('athena')} (ENCODING {code})"
    if any(type(e).__name__ == "FormatJson" for e in node.expressions):
        return f"{node.sql('athena')} (FORMAT JSON)"
    _uuid_literals([p.expression for p in node.expressions if isinstance(p, exp.JSONKeyValue)])
    node.meta["athena_returning"] = (name, _ENCODINGS[code])
    node.set("return_type", None)
    node.set("encoding", None)
    return None


@udf("json_fail", "string")
def json_fail(text: str) -> Optional[str]:
    """Athena's failure ``text`` when the row is evaluated (NULL under try)."""
    raise AthenaError(text)


@udf("json_bytes", "binary")
def json_bytes(text: Optional[str], encoding: str) -> Optional[bytes]:
    return None if text is None else text.encode(encoding)


def _returning(node: exp.Expression, text: exp.Expression) -> exp.Expression:
    name, encoding = node.meta.get("athena_returning", ("VARCHAR", "utf-8"))
    if name == "VARBINARY":
        out = udf_call("json_bytes", text, exp.Literal.string(encoding))
        return typed(out, "varbinary")
    return typed(text, "varchar")


@rewrites(exp.JSONObject, "json_object", _json_object_check)
def json_object_(node: exp.Expression) -> exp.Expression:
    what = f"{node.sql('athena')}"
    if node.args.get("unique_keys"):
        keys = [p.this.this for p in node.expressions if isinstance(p, exp.JSONKeyValue)]
        if len(set(keys)) != len(keys):
            text = "INVALID_FUNCTION_ARGUMENT: duplicate key passed to JSON_OBJECT function"
            return udf_call("json_fail", exp.Literal.string(text))
    handling = str(node.args.get("null_handling") or "NULL ON NULL").upper()
    absent = handling == "ABSENT ON NULL"
    members = []
    for pair in node.expressions:
        if not isinstance(pair, exp.JSONKeyValue):
            raise Refused(what)
        key, value = pair.this, pair.expression
        if not (isinstance(key, exp.Literal) and key.is_string):
            raise Refused(f"{what} (a key that is not a string literal)")
        member = _json_member(value, what)
        text = f"{quote(key.this)}:"
        if absent:
            members.append(spark(f"concat({_sql_string(text)}, _0)", member))
        else:
            members.append(spark(f"concat({_sql_string(text)}, coalesce(_0, 'null'))", member))
    if not members:
        return _returning(node, exp.Literal.string("{}"))
    joined = exp.Anonymous(this="concat_ws", expressions=[exp.Literal.string(","), *members])
    return _returning(node, spark("concat('{', _0, '}')", joined))


def _sql_string(text: str) -> str:
    return exp.Literal.string(text).sql("spark")


@rewrites(_NULL_ON_NULL, "json_array ... NULL ON NULL", _json_array_check)
def json_array_null_on_null(node: exp.Expression) -> exp.Expression:
    return _json_array(node, null_on_null=True)


for _code, _encoding in _ENCODINGS.items():

    def _bytes(node: exp.Expression, encoding: str = _encoding) -> exp.Expression:
        out = udf_call("json_bytes", node.expressions[0], exp.Literal.string(encoding))
        return typed(out, "varbinary")

    rewrites(f"{_BYTES}{_code.lower()}", "json_array ... RETURNING VARBINARY")(_bytes)

_CLAUSES = re.compile(
    r"(?is)\s+(?:(?P<nulls>ABSENT|NULL)\s+ON\s+NULL)?\s*"
    r"(?:RETURNING\s+(?P<type>VARCHAR(?:\s*\(\s*\d+\s*\))?|VARBINARY)"
    r"(?:\s+FORMAT\s+JSON(?:\s+ENCODING\s+(?P<encoding>UTF8|UTF16|UTF32))?)?)?\s*$"
)


def json_clauses(statement: str) -> str:
    """The SQL/JSON clauses sqlglot cannot parse, as calls it can: json_array's
    (:func:`json_array_clauses`), json_query's ``EMPTY ARRAY``/``EMPTY OBJECT`` behaviours
    and json_exists's ``ON ERROR`` (the emulator's own functions taking the clauses as
    text). The statement is unchanged where there is no such clause."""
    lowered = statement.lower()
    if "json_extract" in lowered:  # its path as written: sqlglot reads it otherwise
        statement = _renamed(statement, r"(?i)\bjson_extract(_scalar)?(\s*\()", _EXTRACT + r"\1\2")
    if "json_query" in lowered or "json_exists" in lowered:
        statement = _clauses_as_text(statement)
    if "json_array" in lowered:
        statement = json_array_clauses(statement)
    return statement


def _renamed(statement: str, pattern: str, replacement: str) -> str:
    return re.sub(
        pattern,
        lambda m: m.group(0) if _in_string(statement, m.start()) else m.expand(replacement),
        statement,
    )


def _clauses_as_text(statement: str) -> str:
    def call(match: re.Match, start: int, end: int) -> Optional[str]:
        split = _after_path(statement, start, end)
        if split is None:
            return None
        clauses = " ".join(statement[split:end].split())
        upper = clauses.upper()
        needed = "EMPTY ARRAY" in upper or "EMPTY OBJECT" in upper
        if match.group(1).lower() == "exists":
            needed = bool(clauses)
        if not needed or "'" in clauses:
            return None
        name = _QUERY if match.group(1).lower() == "query" else _EXISTS
        return f"{name}({statement[start:split]}, '{clauses}')"

    return _rewrite_calls(statement, r"(?i)\bjson_(query|exists)\s*\(", call)


def _after_path(text: str, start: int, end: int) -> Optional[int]:
    """Where the clauses start in ``json_query(input, 'path' clauses)``: after the string
    literal that follows the first top-level comma (None: not that shape)."""
    comma = next(
        (at for at, char, depth in _unquoted(text, start, end) if char == "," and depth == 0), None
    )
    if comma is None:
        return None
    literal = re.compile(r"\s*'(?:[^']|'')*'").match(text, comma + 1, end)
    return literal.end() if literal else None


def json_array_clauses(statement: str) -> str:
    """``json_array(... [NULL|ABSENT ON NULL] [RETURNING varchar(n)|varbinary [FORMAT JSON
    [ENCODING UTFn]]])``, which sqlglot cannot parse, as calls it can: the clauses become
    the emulator's own functions around (or instead of) json_array. The statement is
    unchanged where there is no such clause."""

    def call(match: re.Match, start: int, end: int) -> Optional[str]:
        inner = statement[start:end]
        clauses = _CLAUSES.search(inner)
        if not clauses or not clauses.group(0).strip():
            return None
        args = inner[: clauses.start()]
        name = _NULL_ON_NULL if (clauses.group("nulls") or "").upper() == "NULL" else "json_array"
        out = f"{name}({args})"
        if (clauses.group("type") or "").upper() == "VARBINARY":
            out = f"{_BYTES}{(clauses.group('encoding') or 'UTF8').lower()}({out})"
        return out

    return _rewrite_calls(statement, r"(?i)\bjson_array\s*\(", call)


def _rewrite_calls(
    statement: str, pattern: str, call: Callable[[re.Match, int, int], Optional[str]]
) -> str:
    """``statement`` with each call that ``pattern`` finds (its name up to the opening
    parenthesis, outside a string) written as ``call(match, start, end)`` returns it, where
    ``statement[start:end]`` are the call's arguments (None: left as written)."""
    out, at = [], 0
    for match in re.finditer(pattern, statement):
        start = match.end()
        if start < at or _in_string(statement, match.start()):
            continue
        end = _closing(statement, start)
        if end is None:
            break
        text = call(match, start, end)
        if text is None:
            continue
        out.append(statement[at : match.start()] + text)
        at = end + 1
    return "".join(out) + statement[at:] if out else statement


def _in_string(text: str, position: int) -> bool:
    return text.count("'", 0, position) % 2 == 1


def _unquoted(text: str, start: int, end: int) -> Iterator[Tuple[int, str, int]]:
    """(position, character, depth) of each character of ``text[start:end]`` outside a
    string literal; depth counts the parentheses opened since ``start`` (a closing one
    included, so the one that closes an enclosing call has depth -1)."""
    depth, quoted = 0, False
    for position in range(start, end):
        char = text[position]
        if char == "'":
            quoted = not quoted
            continue
        if quoted:
            continue
        depth += (char == "(") - (char == ")")
        yield position, char, depth


def _closing(text: str, start: int) -> Optional[int]:
    """The parenthesis that closes the call whose arguments start at ``start`` (None: none)."""
    return next((at for at, _, depth in _unquoted(text, start, len(text)) if depth < 0), None)


# ---- CAST from JSON ----------------------------------------------------------------------------
_INT_RANGES = {8: "tinyint", 16: "smallint", 32: "integer", 64: "bigint"}


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DOUBLE_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class CastError(Exception):
    pass


def _round_half_away(value: float) -> int:
    if math.isnan(value) or math.isinf(value):
        raise CastError("not a finite number")
    return int(Decimal(value).to_integral_value(ROUND_HALF_UP))


def from_json(value: Any, kind: Any) -> Any:
    """A parsed JSON value as the SQL value of type ``kind`` (a descriptor), Trino's
    rules (JsonUtil.currentTokenAs*): Python values; CastError where Trino fails."""
    if value is None:
        return None
    if kind == "j":
        return dump(value)
    if kind == "s":
        if isinstance(value, Num) and value.is_float:
            raise Refused("a cast of a JSON number with a fraction to varchar")
        if not _is_scalar(value):
            raise CastError("not a scalar")
        return _scalar_text(value)
    if kind == "b":
        if isinstance(value, bool):
            return value
        if isinstance(value, Num):
            return float(value.text) != 0
        if isinstance(value, str):
            lowered = value.lower()
            if lowered in ("true", "t", "1"):
                return True
            if lowered in ("false", "f", "0"):
                return False
        raise CastError("not a boolean")
    if kind == "d":
        if isinstance(value, bool):
            return 1.0 if value else 0.0
        if isinstance(value, Num):
            return float(value.text)
        if isinstance(value, str) and _DOUBLE_TEXT.fullmatch(value.strip()):
            return float(value.strip())
        raise CastError("not a number")
    if kind == "date":
        if isinstance(value, str):
            return value
        raise CastError("Cannot cast JSON value to date; expected a JSON string")
    if isinstance(kind, list) and kind[0] == "i":
        if isinstance(value, bool):
            number = 1 if value else 0
        elif isinstance(value, Num):
            number = _round_half_away(float(value.text)) if value.is_float else int(value.text)
        elif isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
            number = int(value.strip())
        else:
            raise CastError("not an integer")
        bits = kind[1]
        if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            raise CastError("out of range")
        return number
    if isinstance(kind, list) and kind[0] == "a":
        if not isinstance(value, list) or isinstance(value, Obj):
            raise CastError("not an array")
        return [from_json(v, kind[1]) for v in value]
    if isinstance(kind, list) and kind[0] == "m":
        if not isinstance(value, Obj):
            raise CastError("not an object")
        out = {}
        for k, v in value:
            key = from_json(k, kind[1]) if kind[1] != "s" else k
            if key in out:
                raise CastError(f"Duplicate map keys ({key}) are not allowed")
            out[key] = from_json(v, kind[2])
        return out
    if isinstance(kind, list) and kind[0] == "r":
        fields = kind[1]
        if isinstance(value, Obj):
            found = {k.lower(): v for k, v in value}
            return {name: from_json(found.get(name.lower()), sub) for name, sub in fields}
        if isinstance(value, list):
            if len(value) != len(fields):
                raise CastError("row size mismatch")
            return {name: from_json(v, sub) for (name, sub), v in zip(fields, value)}
        raise CastError("not a row")
    if kind == "n":
        raise Refused("a cast of JSON to decimal")
    raise CastError(f"no cast to {kind!r}")


def _type_name(kind: Any) -> str:
    names = {"j": "json", "s": "varchar", "b": "boolean", "d": "double", "date": "date"}
    if isinstance(kind, str):
        return names.get(kind, kind)
    if kind[0] == "i":
        return _INT_RANGES[kind[1]]
    if kind[0] == "a":
        return f"array({_type_name(kind[1])})"
    if kind[0] == "m":
        return f"map({_type_name(kind[1])}, {_type_name(kind[2])})"
    return "row(" + ", ".join(f"{n} {_type_name(t)}" for n, t in kind[1]) + ")"


@udf("json_cast", "string")
def json_cast(text: Optional[str], kind_text: Optional[str]) -> Optional[str]:
    """CAST(json AS t): the value as text Spark reads exactly (a scalar's text for CAST, a
    structured value as JSON for from_json); Athena's INVALID_CAST_ARGUMENT where it fails."""
    if text is None:
        return None
    kind = json.loads(kind_text or '"s"')
    try:
        value = from_json(parse(text), kind)
    except (CastError, JsonSyntaxError) as exc:
        detail = str(exc)
        if detail.startswith("Cannot cast JSON value"):
            raise AthenaError(f"INVALID_CAST_ARGUMENT: {detail}") from None
        raise AthenaError(
            f"INVALID_CAST_ARGUMENT: Cannot cast '{text}' to {_type_name(kind).upper()}"
        ) from None
    except Refused as refused:
        raise AthenaError(
            f"NOT_SUPPORTED: the Athena emulator cannot run {refused.construct}"
        ) from None
    if value is None:
        return None
    if isinstance(kind, list) and kind[0] in ("a", "m", "r"):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _spark_ddl(kind: Any) -> str:
    simple = {"j": "string", "s": "string", "b": "boolean", "d": "double", "date": "date"}
    if isinstance(kind, str):
        return simple[kind]
    if kind[0] == "i":
        return {8: "tinyint", 16: "smallint", 32: "int", 64: "bigint"}[kind[1]]
    if kind[0] == "a":
        return f"array<{_spark_ddl(kind[1])}>"
    if kind[0] == "m":
        return f"map<{_spark_ddl(kind[1])},{_spark_ddl(kind[2])}>"
    return "struct<" + ",".join(f"`{n}`:{_spark_ddl(t)}" for n, t in kind[1]) + ">"


def cast(node: exp.Expression, safe: bool) -> exp.Expression:
    """CAST/TRY_CAST to or from JSON (functions._cast hands these over)."""
    value, target = node.this, node.args["to"]
    what = node.sql("athena")
    if target.this == T.JSON:
        out = _to_json_call(value, what)
    else:
        kind = descriptor(target, what)
        if isinstance(kind, list) and kind[0] == "m" and kind[1] != "s":
            raise Refused(what, "a map from JSON with keys other than varchar")
        if kind == "n":
            raise Refused(what, "a cast of JSON to decimal")
        if target.this in (T.VARCHAR, T.CHAR) and target.expressions:
            raise Refused(what, "a cast of JSON to varchar(n)")
        text = udf_call("json_cast", value, exp.Literal.string(json.dumps(kind)))
        ddl = _spark_ddl(kind)
        if isinstance(kind, list) and kind[0] in ("a", "m", "r"):
            out = spark(f"from_json(_0, '{ddl}')", text)
        elif kind in ("s", "j"):
            out = text
        else:
            out = spark(f"CAST(_0 AS {ddl.upper()})", text)
    if safe:
        from athena_spark_emulator.sql.udfs import try_form

        out = out.transform(try_form)
    return typed(out, target)


JSON_CAST.append(cast)


# ---- SQL/JSON paths (json_query, json_value, json_exists) -------------------------------------
class PathError(Exception):
    """A structural error of a strict path (or a lax one that has no answer)."""


_TOKEN = re.compile(
    r"\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)|(?P<str>\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<op>==|!=|<>|<=|>=|&&|\|\||[<>!$@.\[\]\(\),?*-])|(?P<word>[A-Za-z_][A-Za-z_0-9]*))"
)


def _tokens(text: str) -> List[Tuple[str, str]]:
    out, at = [], 0
    text = text.rstrip()
    while at < len(text):
        match = _TOKEN.match(text, at)
        if not match or match.end() == at:
            raise Refused(f"the JSON path '{text}'")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        at = match.end()
    return out


class _PathParser:
    """A parser of the SQL/JSON path subset: lax/strict, ``$``, ``.key``, ``."key"``,
    ``.*``, ``[i]``, ``[i to j]``, ``[last]``, ``[last - i]``, ``[*]``, and filters
    ``?(@... op literal)`` with ``&&``, ``||``, ``!``, ``exists``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> Tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("", "")

    def take(self, value: Optional[str] = None) -> Tuple[str, str]:
        token = self.peek()
        if value is not None and token[1].lower() != value:
            raise Refused(f"the JSON path '{self.text}'")
        self.at += 1
        return token

    def path(self) -> Tuple[str, list]:
        mode = "lax"
        if self.peek()[0] == "word" and self.peek()[1].lower() in ("lax", "strict"):
            mode = self.take()[1].lower()
        self.take("$")
        steps = self.steps()
        if self.at != len(self.tokens):
            raise Refused(f"the JSON path '{self.text}'")
        return mode, steps

    def steps(self) -> list:
        steps: list = []
        while True:
            kind, value = self.peek()
            if value == ".":
                self.take()
                kind, value = self.take()
                if value == "*":
                    steps.append(("members",))
                elif kind == "word":
                    steps.append(("member", value))
                elif kind == "str":
                    steps.append(("member", json.loads(value)))
                else:
                    raise Refused(f"the JSON path '{self.text}'")
            elif value == "[":
                self.take()
                if self.peek()[1] == "*":
                    self.take()
                    self.take("]")
                    steps.append(("elements",))
                    continue
                subscripts = [self.subscript()]
                while self.peek()[1] == ",":
                    self.take()
                    subscripts.append(self.subscript())
                self.take("]")
                steps.append(("index", subscripts))
            elif value == "?":
                self.take()
                self.take("(")
                predicate = self.disjunction()
                self.take(")")
                steps.append(("filter", predicate))
            else:
                return steps

    def subscript(self) -> tuple:
        start = self.index()
        if self.peek()[0] == "word" and self.peek()[1].lower() == "to":
            self.take()
            return (start, self.index())
        return (start, start)

    def index(self) -> tuple:
        kind, value = self.take()
        if kind == "num" and re.fullmatch(r"\d+", value):
            return ("at", int(value))
        if kind == "word" and value.lower() == "last":
            if self.peek()[1] == "-":
                self.take()
                kind, value = self.take()
                if kind != "num" or not value.isdigit():
                    raise Refused(f"the JSON path '{self.text}'")
                return ("last", int(value))
            return ("last", 0)
        raise Refused(f"the JSON path '{self.text}'")

    def disjunction(self) -> tuple:
        left = self.conjunction()
        while self.peek()[1] == "||":
            self.take()
            left = ("or", left, self.conjunction())
        return left

    def conjunction(self) -> tuple:
        left = self.negation()
        while self.peek()[1] == "&&":
            self.take()
            left = ("and", left, self.negation())
        return left

    def negation(self) -> tuple:
        if self.peek()[1] == "!":
            self.take()
            self.take("(")
            inner = self.disjunction()
            self.take(")")
            return ("not", inner)
        if self.peek()[1] == "(":
            self.take()
            inner = self.disjunction()
            self.take(")")
            return inner
        if self.peek()[0] == "word" and self.peek()[1].lower() == "exists":
            self.take()
            self.take("(")
            operand = self.operand()
            self.take(")")
            return ("exists", operand)
        left = self.operand()
        op = self.take()[1]
        if op not in ("==", "!=", "<>", "<", "<=", ">", ">="):
            raise Refused(f"the JSON path '{self.text}'")
        return ("cmp", op, left, self.operand())

    def operand(self) -> tuple:
        kind, value = self.peek()
        if value == "@":
            self.take()
            return ("current", self.steps())
        self.take()
        if kind == "num":
            return ("literal", Num(value, not re.fullmatch(r"-?\d+", value)))
        if kind == "str":
            return ("literal", json.loads(value))
        if kind == "word" and value.lower() in ("true", "false", "null"):
            return ("literal", {"true": True, "false": False, "null": None}[value.lower()])
        raise Refused(f"the JSON path '{self.text}'")


def _is_array(value: Any) -> bool:
    return isinstance(value, list) and not isinstance(value, Obj)


def _apply(items: list, steps: list, lax: bool) -> list:
    for step in steps:
        out: list = []
        for item in items:
            out.extend(_step(item, step, lax))
        items = out
    return items


def _step(item: Any, step: tuple, lax: bool) -> list:
    kind = step[0]
    if kind in ("member", "members"):
        if _is_array(item) and lax:
            return [x for element in item for x in _step(element, step, lax)]
        if not isinstance(item, Obj):
            if lax:
                return []
            raise PathError("member accessor on a non-object")
        if kind == "members":
            return [v for _k, v in item]
        found, value = item.get(step[1])
        if not found:
            if lax:
                return []
            raise PathError(f"no member {step[1]}")
        return [value]
    if kind in ("elements", "index"):
        if not _is_array(item):
            if not lax:
                raise PathError("array accessor on a non-array")
            item = [item]
        if kind == "elements":
            return list(item)
        out = []
        size = len(item)
        for start, end in step[1]:
            first = start[1] if start[0] == "at" else size - 1 - start[1]
            last = end[1] if end[0] == "at" else size - 1 - end[1]
            for position in range(first, last + 1):
                if 0 <= position < size:
                    out.append(item[position])
                elif not lax:
                    raise PathError("array index out of bounds")
        return out
    if kind == "filter":
        if _is_array(item) and lax:
            return [x for x in item if _predicate(x, step[1], lax) is True]
        return [item] if _predicate(item, step[1], lax) is True else []
    raise PathError(f"unknown step {kind}")


def _operand(current: Any, operand: tuple, lax: bool) -> list:
    if operand[0] == "literal":
        return [operand[1]]
    return _apply([current], operand[1], lax)


def _compare(left: Any, right: Any, op: str) -> Optional[bool]:
    if isinstance(left, bool) or isinstance(right, bool) or left is None or right is None:
        if left is None and right is None:
            a, b = 0, 0
        elif isinstance(left, bool) and isinstance(right, bool):
            a, b = int(left), int(right)
        elif op in ("==", "!=", "<>") and (left is None or right is None):
            equal = left is None and right is None
            return equal if op == "==" else not equal
        else:
            return None
    elif isinstance(left, Num) and isinstance(right, Num):
        a, b = left.value(), right.value()
    elif isinstance(left, str) and isinstance(right, str):
        a, b = left, right  # type: ignore[assignment]
    else:
        return None  # an error: unknown
    return {
        "==": a == b,
        "!=": a != b,
        "<>": a != b,
        "<": a < b,
        "<=": a <= b,
        ">": a > b,
        ">=": a >= b,
    }[op]


def _predicate(current: Any, predicate: tuple, lax: bool) -> Optional[bool]:
    kind = predicate[0]
    if kind == "and":
        left, right = (_predicate(current, p, lax) for p in predicate[1:])
        if left is False or right is False:
            return False
        return None if left is None or right is None else True
    if kind == "or":
        left, right = (_predicate(current, p, lax) for p in predicate[1:])
        if left is True or right is True:
            return True
        return None if left is None or right is None else False
    if kind == "not":
        inner = _predicate(current, predicate[1], lax)
        return None if inner is None else not inner
    try:
        if kind == "exists":
            return bool(_operand(current, predicate[1], lax))
        op, left_operand, right_operand = predicate[1:]
        lefts = _operand(current, left_operand, lax)
        rights = _operand(current, right_operand, lax)
    except PathError:
        return None
    if lax:  # arrays in comparisons are unwrapped
        lefts = [x for v in lefts for x in (v if _is_array(v) else [v])]
        rights = [x for v in rights for x in (v if _is_array(v) else [v])]
    found, unknown = False, False
    for a in lefts:
        for b in rights:
            if not _is_scalar(a) or not _is_scalar(b):
                unknown = True
                continue
            result = _compare(a, b, op)
            if result is None:
                unknown = True
            elif result:
                found = True
    if found and lax:
        return True
    if unknown:
        return None
    return found


_PATHS: dict = {}


def sql_json_path(text: str) -> Tuple[bool, list]:
    compiled = _PATHS.get(text)
    if compiled is None:
        mode, steps = _PathParser(text).path()
        compiled = _PATHS[text] = (mode == "lax", steps)
    return compiled


def evaluate(text: str, path: str) -> list:
    """The SQL/JSON sequence ``path`` selects in the JSON ``text`` (PathError: an error)."""
    lax, steps = sql_json_path(path)
    try:
        document = parse(text)
    except JsonSyntaxError:
        raise PathError("the input is not JSON") from None
    return _apply([document], steps, lax)


@udf("json_exists", "boolean")
def json_exists(
    text: Optional[str], path: Optional[str], on_error: str = "false"
) -> Optional[bool]:
    """json_exists; ``on_error`` false (its default), true, unknown or error."""
    if text is None or path is None:
        return None
    try:
        return bool(evaluate(text, path))
    except PathError as exc:
        if on_error == "error":
            raise AthenaError(f"PATH_EVALUATION_ERROR: {exc}") from None
        return {"true": True, "false": False}.get(on_error)


def _query_error(mode: str, detail: str) -> Optional[str]:
    if mode == "error":
        raise AthenaError(f"PATH_EVALUATION_ERROR: {detail}")
    return None


@udf("json_query", "string")
def json_query(
    text: Optional[str],
    path: Optional[str],
    wrapper: str,
    omit_quotes: bool,
    on_empty: str,
    on_error: str,
) -> Optional[str]:
    """json_query: ``wrapper`` without/with/conditional; ``on_empty``/``on_error`` null,
    error, empty_array or empty_object."""
    if text is None or path is None:
        return None
    empties = {"empty_array": "[]", "empty_object": "{}"}
    try:
        items = evaluate(text, path)
    except PathError as exc:
        if on_error in empties:
            return empties[on_error]
        return _query_error(on_error, str(exc))
    if not items:  # ON EMPTY, before any wrapper
        if on_empty in empties:
            return empties[on_empty]
        return _query_error(on_empty, "empty")
    if wrapper == "with" or (
        wrapper == "conditional" and not (len(items) == 1 and not _is_scalar(items[0]))
    ):
        return dump(items)
    if len(items) > 1:
        if on_error in empties:
            return empties[on_error]
        return _query_error(on_error, "more than one item without an array wrapper")
    item = items[0]
    if omit_quotes and isinstance(item, str):
        return item
    return dump(item)


def _value_text(item: Any) -> Optional[str]:
    if isinstance(item, Num) and item.is_float:
        raise Refused("json_value of a number with a fraction")
    return _scalar_text(item)


@udf("json_value", "string")
def json_value(
    text: Optional[str],
    path: Optional[str],
    returning: str,
    on_empty: str,
    empty_default: Optional[str],
    on_error: str,
    error_default: Optional[str],
) -> Optional[str]:
    """json_value: the one scalar ``path`` selects, as text of the ``returning`` type
    (checked here, so that a value Athena cannot convert takes the ON ERROR behaviour);
    ``on_empty``/``on_error`` null, error or default (the ``*_default`` text)."""
    if text is None or path is None:
        return None

    def error(detail: str) -> Optional[str]:
        if on_error == "default":
            return error_default
        return _query_error(on_error, detail)

    try:
        items = evaluate(text, path)
    except PathError as exc:
        return error(str(exc))
    if not items:
        if on_empty == "default":
            return empty_default
        return _query_error(on_empty, "empty")
    if len(items) > 1 or not _is_scalar(items[0]):
        return error("not a single scalar")
    try:
        value = _value_text(items[0])
    except Refused as refused:
        raise AthenaError(
            f"NOT_SUPPORTED: the Athena emulator cannot run {refused.construct}"
        ) from None
    if value is None:
        return None
    if returning.startswith("i"):
        bits = int(returning[1:])
        if not isinstance(items[0], (Num, str)) or isinstance(items[0], bool):
            return error("not a number")
        try:
            number = int(value.strip())
        except ValueError:
            return error("not an integer")
        if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            return error("out of range")
        return str(number)
    if returning.startswith("c"):
        size = int(returning[1:])
        if len(value) > size:
            return error("too long")
    return value


def _behaviour(value: Any, node: exp.Expression, allowed: Tuple[str, ...]) -> Tuple[str, Any]:
    if value is None:
        return "null", None
    if isinstance(value, exp.Expression) and not isinstance(value, exp.Literal):
        raise Refused(f"{node.sql('athena')} (an ON EMPTY / ON ERROR behaviour)")
    if isinstance(value, exp.Literal):
        if "default" not in allowed:
            raise Refused(f"{node.sql('athena')} (an ON EMPTY / ON ERROR behaviour)")
        return "default", value
    text = " ".join(str(value).upper().split())
    for word, mode in (
        ("NULL", "null"),
        ("ERROR", "error"),
        ("EMPTY ARRAY", "empty_array"),
        ("EMPTY OBJECT", "empty_object"),
    ):
        if text.startswith(word + " ON") and mode in allowed:
            return mode, None
    raise Refused(f"{node.sql('athena')} ({text})")


def json_query_(node: exp.Expression) -> exp.Expression:
    path = node.expression
    if not (isinstance(path, exp.Literal) and path.is_string):
        raise Refused(f"{node.sql('athena')} (a path that is not a literal)")
    sql_json_path(path.this)  # refused at translation when the emulator cannot read it
    option = str(node.args.get("option") or "").upper()
    option = " ".join(option.split())
    wrappers = {
        "": "without",
        "WITHOUT ARRAY WRAPPER": "without",
        "WITHOUT WRAPPER": "without",
        "WITH ARRAY WRAPPER": "with",
        "WITH WRAPPER": "with",
        "WITH UNCONDITIONAL ARRAY WRAPPER": "with",
        "WITH CONDITIONAL ARRAY WRAPPER": "conditional",
        "WITH CONDITIONAL WRAPPER": "conditional",
    }
    if option not in wrappers:
        raise Refused(f"{node.sql('athena')} ({option})")
    quotes = node.args.get("quote")
    omit = False
    if quotes is not None:
        if quotes.args.get("scalar"):
            raise Refused(f"{node.sql('athena')} (ON SCALAR STRING)")
        omit = str(quotes.args.get("option") or "").upper() == "OMIT"
    condition = node.args.get("on_condition")
    empty = error = None
    if condition is not None:
        if condition.args.get("null"):
            raise Refused(node.sql("athena"))
        empty, error = condition.args.get("empty"), condition.args.get("error")
    allowed = ("null", "error", "empty_array", "empty_object")
    on_empty, _ = _behaviour(empty, node, allowed)
    on_error, _ = _behaviour(error, node, allowed)
    return _json_query_call(node.this, path, wrappers[option], omit, on_empty, on_error)


def _json_query_call(
    value: exp.Expression, path: exp.Expression, wrapper: str, omit: bool, empty: str, error: str
) -> exp.Expression:
    out = udf_call(
        "json_query",
        value,
        path,
        exp.Literal.string(wrapper),
        exp.Boolean(this=omit),
        exp.Literal.string(empty),
        exp.Literal.string(error),
    )
    out.meta["athena_json_query"] = True
    # a JSON value when its input is one, varchar otherwise (Trino's json.md)
    return typed(out, JSON_TYPE if is_json(value) else exp.DataType.build("varchar"))


@rewrites(exp.JSONValue, "json_value")
def json_value_(node: exp.Expression) -> exp.Expression:
    path = node.args.get("path")
    if not (isinstance(path, exp.Literal) and path.is_string):
        raise Refused(f"{node.sql('athena')} (a path that is not a literal)")
    sql_json_path(path.this)
    returning = node.args.get("returning")
    code, target = "s", None
    if returning:
        bits = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}
        if returning.this in bits:
            code, target = f"i{bits[returning.this]}", returning
        elif returning.this == T.CHAR and returning.expressions:
            code, target = f"c{returning.expressions[0].this.this}", returning
        elif returning.this == T.VARCHAR and not returning.expressions:
            code = "s"
        else:
            raise Refused(f"{node.sql('athena')} (RETURNING {returning.sql('athena')})")
    condition = node.args.get("on_condition")
    empty = error = None
    if condition is not None:
        if condition.args.get("null"):
            raise Refused(node.sql("athena"))
        empty, error = condition.args.get("empty"), condition.args.get("error")
    on_empty, empty_default = _behaviour(empty, node, ("null", "error", "default"))
    on_error, error_default = _behaviour(error, node, ("null", "error", "default"))
    for default in (empty_default, error_default):
        if default is not None and not default.is_string and code.startswith("c"):
            raise Refused(f"{node.sql('athena')} (a DEFAULT of another type)")
    out = udf_call(
        "json_value",
        node.this,
        path,
        exp.Literal.string(code),
        exp.Literal.string(on_empty),
        _default_text(empty_default),
        exp.Literal.string(on_error),
        _default_text(error_default),
    )
    if target is None:
        return typed(out, "varchar")
    if target.this == T.CHAR:
        size = int(target.expressions[0].this.this)
        return typed(spark(f"rpad(_0, {size}, ' ')", out), target)
    return typed(spark(f"CAST(_0 AS {target.sql('spark')})", out), target)


def _default_text(default: Optional[exp.Expression]) -> exp.Expression:
    if default is None:
        return spark("CAST(NULL AS STRING)")
    return exp.Literal.string(str(default.this))


@rewrites("json_exists", "json_exists")
def json_exists_(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(node.sql("athena"))
    text, path = node.expressions
    if not (isinstance(path, exp.Literal) and path.is_string):
        raise Refused(f"{node.sql('athena')} (a path that is not a literal)")
    sql_json_path(path.this)
    out = udf_call("json_exists", text, path, exp.Literal.string("false"))
    return typed(out, "boolean")


# ---- json_table ---------------------------------------------------------------------------
def _table_rows(item: Any, schema: dict, lax: bool) -> list:
    """The rows of one COLUMNS schema for a context item, Trino's default plan: the
    parent OUTER its nested paths, sibling nested paths UNION."""
    own = {}
    for column in schema["columns"]:
        if "nested" not in column:
            own[column["name"]] = _column_value(item, column)
    union: list = []
    for column in schema["columns"]:
        if "nested" in column:
            nested_lax, steps = sql_json_path(column["nested"])
            try:
                items = _apply([item], steps, nested_lax)
            except PathError:
                items = []
            for sub in items:
                union.extend(_table_rows(sub, column, nested_lax))
    return [{**own, **row} for row in union] if union else [own]


def _column_value(item: Any, column: dict) -> Any:
    column_lax, steps = sql_json_path(column["path"])
    try:
        found = _apply([item], steps, column_lax)
    except PathError:
        return None  # NULL ON ERROR, the default
    if len(found) != 1 or not _is_scalar(found[0]):
        return None  # NULL ON EMPTY; an error (NULL ON ERROR)
    try:
        return from_json(found[0], column["type"])
    except CastError:
        return None


@udf("json_table", "string")
def json_table(text: Optional[str], spec: str) -> Optional[str]:
    """json_table's rows as a JSON array of objects (for from_json and inline)."""
    if text is None:
        return "[]"
    table = json.loads(spec)
    lax, steps = sql_json_path(table["path"])
    try:
        items = _apply([parse(text)], steps, lax)
    except (PathError, JsonSyntaxError):
        return "[]"  # EMPTY ON ERROR, the default
    try:
        rows = [row for item in items for row in _table_rows(item, table, lax)]
    except Refused as refused:
        raise AthenaError(
            f"NOT_SUPPORTED: the Athena emulator cannot run {refused.construct}"
        ) from None
    return json.dumps(rows, ensure_ascii=False)


def _table_columns(schema: exp.Expression, what: str, names: list) -> list:
    columns = []
    for column in schema.expressions:
        if not isinstance(column, exp.JSONColumnDef):
            raise Refused(what)
        path = column.args.get("path")
        if column.args.get("ordinality") or column.args.get("format_json"):
            raise Refused(f"{what} (FOR ORDINALITY, FORMAT JSON)")
        if not (isinstance(path, exp.Literal) and path.is_string):
            raise Refused(f"{what} (a column without PATH)")
        sql_json_path(path.this)
        nested = column.args.get("nested_schema")
        if nested is not None:
            columns.append({"nested": path.this, "columns": _table_columns(nested, what, names)})
            continue
        kind = descriptor(column.args.get("kind"), what)
        if kind not in ("s", "d", "b") and not (isinstance(kind, list) and kind[0] == "i"):
            raise Refused(f"{what} (a column of type {column.args['kind'].sql('athena')})")
        names.append((column.name, kind))
        columns.append({"name": column.name, "type": kind, "path": path.this})
    return columns


@rewrites(exp.JSONTable, "json_table")
def json_table_(node: exp.Expression) -> exp.Expression:
    what = "json_table"
    path, schema = node.args.get("path"), node.args.get("schema")
    if node.args.get("error_handling") or node.args.get("empty_handling"):
        raise Refused(f"{what} (ON ERROR / ON EMPTY)")
    if not (isinstance(path, exp.Literal) and path.is_string) or schema is None:
        raise Refused(what)
    sql_json_path(path.this)
    names: list = []
    spec = {"path": path.this, "columns": _table_columns(schema, what, names)}
    if len({n.lower() for n, _ in names}) != len(names):
        raise Refused(f"{what} (two columns of one name)")
    ddl = ",".join(f"`{n.lower()}`:{_spark_ddl(k)}" for n, k in names)
    rows = udf_call("json_table", node.this, exp.Literal.string(json.dumps(spec)))
    return call("inline", spark(f"from_json(_0, 'array<struct<{ddl}>>')", rows))


_QUERY_CLAUSES = re.compile(
    r"(?:(?P<wrapper>WITHOUT (?:ARRAY )?WRAPPER|WITH (?:(?:CONDITIONAL|UNCONDITIONAL) )?"
    r"(?:ARRAY )?WRAPPER) ?)?(?:(?P<quotes>KEEP|OMIT) QUOTES ?)?"
    r"(?:(?P<empty>ERROR|NULL|EMPTY ARRAY|EMPTY OBJECT) ON EMPTY ?)?"
    r"(?:(?P<error>ERROR|NULL|EMPTY ARRAY|EMPTY OBJECT) ON ERROR)?"
)


def _clause_text(node: exp.Expression) -> str:
    clauses = node.expressions[2] if len(node.expressions) == 3 else None
    if not (isinstance(clauses, exp.Literal) and clauses.is_string):
        raise Refused(node.sql("athena"))
    return " ".join(clauses.this.upper().split())


@rewrites(_QUERY, "json_query")
def json_query_clauses(node: exp.Expression) -> exp.Expression:
    """json_query with clauses sqlglot cannot parse (json_clauses wrote them as text)."""
    text = _clause_text(node)
    match = _QUERY_CLAUSES.fullmatch(text)
    value, path = node.expressions[0], node.expressions[1]
    if not match or not (isinstance(path, exp.Literal) and path.is_string):
        raise Refused(f"json_query ... {text}")
    sql_json_path(path.this)
    wrapper = (match.group("wrapper") or "WITHOUT").split()
    kind = "without" if wrapper[0] == "WITHOUT" else "with"
    if "CONDITIONAL" in wrapper:
        kind = "conditional"
    modes = {None: "null", "NULL": "null", "ERROR": "error"}
    modes.update({"EMPTY ARRAY": "empty_array", "EMPTY OBJECT": "empty_object"})
    omit = match.group("quotes") == "OMIT"
    empty, error = modes[match.group("empty")], modes[match.group("error")]
    return _json_query_call(value, path, kind, omit, empty, error)


@rewrites(_EXISTS, "json_exists")
def json_exists_clauses(node: exp.Expression) -> exp.Expression:
    """json_exists with an ON ERROR clause (json_clauses wrote it as text)."""
    text = _clause_text(node)
    match = re.fullmatch(r"(TRUE|FALSE|UNKNOWN|ERROR) ON ERROR", text)
    value, path = node.expressions[0], node.expressions[1]
    if not match or not (isinstance(path, exp.Literal) and path.is_string):
        raise Refused(f"json_exists ... {text}")
    sql_json_path(path.this)
    out = udf_call("json_exists", value, path, exp.Literal.string(match.group(1).lower()))
    return typed(out, "boolean")


_UNSUPPORTED_PATH = (
    "a JSON path of json_extract/json_extract_scalar with wildcards, filters, slices or "
    "unions (the emulator reads keys and array indexes only)"
)


def _path_part_check(node: exp.Expression) -> Optional[str]:
    return _UNSUPPORTED_PATH  # sqlglot cannot print these parts back as Athena SQL


_part: Any
for _part in (
    exp.JSONPathFilter,
    exp.JSONPathRecursive,
    exp.JSONPathScript,
    exp.JSONPathSlice,
    exp.JSONPathSelector,
    exp.JSONPathUnion,
    exp.JSONPathWildcard,
):
    same(_part, "json path", _path_part_check)

# the parts of these constructs, checked by their entries above
for _cls, _name in (
    (exp.JSONKeyValue, "json_object"),
    (exp.JSONPath, "json path"),
    (exp.JSONPathRoot, "json path"),
    (exp.JSONPathKey, "json path"),
    (exp.JSONPathSubscript, "json path"),
    (exp.JSONExtractQuote, "json_query"),
    (exp.OnCondition, "json_query"),
    (exp.JSONSchema, "json_table"),
    (exp.JSONColumnDef, "json_table"),
):
    same(_cls, _name)


__all__ = ["canonical", "cast", "dump", "is_json", "java_double", "parse"]
