"""The second oracle of the conformance corpus: the assertions of Trino's own unit tests,
read from a Trino git directory at one commit (release 410, the base of Athena engine v3)
and written as corpus entries (tests/conformance/trino_examples/<family>.yml).

    python -m tests.conformance.trino_tests --trino /work/.mirror/martint+trino/repo \\
        --commit 9300afd0a417eae58f84bb01309a7f8501d02302 --out tests/conformance/trino_examples/

It reads the tests of core/trino-main (``io/trino/operator/scalar``, ``.../aggregation``,
``io/trino/type``, ``io/trino/sql/query``) without compiling them: each statement that
starts with an assertion is parsed (tests/conformance/java_source.py) and converted when
every part of it is known with certainty:

- ``assertThat(assertions.function("abs", "-1")).isEqualTo(1)`` (also ``expression(...)``
  with ``.binding(name, sql)``, and ``operator(ADD, "1", "2")``): ``SELECT abs(-1)``; the
  expected value is the Java value as Athena prints it (tests/conformance/trino_values.py),
  its type when the Java class implies one (``1L`` is bigint), or ``hasType(...)``'s;
- ``.isNull(TYPE)``: NULL of that type; ``.matches("TIMESTAMP '...'")``: the literal's
  value and type (Trino's ``matches`` compares both);
- ``assertThat(assertions.query("SELECT ...")).matches("VALUES ...")``: rows (in any order
  unless ``.ordered()``) and column types (unless ``.skippingTypesCheck()``);
  ``assertions.assertQueryReturnsEmptyResult(...)``: no rows;
- ``assertTrinoExceptionThrownBy(() -> ...).hasErrorCode(CODE)`` / ``assertThatThrownBy
  (...).hasMessage(...)``: ``fails: CODE`` (or ``true``) and ``message``.

Bindings are put inline, parenthesised (Trino runs them as a ``VALUES`` row; the column
forms of the harness do that). Skipped, with the reason counted (EXTRACTION.md): values
computed in Java (loop variables, ``Math.*``), Java objects without a certain text
(``SqlTimestamp``, intervals, rows), statements whose result depends on the session time
zone (the tests run in ``Pacific/Apia``, Athena in UTC), ``now()`` or randomness, functions
that only the tests register, test classes with their own catalogs or session properties,
and the repeats of one operation over fractional precisions 1, 2, 4, 5, 7, 8, 10 and 11
(0, 3, 6, 9 and 12 are kept). The output is sorted and stable: the same commit gives the
same files.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import yaml

from tests.conformance.java_source import (
    JavaSyntaxError,
    Node,
    Statement,
    parse_expression,
    statements,
    tokenize,
)
from tests.conformance.trino_values import (
    JValue,
    Skip,
    _to_float32,
    decimal_text,
    java_type_of,
    jvalue,
    sql_literal,
    text,
    values_rows,
)

TEST_ROOT = "core/trino-main/src/test/java/io/trino/"
FOLDERS = ("operator/scalar/", "operator/aggregation/", "type/", "sql/query/")
RELEASE_410 = "9300afd0a417eae58f84bb01309a7f8501d02302"
OUT_DIR = Path(__file__).resolve().parent / "trino_examples"
KEPT_PRECISIONS = {0, 3, 6, 9, 12}

# (pattern on the path below TEST_ROOT, family): the first that matches names the file
FAMILIES: Tuple[Tuple[str, str], ...] = (
    (r"Regexp|Like|JoniRegexp|Re2j", "regexp"),
    (r"Json", "json"),
    (
        r"/(timestamp|timestamptz|time|timetz|date|interval)/|DateTime|Date\b|Interval|Timestamp|Time",
        "datetime",
    ),
    (r"Decimal", "decimal"),
    (r"Array|Sequence|Repeat|Zip|Flatten|Slice", "array"),
    (r"Map", "map"),
    (r"Row", "row"),
    (r"Lambda|Transform|Reduce|Filter|Match", "lambda"),
    (r"Bitwise", "bitwise"),
    (r"Varbinary|Hmac", "binary"),
    (r"IpAddress|Ip\w*Operators", "ipaddress"),
    (r"Uuid", "uuid"),
    (r"Url", "url"),
    (r"Conditions|Conditional|Coalesce|Nullif|TryFunction|If\b", "conditional"),
    (r"String|Varchar|Char|Trim|ConcatWs|FormatNumber|WordStem|Luhn|Soundex|Format\b", "string"),
    (r"Math|Tinyint|Smallint|Integer|Bigint|Double|Real|Numeric|DataSize|ColorFunctions", "math"),
    (r"Boolean|Logical", "logical"),
    (r"operator/aggregation/", "aggregate"),
    (r"sql/query/", "query"),
    (r"type/", "types"),
    (r"", "scalar"),
)

OPERATORS = {
    "ADD": "({0}) + ({1})",
    "SUBTRACT": "({0}) - ({1})",
    "MULTIPLY": "({0}) * ({1})",
    "DIVIDE": "({0}) / ({1})",
    "MODULUS": "({0}) % ({1})",
    "NEGATION": "-({0})",
    "EQUAL": "({0}) = ({1})",
    "LESS_THAN": "({0}) < ({1})",
    "LESS_THAN_OR_EQUAL": "({0}) <= ({1})",
    "IS_DISTINCT_FROM": "({0}) IS DISTINCT FROM ({1})",
    "SUBSCRIPT": "({0})[{1}]",
}

_TYPE_CONSTANTS = {
    "BIGINT": "bigint",
    "INTEGER": "integer",
    "SMALLINT": "smallint",
    "TINYINT": "tinyint",
    "DOUBLE": "double",
    "REAL": "real",
    "BOOLEAN": "boolean",
    "VARCHAR": "varchar",
    "VARBINARY": "varbinary",
    "DATE": "date",
    "JSON": "json",
    "UUID": "uuid",
    "IPADDRESS": "ipaddress",
    "UNKNOWN": "unknown",
    "TIME": "time(3)",
    "TIME_MILLIS": "time(3)",
    "TIMESTAMP_SECONDS": "timestamp(0)",
    "TIMESTAMP_MILLIS": "timestamp(3)",
    "TIMESTAMP_MICROS": "timestamp(6)",
    "TIMESTAMP_NANOS": "timestamp(9)",
    "TIMESTAMP_PICOS": "timestamp(12)",
    "TIMESTAMP_TZ_MILLIS": "timestamp(3) with time zone",
    "TIMESTAMP_TZ_MICROS": "timestamp(6) with time zone",
    "TIMESTAMP_TZ_NANOS": "timestamp(9) with time zone",
    "TIME_WITH_TIME_ZONE": "time(3) with time zone",
    "INTERVAL_DAY_TIME": "interval day to second",
    "INTERVAL_YEAR_MONTH": "interval year to month",
}
_TYPE_FACTORIES = {
    "createVarcharType": "varchar({0})",
    "createCharType": "char({0})",
    "createDecimalType": "decimal({0},{1})",
    "createTimestampType": "timestamp({0})",
    "createTimestampWithTimeZoneType": "timestamp({0}) with time zone",
    "createTimeType": "time({0})",
    "createTimeWithTimeZoneType": "time({0}) with time zone",
    "createUnboundedVarcharType": "varchar",
}
_LISTS = {"of", "asList", "newArrayList", "copyOf"}
_STATIC_FIELDS = {
    ("Double", "NaN"): jvalue("double", float("nan")),
    ("Double", "POSITIVE_INFINITY"): jvalue("double", float("inf")),
    ("Double", "NEGATIVE_INFINITY"): jvalue("double", float("-inf")),
    ("Float", "NaN"): jvalue("float", float("nan")),
    ("Float", "POSITIVE_INFINITY"): jvalue("float", float("inf")),
    ("Float", "NEGATIVE_INFINITY"): jvalue("float", float("-inf")),
    ("Long", "MAX_VALUE"): jvalue("long", 2**63 - 1),
    ("Long", "MIN_VALUE"): jvalue("long", -(2**63)),
    ("Integer", "MAX_VALUE"): jvalue("int", 2**31 - 1),
    ("Integer", "MIN_VALUE"): jvalue("int", -(2**31)),
    ("Short", "MAX_VALUE"): jvalue("short", 2**15 - 1),
    ("Short", "MIN_VALUE"): jvalue("short", -(2**15)),
    ("Byte", "MAX_VALUE"): jvalue("byte", 2**7 - 1),
    ("Byte", "MIN_VALUE"): jvalue("byte", -(2**7)),
}


# ---------------------------------------------------------------------------------------
# What an assertion says


@dataclass
class Provider:
    """``assertions.function/expression/operator/query(...)`` with its bindings."""

    kind: str  # "expression" or "query"
    sql: str
    bindings: Dict[str, str]


@dataclass
class Entry:
    family: str
    source: str  # path:line
    sql: str
    expect: Any = None  # scalar text / None, or rows (query)
    rows: bool = False  # expect is a list of rows
    fails: Any = None  # error code, or True
    message: Optional[str] = None
    type: Any = None  # a type, or one per column
    ordered: bool = False

    def as_yaml(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"source": self.source, "sql": self.sql}
        if self.fails is not None:
            out["fails"] = self.fails
            if self.message:
                out["message"] = self.message
            return out
        out["expect"] = self.expect
        if self.type is not None:
            out["type"] = self.type
        if self.ordered:
            out["ordered"] = True
        return out

    def key(self) -> Tuple[str, str, str]:
        return (self.family, self.sql, repr(self.as_yaml() | {"source": ""}))


class Interpreter:
    """Evaluates the Java of one test file's assertions: constants of the file, literals,
    the helpers named above; anything else is a Skip."""

    def __init__(self, constants: Dict[str, JValue]) -> None:
        self.constants = constants

    def value(self, node: Node) -> JValue:
        handler = getattr(self, f"_{node.kind}", None)
        if handler is None:
            raise Skip(f"Java {node.kind} expression")
        return handler(node)

    def string(self, node: Node) -> str:
        v = self.value(node)
        if v.kind != "str":
            raise Skip("a SQL argument that is not a string")
        return v.value

    def _lit(self, node: Node) -> JValue:
        tok = node.value
        if tok.kind == "str":
            return jvalue("str", tok.text)
        if tok.kind == "char":
            return jvalue("char", tok.text)
        if tok.text in ("true", "false"):
            return jvalue("bool", tok.text == "true")
        if tok.text == "null":
            return jvalue("null", None)
        return java_number(tok.text)

    def _name(self, node: Node) -> JValue:
        name = str(node.value)
        if name in self.constants:
            return self.constants[name]
        if name in _TYPE_CONSTANTS:
            return JValue("type", _TYPE_CONSTANTS[name])
        if re.fullmatch(r"[A-Z][A-Z0-9_]+", name):
            return JValue("code", name)
        raise Skip("argument computed from a variable (loop or helper parameter)")

    def _field(self, node: Node) -> JValue:
        owner = node.target.value if node.target and node.target.kind == "name" else None
        known = _STATIC_FIELDS.get((str(owner), str(node.value)))
        if known is not None:
            return known
        if owner in ("StandardErrorCode", "OperatorType") or str(owner).endswith("Type"):
            return self._name(Node("name", node.value))
        raise Skip("a Java field value")

    def _unary(self, node: Node) -> JValue:
        v = self.value(node.args[0])
        if node.value == "-" and v.kind in ("long", "int", "short", "byte", "double", "float"):
            return JValue(v.kind, -v.value, v.type)
        raise Skip("expected value computed in Java")

    def _cast(self, node: Node) -> JValue:
        v = self.value(node.args[0])
        kinds = {"byte": "byte", "short": "short", "long": "long", "int": "int"}
        kinds.update({"double": "double", "float": "float"})
        if node.value == "Object":
            return v
        if v.kind in ("long", "int", "short", "byte") and node.value in kinds:
            return jvalue(kinds[str(node.value)], v.value)
        if v.kind in ("double", "float") and node.value in ("double", "float"):
            return jvalue(str(node.value), v.value)
        raise Skip("expected value computed in Java")

    def _binary(self, node: Node) -> JValue:
        left, right = (self.value(a) for a in node.args)
        if node.value == "+" and "str" in (left.kind, right.kind):
            return jvalue("str", java_string(left) + java_string(right))
        raise Skip("expected value computed in Java")

    def _new(self, node: Node) -> JValue:
        if node.value == "ArrayType":
            return JValue("type", f"array({self.type_name(node.args[0])})")
        raise Skip(f"Java object new {node.value}")

    def _call(self, node: Node) -> JValue:
        name = str(node.value)
        target = node.target
        if name == "formatted" and target is not None:
            return jvalue(
                "str", java_format(self.string(target), [self.value(a) for a in node.args])
            )
        if name == "format" and (target is None or target.value == "String"):
            fmt, *rest = node.args
            return jvalue("str", java_format(self.string(fmt), [self.value(a) for a in rest]))
        if name in _LISTS and (target is None or target.kind == "name"):
            owner = target.value if target is not None else ""
            if owner in ("ImmutableList", "List", "Arrays", "Lists", "") or name == "asList":
                return JValue("list", [self.value(a) for a in node.args])
            if owner in ("ImmutableMap", "Map") and name == "of":
                items = [self.value(a) for a in node.args]
                return JValue("map", list(zip(items[::2], items[1::2])))
        return self._helper(name, node.args)

    def _helper(self, name: str, args: Sequence[Node]) -> JValue:
        if name in _TYPE_FACTORIES:
            numbers = [str(self.value(a).value) for a in args]
            if name == "createDecimalType" and len(numbers) == 1:
                numbers.append("0")
            return JValue("type", _TYPE_FACTORIES[name].format(*numbers))
        if name == "decimal" and len(args) == 2:
            digits, type_name = self.string(args[0]), self.type_name(args[1])
            scale = int(re.fullmatch(r"decimal\(\d+,(\d+)\)", type_name).group(1))  # type: ignore[union-attr]
            unscaled = int(digits.replace(".", ""))
            return JValue("decimal", decimal_text(unscaled, scale), type_name)
        if name == "sqlVarbinary":
            return JValue("varbinary", self.string(args[0]).encode("ascii"), "varbinary")
        if name == "sqlVarbinaryFromHex":
            return JValue("varbinary", bytes.fromhex(self.string(args[0])), "varbinary")
        if name == "mapType" and len(args) == 2:
            return JValue("type", f"map({self.type_name(args[0])}, {self.type_name(args[1])})")
        if name == "anonymousRow":
            return JValue("type", "row(" + ", ".join(self.type_name(a) for a in args) + ")")
        if name in ("valueOf", "toString") and len(args) == 1:
            return jvalue("str", java_string(self.value(args[0])))
        raise Skip(f"Java call {name}(...)")

    def type_name(self, node: Node) -> str:
        v = self.value(node)
        if v.kind != "type":
            raise Skip("a type that is not a Trino type")
        return v.value


def java_number(literal: str) -> JValue:
    """A Java number literal's value; a ``float`` one (``754.1985f``) holds its float32
    value, so that widening it (``(double) 754.1985f``) gives 754.198486328125 as Java does."""
    t = literal.replace("_", "")
    suffix = t[-1].lower() if t[-1] in "lLfFdD" and not t.lower().startswith("0x") else ""
    if t.lower().startswith("0x") and "p" not in t.lower():
        long = t[-1] in "lL"
        return jvalue("long" if long else "int", int(t.rstrip("lL"), 16))
    if suffix == "l":
        return jvalue("long", int(t[:-1]))
    body = t[:-1] if suffix else t
    if t.lower().startswith("0x"):
        number = float.fromhex(body)
        return jvalue("float", _to_float32(number)) if suffix == "f" else jvalue("double", number)
    if suffix == "f":
        return jvalue("float", _to_float32(float(body)))
    if suffix == "d" or re.search(r"[.eE]", body):
        return jvalue("double", float(body))
    return jvalue("int", int(body))


def java_string(v: JValue) -> str:
    """String concatenation's text of a value (String.valueOf)."""
    if v.kind == "str" or v.kind == "char":
        return str(v.value) if v.kind == "str" else v.value.strip("'")
    if v.kind == "null":
        return "null"
    shown = text(v)
    if shown is None:
        raise Skip("expected value computed in Java")
    return shown


