"""Athena's JSON type and JSON functions: JSON literals and ``json_parse``, ``json_format``,
CAST to and from JSON, ``json_extract``/``json_extract_scalar``/``json_size`` (Trino's
legacy JSON paths), ``json_array_get``/``_length``/``_contains``, ``is_json_scalar``,
``json_object``, ``json_array``, and the SQL/JSON ``json_query``/``json_value``/
``json_exists``, ``json_table`` (Trino's ``functions/json.md``). Each an entry of the
function table (functions/table.py) backed by a Python UDF (udfs.py); registered when the
``athena_spark_emulator.sql`` package is imported. The page is four modules: this one (JSON
text, json_parse, json_format, is_json_scalar, the legacy JSON path functions and
:func:`json_clauses`), json_cast.py (CAST to and from JSON, json_array, json_object),
json_path.py (json_query, json_value, json_exists) and json_table.py. Examples:
``tests/conformance/examples/json.yml``.

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
from decimal import Decimal
from typing import Any, Callable, Iterator, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import spark, type_of, typed
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

T = exp.DataType.Type
_cls: Any
_name: str


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


def json_double(value: float) -> str:
    """A double as Trino writes it into JSON (Jackson's writeNumber): Java's text, NaN and
    the infinities as JSON strings (Jackson's QUOTE_NON_NUMERIC_NUMBERS, on by default), so
    ``CAST(nan() AS JSON)`` is ``"NaN"`` and ``JSON '[9.6E400]'`` is ``["Infinity"]``
    (JsonTypeUtil.jsonParse reads the number as a double)."""
    text = java_double(value)
    return text if math.isfinite(value) else quote(text)


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
        return json_double(float(value.text)) if value.is_float else str(int(value.text))
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


__all__ = ["canonical", "dump", "is_json", "java_double", "json_double", "parse"]
