"""The SQL/JSON path functions json_query, json_value and json_exists (Trino's
``functions/json.md``, with json.py): Trino's path language (lax and strict) over the
JSON text.
"""

from __future__ import annotations

import json
import re
from typing import Any, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.json import (
    _EXISTS,
    _QUERY,
    JSON_TYPE,
    JsonSyntaxError,
    Num,
    Obj,
    _is_scalar,
    _path_text,
    _scalar_text,
    dump,
    is_json,
    parse,
)
from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import spark, typed
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

T = exp.DataType.Type


@rewrites(exp.JSONExtract, "json_extract")
def json_extract_(node: exp.Expression) -> exp.Expression:
    if node.args.get("json_query"):
        return json_query_(node)
    if node.args.get("expressions") or node.args.get("variant_extract"):
        raise Refused(node.sql("athena"))
    return typed(udf_call("json_extract", node.this, _path_text(node, node.expression)), JSON_TYPE)


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