def java_format(fmt: str, args: List[JValue]) -> str:
    """``String.format`` / ``formatted`` with ``%s``, ``%d`` and ``%%`` only."""
    values = iter(args)

    def one(m: re.Match) -> str:
        if m.group(0) == "%%":
            return "%"
        if m.group(0) not in ("%s", "%d"):
            raise Skip("a Java format other than %s and %d")
        return java_string(next(values))

    return re.sub(r"%[-#+ 0,(]*\d*(?:\.\d+)?[a-zA-Z%]", one, fmt)


# ---------------------------------------------------------------------------------------
# Assertion chains


def chain(node: Node) -> Tuple[Node, List[Tuple[str, Tuple[Node, ...]]]]:
    """``a(x).b(y).c()`` -> (the call ``a(x)``, [("b", (y,)), ("c", ())])."""
    calls: List[Tuple[str, Tuple[Node, ...]]] = []
    while node.kind == "call" and node.target is not None and node.target.kind == "call":
        calls.append((str(node.value), node.args))
        node = node.target
    return node, calls[::-1]


def provider(interp: Interpreter, node: Node) -> Provider:
    """``assertions.function(...)`` / ``expression`` / ``operator`` / ``query``, with
    ``.binding(name, value)`` and a trailing ``.evaluate()`` or ``::evaluate``."""
    if node.kind == "ref":
        node = node.target  # type: ignore[assignment]
    base, calls = chain(node)
    if node.kind == "call" and node.target is not None and node.target.kind == "name":
        base, calls = node, []
    if base.target is None or base.target.kind != "name" or base.target.value != "assertions":
        raise Skip("an assertion on a Java value, not on SQL")
    made = _make_provider(interp, str(base.value), base.args)
    for name, args in calls:
        if name == "binding":
            made.bindings[interp.string(args[0])] = interp.string(args[1])
        elif name != "evaluate":
            raise Skip(f"provider method {name}")
    return made


def _make_provider(interp: Interpreter, name: str, args: Sequence[Node]) -> Provider:
    if name == "expression" and len(args) == 1:
        return Provider("expression", interp.string(args[0]), {})
    if name == "query" and len(args) == 1:
        return Provider("query", interp.string(args[0]), {})
    if name in ("function", "operator"):
        values = [interp.value(a) for a in args]
        if len(values) == 2 and values[1].kind == "list":
            values = [values[0], *values[1].value]
        if any(v.kind != "str" for v in values[1:]):
            raise Skip("a SQL argument that is not a string")
        sql_args = [str(v.value) for v in values[1:]]
        if name == "function":
            if not re.fullmatch(r"[a-z_][a-z0-9_]*", str(values[0].value)):
                raise Skip("a function name that is not a plain identifier")
            return Provider("expression", f"{values[0].value}({', '.join(sql_args)})", {})
        pattern = OPERATORS.get(str(values[0].value))
        if pattern is None:
            raise Skip(f"operator {values[0].value} has no SQL syntax")
        return Provider("expression", pattern.format(*sql_args), {})
    if name in ("expression", "query"):
        raise Skip("an assertion with its own session")
    raise Skip(f"assertions.{name}(...)")


def bound_sql(p: Provider) -> str:
    """The statement: a query as written; an expression as ``SELECT <expr>`` with each
    binding's value put in place of its name (parenthesised unless a plain literal)."""
    if p.kind == "query":
        return p.sql.strip().rstrip(";").strip()
    expr = p.sql
    for name, value in sorted(p.bindings.items()):
        expr = substitute(expr, name, value)
    return f"SELECT {expr}"


_PLAIN = re.compile(
    r"\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|'(?:[^']|'')*'|[A-Za-z]+(?: [A-Za-z]+)* '(?:[^']|'')*'|NULL|null|true|false"
)


def substitute(expr: str, name: str, value: str) -> str:
    """``name`` as an identifier of ``expr`` (outside quotes) replaced by ``value``."""
    shown = value.strip() if _PLAIN.fullmatch(value.strip()) else f"({value.strip()})"
    pattern = re.compile(rf"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|(?<![\w.]){re.escape(name)}(?!\w)")

    def one(m: re.Match) -> str:
        if m.group(0) != name:
            return m.group(0)
        rest = expr[m.end() :].lstrip()
        if rest.startswith("->") or rest.startswith("("):
            raise Skip("a binding's name is also a lambda parameter or function")
        return shown

    return pattern.sub(one, expr)


def assert_that(
    interp: Interpreter,
    family: str,
    src: str,
    args: Sequence[Node],
    calls: List[Tuple[str, Tuple[Node, ...]]],
) -> Entry:
    if len(args) != 1:
        raise Skip("assertThat with several arguments")
    p = provider(interp, args[0])
    entry = Entry(family, src, bound_sql(p), rows=p.kind == "query")
    state = {"checked": False, "types": True}
    for name, margs in calls:
        step = _STEPS.get(name)
        if step is None:
            raise Skip(f"assertion method {name}")
        step(interp, entry, margs, state)
    if not state["checked"]:
        raise Skip("an assertion that checks no value")
    if "value" in state:
        entry.expect = list_text(state["value"], entry.type)
    if not state["types"] and entry.rows:
        entry.type = None
    return entry


def _is_equal_to(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    if entry.rows:
        raise Skip("a query compared to a Java value")
    v = interp.value(args[0])
    entry.expect = text(v)
    entry.type = entry.type or java_type_of(v)
    if _has_list(v):  # an array or a row (Trino gives both as a List): decided by the type
        state["value"] = v
    state["checked"] = True


def _has_list(v: JValue) -> bool:
    if v.kind == "list":
        return True
    if v.kind == "map":
        return any(_has_list(k) or _has_list(e) for k, e in v.value)
    return False


def list_text(v: JValue, type_name: Optional[str]) -> Optional[str]:
    """A Java List as an array's text when the type is an array without rows, or as an
    anonymous row's (``{field0=1, field1=a}``) when it is a row of scalars."""
    if type_name is None:
        raise Skip("a Java list of unknown type (array or row)")
    if type_name.startswith(("array(", "map(")) and "row(" not in type_name:
        return text(v)
    row = re.fullmatch(r"row\(([^()]*(?:\(\d+(?:,\d+)?\)[^()]*)*)\)", type_name)
    if row and v.kind == "list" and not any(_has_list(e) for e in v.value):
        fields = [f for f in re.split(r",\s*(?![^()]*\))", row.group(1)) if f]
        if len(fields) == len(v.value) and all(" " not in f.strip() for f in fields):
            return "{" + ", ".join(f"field{i}={text(e, True)}" for i, e in enumerate(v.value)) + "}"
    raise Skip("a Java list of a row type")


def _is_null(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    if entry.rows:
        raise Skip("isNull on a query")
    entry.expect = None
    if args:
        entry.type = interp.type_name(args[0])
    state["checked"] = True


def _has_type(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    entry.type = interp.type_name(args[0])


def _matches(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    expected = interp.string(args[0])
    if entry.rows:
        rows, types = values_rows(expected)
        entry.expect = rows
        entry.type = None if "unknown" in types else (types[0] if len(types) == 1 else types)
    else:
        value, type_name = sql_literal(expected)
        entry.expect = value
        entry.type = None if type_name == "unknown" or "unknown" in type_name else type_name
    state["checked"] = True


def _returns_empty(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    if not entry.rows:
        raise Skip("returnsEmptyResult on an expression")
    entry.expect = []
    state["checked"] = True


def _ordered(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    entry.ordered = True


def _skip_types(
    interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
) -> None:
    state["types"] = False


def _truth(value: bool) -> Callable[..., None]:
    def step(
        interp: Interpreter, entry: Entry, args: Sequence[Node], state: Dict[str, Any]
    ) -> None:
        if entry.rows:
            raise Skip("isTrue/isFalse on a query")
        entry.expect = "true" if value else "false"
        entry.type = "boolean"
        state["checked"] = True

    return step


_STEPS: Dict[str, Callable[..., None]] = {
    "isEqualTo": _is_equal_to,
    "isNull": _is_null,
    "hasType": _has_type,
    "matches": _matches,
    "returnsEmptyResult": _returns_empty,
    "ordered": _ordered,
    "skippingTypesCheck": _skip_types,
    "isTrue": _truth(True),
    "isFalse": _truth(False),
}


def assert_throws(
    interp: Interpreter,
    family: str,
    src: str,
    args: Sequence[Node],
    calls: List[Tuple[str, Tuple[Node, ...]]],
) -> Entry:
    if len(args) != 1 or args[0].kind != "lambda":
        raise Skip("an exception assertion without a lambda")
    body = args[0].args[0]
    if body.kind == "call" and body.value == "assertThat" and body.target is None:
        body = body.args[0]
    if body.kind == "call" and body.value == "execute" and body.target is not None:
        body = Node("call", "query", body.target, body.args)
    p = provider(interp, body)
    entry = Entry(family, src, bound_sql(p), fails=True)
    for name, margs in calls:
        if name == "hasErrorCode":
            code = interp.value(margs[0])
            if code.kind != "code":
                raise Skip("an error code that is not a name")
            entry.fails = code.value
        elif name in ("hasMessage", "hasMessageContaining"):
            entry.message = re.sub(r"^line \d+:\d+: ", "", interp.string(margs[0]))
        elif name not in ("isInstanceOf", "hasMessageMatching", "hasMessageStartingWith"):
            raise Skip(f"exception assertion method {name}")
    return entry


def empty_result(interp: Interpreter, family: str, src: str, args: Sequence[Node]) -> Entry:
    return Entry(
        family, src, bound_sql(Provider("query", interp.string(args[0]), {})), expect=[], rows=True
    )


# ---------------------------------------------------------------------------------------
# Filters on the converted statement

_NONDETERMINISTIC = re.compile(
    r"\b(rand|random|uuid|shuffle|now|current_timestamp|current_time|current_date|localtime"
    r"|localtimestamp|current_timezone|current_user|current_catalog|current_schema)\b",
    re.I,
)
_SESSION_ZONE_FUNCTIONS = re.compile(
    r"\b(from_unixtime|from_unixtime_nanos|to_unixtime|from_iso8601_timestamp"
    r"|from_iso8601_timestamp_nanos|at_timezone|Pacific/Apia)\b",
    re.I,
)
_CLOCK = r"\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
# a literal with a zone; a conversion to a zoned type; a zoneless value; a cast to one
_ZONED_LITERAL = re.compile(
    rf"timestamp\s*'[^']*{_CLOCK}\s?(?:[+-]\d|[A-Za-z])[^']*'|time\s*'[^']*{_CLOCK}\s?[+-]\d[^']*'",
    re.I,
)
_ZONED_TARGET = re.compile(
    r"\bas\s+(?:timestamp|time)\s*(?:\(\d+\))?\s*with\s+time\s+zone|at\s+time\s+zone", re.I
)
_ZONELESS_VALUE = re.compile(
    r"(?:timestamp|time)\s*'[\d\s:.-]+'|\bdate\s*'|\bdate\s*\(|date_parse|from_iso8601_date", re.I
)
_ZONELESS_CAST = re.compile(
    r"\bas\s+(?:timestamp|time|date)\b(?!\s*(?:\(\d+\))?\s*with\s+time)", re.I
)
_PRECISIONS = re.compile(
    r"(?:timestamp|time)\s*'[^']*?\d{2}:\d{2}:\d{2}\.(\d+)|(?:timestamp|time)\s*\((\d+)\)", re.I
)


def session_dependent(entry: Entry) -> Optional[str]:
    """Why the statement's result depends on what differs between Trino's tests and Athena
    (None: it does not). A zoneless value turns zoned in the session's zone (a cast to a
    zoned type, AT TIME ZONE, a comparison with a zoned value); the other way a zone is
    only dropped."""
    texts = [entry.sql, str(entry.expect)]
    joined = " ".join(texts)
    if _NONDETERMINISTIC.search(entry.sql):
        return "non-deterministic or session function (now, rand, current_*)"
    zone = "depends on the session time zone (Pacific/Apia in the tests, UTC on Athena)"
    if _SESSION_ZONE_FUNCTIONS.search(joined):
        return zone
    zoneless = _ZONELESS_VALUE.search(entry.sql)
    if zoneless and _ZONED_LITERAL.search(entry.sql):  # compared or combined: coerced
        return zone
    if (zoneless or _ZONELESS_CAST.search(entry.sql)) and _ZONED_TARGET.search(entry.sql):
        return zone
    return None


def precision(entry: Entry) -> int:
    found = [int(a or b) if b else len(a) for a, b in _PRECISIONS.findall(entry.sql)]
    return max(found, default=0)


# ---------------------------------------------------------------------------------------
# Files


@dataclass
class Extraction:
    commit: str
    entries: List[Entry]
    skips: Counter
    files: int
    assertions: int


def family_of(path: str) -> str:
    rel = path[len(TEST_ROOT) :] if path.startswith(TEST_ROOT) else path
    for pattern, family in FAMILIES:
        if re.search(pattern, rel):
            return family
    return "scalar"  # pragma: no cover (the last pattern matches all)


_CUSTOM_RUNNER = re.compile(
    r"new QueryAssertions\((?:runner|queryRunner)\)|createCatalog\(|installPlugin\("
)
_CUSTOM_SESSION = re.compile(
    r"setSystemProperty\(|setCatalogSessionProperty\(|new QueryAssertions\(session\)[^;]*;[^}]*setPath"
)


def file_skip(source: str) -> Optional[str]:
    if _CUSTOM_RUNNER.search(source):
        return "test class with its own catalogs or plugins"
    if _CUSTOM_SESSION.search(source):
        return "test class with its own session properties"
    return None


def test_functions(source: str) -> List[str]:
    """Functions a test class defines for its own tests (@ScalarFunction)."""
    names = re.findall(r'@ScalarFunction\(\s*(?:value\s*=\s*)?"(\w+)"', source)
    for method in re.findall(
        r"@ScalarFunction\s*(?:\([^)]*\))?\s*(?:@\w+(?:\([^)]*\))?\s*)*public static \w+ (\w+)\(",
        source,
    ):
        names.append(re.sub(r"(?<!^)(?=[A-Z])", "_", method).lower())
        names.append(method.lower())
    return names


def constants(stmts: Iterable[Statement]) -> Dict[str, JValue]:
    """The file's ``static final String NAME = <literal expression>;`` members."""
    found: Dict[str, JValue] = {}
    for st in stmts:
        words = [t.text for t in st.tokens]
        if st.depth != 1 or "static" not in words or "final" not in words or "=" not in words:
            continue
        eq = words.index("=")
        if eq < 2 or words[eq - 2] not in ("String", "int", "long", "double"):
            continue
        try:
            found[words[eq - 1]] = Interpreter(found).value(parse_expression(st.tokens[eq + 1 :]))
        except (Skip, JavaSyntaxError, ValueError, IndexError):
            continue
    return found


def is_assertion(st: Statement) -> bool:
    first = st.tokens[0]
    if first.kind == "id" and first.text.startswith("assert") and first.text != "assertions":
        return True
    words = [t.text for t in st.tokens[:3]]
    return words[:2] == ["assertions", "."] and len(words) == 3 and words[2].startswith("assert")


def convert(interp: Interpreter, family: str, src: str, st: Statement) -> Entry:
    try:
        node = parse_expression(st.tokens)
    except (JavaSyntaxError, IndexError) as exc:
        raise Skip(f"Java not read ({str(exc).split(':')[0].split(' got ')[0]})") from exc
    base, calls = chain(node)
    name = str(base.value) if base.kind == "call" else ""
    if base.target is not None and base.target.kind == "name" and base.target.value == "assertions":
        if name == "assertQueryReturnsEmptyResult":
            return empty_result(interp, family, src, base.args)
        raise Skip(f"assertions.{name}(...)")
    if base.target is not None:
        raise Skip("an assertion on a Java value, not on SQL")
    if name == "assertThat":
        return assert_that(interp, family, src, base.args, calls)
    if name in ("assertTrinoExceptionThrownBy", "assertThatThrownBy"):
        return assert_throws(interp, family, src, base.args, calls)
    raise Skip(f"{name}(...) (not a QueryAssertions form)")


def read_file(
    path: str, source: str, skips: Counter, test_only: List[str]
) -> Tuple[List[Entry], int]:
    family = family_of(path)
    try:
        stmts = list(statements(tokenize(source)))
    except Exception:  # a file outside the Java subset: count its assertions as one skip
        skips["Java file not read"] += 1
        return [], 1
    assertions = [st for st in stmts if st.depth >= 2 and is_assertion(st)]
    whole_file = file_skip(source)
    if whole_file:
        skips[whole_file] += len(assertions)
        return [], len(assertions)
    interp = Interpreter(constants(stmts))
    entries = []
    for st in assertions:
        try:
            entry = convert(interp, family, f"{path}:{st.line}", st)
            check_entry(entry, family, test_only)
            entries.append(entry)
        except Skip as skip:
            skips[skip.reason] += 1
        except (ValueError, TypeError, AttributeError, IndexError, KeyError, StopIteration) as exc:
            skips[f"not converted with certainty ({type(exc).__name__})"] += 1
    return entries, len(assertions)


def check_entry(entry: Entry, family: str, test_only: List[str]) -> None:
    reason = session_dependent(entry)
    if reason:
        raise Skip(reason)
    words = set(re.findall(r"[a-z_][a-z0-9_]*(?=\s*\()", entry.sql.lower()))
    if words & set(test_only):
        raise Skip("calls a function only the test class registers")
    if family == "datetime" and precision(entry) not in KEPT_PRECISIONS:
        raise Skip("precision series subsampled (kept: 0, 3, 6, 9, 12)")
    if entry.fails is None and entry.expect is None and entry.type is None and not entry.rows:
        raise Skip("NULL of an unknown type")


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", git_dir, *args], check=True, capture_output=True, text=True
    ).stdout


def test_files(git_dir: str, commit: str) -> List[str]:
    listing = git(
        git_dir, "ls-tree", "-r", "--name-only", commit, "--", *(TEST_ROOT + f for f in FOLDERS)
    )
    return sorted(p for p in listing.splitlines() if p.endswith(".java"))


def extract(files: Dict[str, str], commit: str) -> Extraction:
    """Entries of the given files (path -> Java source), deduplicated and sorted."""
    test_only = sorted({n for src in files.values() for n in test_functions(src)})
    skips: Counter = Counter()
    entries: List[Entry] = []
    total = 0
    for path in sorted(files):
        found, count = read_file(path, files[path], skips, test_only)
        entries.extend(found)
        total += count
    unique: Dict[Tuple[str, str, str], Entry] = {}
    for entry in sorted(entries, key=sort_key):
        if entry.key() in unique:
            skips["duplicate of an earlier assertion"] += 1
        else:
            unique[entry.key()] = entry
    return Extraction(commit, list(unique.values()), skips, len(files), total)


def sort_key(entry: Entry) -> Tuple[str, str, int]:
    path, line = entry.source.rsplit(":", 1)
    return (entry.family, path, int(line))


# ---------------------------------------------------------------------------------------
# Output


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> Any:
    style = (
        "|"
        if "\n" in value
        and value == value.rstrip() + ("\n" if value.endswith("\n") else "")
        and not re.search(r"[ \t]\n", value)
        else None
    )
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump(entries: List[Dict[str, Any]]) -> str:
    return yaml.dump(entries, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def write(result: Extraction, out: Path) -> Dict[str, int]:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("*.yml"):
        old.unlink()
    families: Dict[str, List[Entry]] = {}
    for entry in result.entries:
        families.setdefault(entry.family, []).append(entry)
    for family, entries in sorted(families.items()):
        header = (
            f"# Assertions of Trino's unit tests (release 410, commit {result.commit}), family "
            f"{family}: see tests/conformance/README.md and NOTICE. Generated by "
            "tests/conformance/trino_tests.py; do not edit.\n"
        )
        (out / f"{family}.yml").write_text(header + dump([e.as_yaml() for e in entries]))
    counts = {f: len(e) for f, e in sorted(families.items())}
    (out / "EXTRACTION.md").write_text(report(result, counts))
    (out / "NOTICE").write_text(NOTICE.format(commit=result.commit))
    return counts


def report(result: Extraction, counts: Dict[str, int]) -> str:
    skipped = sum(result.skips.values())
    lines = [
        "# Extraction of Trino's unit-test assertions",
        "",
        "Generated by `python -m tests.conformance.trino_tests` (see its docstring); do not edit.",
        "",
        f"- Trino commit: `{result.commit}` (release 410), read from `{TEST_ROOT}` "
        f"({', '.join(FOLDERS)})",
        f"- Test files read: {result.files}",
        f"- Assertion statements: {result.assertions}",
        f"- Entries written: {len(result.entries)}",
        f"- Skipped: {skipped} (duplicates included)",
        "",
        "## Entries per family",
        "",
        "| family | entries |",
        "| --- | ---: |",
        *(f"| {f} | {n} |" for f, n in counts.items()),
        "",
        "## Skips by reason",
        "",
        "| reason | assertions |",
        "| --- | ---: |",
        *(
            f"| {r} | {n} |"
            for r, n in sorted(result.skips.items(), key=lambda kv: (-kv[1], kv[0]))
        ),
        "",
    ]
    return "\n".join(lines)


NOTICE = """Trino
Copyright The Trino Authors (https://trino.io)

The files in this folder (*.yml) are derived from the unit tests of Trino
(https://github.com/trinodb/trino, core/trino-main/src/test/java/io/trino/), at commit
{commit} (release 410), read from the fork mirror martint/trino, which carries
upstream's history. Each entry names its source file and line (`source:`).

Trino is licensed under the Apache License, Version 2.0 (the "License"); you may not use
these files except in compliance with the License. You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software distributed under the
License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
either express or implied. See the License for the specific language governing permissions
and limitations under the License.

Changes: each assertion's SQL and expected value were rewritten as a corpus entry (the
statement, the expected value as Athena prints it, its type, or the expected error code);
assertions that could not be converted with certainty were left out (EXTRACTION.md).
"""


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trino", required=True, help="a Trino git directory (bare is fine)")
    parser.add_argument("--commit", default=RELEASE_410, help="the commit to read")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    commit = git(args.trino, "rev-parse", args.commit + "^{commit}").strip()
    paths = test_files(args.trino, commit)
    files = {p: git(args.trino, "show", f"{commit}:{p}") for p in paths}
    result = extract(files, commit)
    counts = write(result, args.out)
    print(
        f"{result.files} files, {result.assertions} assertions: {len(result.entries)} entries, {sum(result.skips.values())} skipped"
    )
    for family, n in counts.items():
        print(f"  {family:12} {n}")
    for reason, n in sorted(result.skips.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"  skip {n:6}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
