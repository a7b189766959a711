"""The one table of the Athena SQL the emulator runs: every function, operator, type and
construct of a query, keyed by its sqlglot node (or, for a function sqlglot keeps as
``Anonymous``, by its Athena name), each with its Spark form.

An entry either trusts sqlglot's Spark rendering (``same``: checked against Trino's
documented results in tests/conformance/), or rewrites the node into a Spark expression
with Athena's (Trino's) semantics (``@rewrites``). What is not in the table is refused:
the query fails ``NOT_SUPPORTED`` naming the function or construct (translate.py), never
passed on to Spark to answer with Spark's semantics. Adding a function is one entry here
plus its documented examples in the conformance corpus.

The statement's Spark session runs with ``spark.sql.ansi.enabled=true`` (execution.py),
so invalid casts, division by zero, integer and decimal overflow, subscripts out of range
and missing map keys fail as on Athena; ``try``, ``try_cast`` and ``element_at`` are
rendered with Spark's ``try_*`` forms, which return NULL as Athena's do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Union

from sqlglot import exp

from athena_spark_emulator.sql import udfs
from athena_spark_emulator.sql.spark_forms import (
    call,
    decimal_parts,
    is_date,
    is_decimal,
    is_double,
    is_integral,
    is_timestamp,
    spark,
    type_of,
    typed,
    wider_integral,
)

Rewrite = Callable[[exp.Expression], exp.Expression]
Check = Callable[[exp.Expression], Optional[str]]
Key = Union[type, str]


class Refused(Exception):
    """A construct the emulator does not run: ``construct`` names it, ``why`` says why."""

    def __init__(self, construct: str, why: str = "") -> None:
        self.construct = construct
        self.why = why
        super().__init__(construct)


class Fails(Exception):
    """A statement Athena fails for its own reason (the text Athena gives): the query
    ends FAILED with it, as on Athena, not NOT_SUPPORTED."""


@dataclass(frozen=True)
class Entry:
    name: str  # Athena's name for it, as its documentation lists it
    rewrite: Optional[Rewrite] = None  # None: sqlglot's Spark rendering is Athena's semantics
    check: Optional[Check] = None  # a reason to refuse one use of it (None: runs)


class FunctionTable:
    def __init__(self) -> None:
        self.entries: Dict[Key, Entry] = {}

    def _add(self, key: Key, entry: Entry) -> None:
        if key in self.entries:
            raise ValueError(f"two entries for {key!r}")
        self.entries[key] = entry

    def same(self, key: Key, name: str, check: Optional[Check] = None) -> None:
        """``key`` runs as sqlglot renders it for Spark."""
        self._add(key.lower() if isinstance(key, str) else key, Entry(name, None, check))

    def rewrites(
        self, key: Key, name: str, check: Optional[Check] = None
    ) -> Callable[[Rewrite], Rewrite]:
        def register(fn: Rewrite) -> Rewrite:
            self._add(key.lower() if isinstance(key, str) else key, Entry(name, fn, check))
            return fn

        return register

    def find(self, node: Any) -> Optional[Entry]:
        if isinstance(node, exp.Anonymous):
            return self.entries.get(str(node.name).lower())
        return self.entries.get(type(node))

    def names(self) -> list:
        return sorted({e.name for e in self.entries.values()})


TABLE = FunctionTable()
#: Query shapes whose Spark form lives in query_shapes.py (which fills this in on import):
#: WITH RECURSIVE, CORRESPONDING, row[i].
SHAPES: Dict[str, Callable[..., Any]] = {}
same, rewrites = TABLE.same, TABLE.rewrites
_cls: Any
_name: str

# ---- the shape of a query (no semantics of their own) ------------------------------------
for _cls in (
    exp.Select,
    exp.From,
    exp.Table,
    exp.TableAlias,
    exp.Subquery,
    exp.CTE,
    exp.Values,
    exp.Where,
    exp.Group,
    exp.Having,
    exp.Order,
    exp.Ordered,
    exp.Limit,
    exp.Offset,
    exp.Distinct,
    exp.Column,
    exp.Star,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Paren,
    exp.Window,
    exp.WindowSpec,
    exp.Var,
    exp.Exists,
    exp.DataTypeParam,
    exp.Interval,
):
    same(_cls, _cls.__name__.lower())


@rewrites(exp.With, "with")
def with_(node: exp.Expression) -> exp.Expression:
    if node.args.get("recursive"):  # unrolled to Trino's recursion depth (query_shapes)
        return SHAPES["recursive_with"](node)
    return node


def _set_operation_check(node: exp.Expression) -> Optional[str]:
    # Trino's CORRESPONDING (sqlglot: INNER ... BY NAME): query_shapes.corresponding
    corresponding = node.args.get("by_name") and str(node.args.get("kind")).upper() == "INNER"
    for flag in ("by_name", "corresponding", "on", "side", "kind"):
        if node.args.get(flag) and not (corresponding and flag in ("by_name", "kind")):
            return f"{type(node).__name__.upper()} {str(flag).upper()}"
    return None


def _set_operation(node: exp.Expression) -> exp.Expression:
    if node.args.get("by_name"):
        return SHAPES["corresponding"](node)
    return node


for _cls in (exp.Union, exp.Intersect, exp.Except):
    rewrites(_cls, _cls.__name__.lower(), _set_operation_check)(_set_operation)


def _identifier_check(node: exp.Expression) -> Optional[str]:
    if node.args.get("quoted") and not node.this:
        raise Fails("SYNTAX_ERROR: Zero-length delimited identifier not allowed")
    return None


same(exp.Identifier, "identifier", _identifier_check)


def _alias_check(node: exp.Expression) -> Optional[str]:
    """``0o40``, ``0b1001``: sqlglot reads them as ``0 AS o40``; the alias starts right
    where the number ends."""
    value, alias = node.this, node.args.get("alias")
    if isinstance(value, exp.Literal) and not value.is_string and alias is not None:
        end, start = value.meta.get("end") if value._meta else None, None
        if alias._meta:
            start = alias.meta.get("start")
        if end is not None and start is not None and start == end + 1:
            return f"the number literal {value.this}{alias.name}"
    return None


same(exp.Alias, "alias", _alias_check)


def _dot_check(node: exp.Expression) -> Optional[str]:
    if isinstance(node.expression, exp.Star):
        select = node.parent.parent if isinstance(node.parent, exp.Aliases) else node.parent
        if (
            not isinstance(select, exp.Select)
            or len([d for d in select.find_all(exp.Dot) if isinstance(d.expression, exp.Star)]) != 1
            or select.args.get("group")
            or select.find(exp.AggFunc, exp.Window, exp.Explode, exp.Inline)
        ):
            return f"{node.sql('athena')} (the fields of a row as columns)"
    return None


@rewrites(exp.Dot, "row field", _dot_check)
def row_field(node: exp.Expression) -> exp.Expression:
    """``(row).*`` (one projection of a plain SELECT): the row's fields as columns, by
    Spark's inline() of a one-row array (a NULL row gives NULL fields, as Trino's)."""
    if isinstance(node.expression, exp.Star):
        return spark("inline(array(_0))", node.this)
    return node


def _lambda_check(node: exp.Expression) -> Optional[str]:
    """Athena fails a lambda whose body has a subquery or an aggregate (Spark runs it)."""
    body = node.this
    if body.find(exp.Select, exp.Subquery):
        raise Fails("Lambda expression cannot contain subqueries")
    if body.find(exp.AggFunc, exp.Window):
        raise Fails(
            "Lambda expression cannot contain aggregations, window functions or grouping operations"
        )
    return None


same(exp.Lambda, "lambda", _lambda_check)


def _tuple_check(node: exp.Expression) -> Optional[str]:
    if isinstance(node.parent, exp.Values):
        return None
    return f"the row constructor {node.sql('athena')} (Spark names a row's fields)"


def _unused_tuple_check(node: exp.Expression) -> Optional[str]:
    return _tuple_check(node)


def _join_check(node: exp.Expression) -> Optional[str]:
    kind = str(node.args.get("kind") or "").upper()
    if kind and kind not in ("INNER", "CROSS", "OUTER"):
        return f"{kind} JOIN"
    return None


same(exp.Join, "join", _join_check)


def _fetch_check(node: exp.Expression) -> Optional[str]:
    options = node.args.get("limit_options")
    if options is not None and options.args.get("percent"):
        return "FETCH FIRST ... PERCENT"
    return None


@rewrites(exp.Fetch, "fetch first", _fetch_check)
def fetch(node: exp.Expression) -> exp.Expression:
    options = node.args.get("limit_options")
    if options is not None and options.args.get("with_ties"):
        raise Refused("FETCH FIRST ... WITH TIES")
    return exp.Limit(expression=node.args.get("count") or exp.Literal.number(1))


same(exp.LimitOptions, "fetch first")

# ---- operators ------------------------------------------------------------------------------
for _cls, _name in (
    (exp.EQ, "="),
    (exp.NEQ, "<>"),
    (exp.GT, ">"),
    (exp.GTE, ">="),
    (exp.LT, "<"),
    (exp.LTE, "<="),
    (exp.And, "and"),
    (exp.Or, "or"),
    (exp.Not, "not"),
    (exp.Is, "is"),
    (exp.Between, "between"),
    (exp.NullSafeEQ, "is not distinct from"),
    (exp.NullSafeNEQ, "is distinct from"),
    (exp.Neg, "unary -"),
    (exp.Add, "+"),
    (exp.Sub, "-"),
    (exp.Mul, "*"),
    (exp.Mod, "%"),
    (exp.Case, "case"),
):
    same(_cls, _name)


def _is_row(arg: exp.Expression) -> bool:
    kind = type_of(arg)
    return (
        isinstance(arg, (exp.Struct, exp.Tuple))
        or (isinstance(arg, exp.Cast) and arg.to.this == exp.DataType.Type.STRUCT)
        or (kind is not None and kind.this == exp.DataType.Type.STRUCT)
    )


@rewrites(exp.Coalesce, "coalesce")
def coalesce(node: exp.Expression) -> exp.Expression:
    """Trino's coalesce skips a row whose fields are all NULL (as NULL), keeps one with
    some: Spark's to_json of a row leaves NULL fields out, '{}' for all of them."""
    for arg in [node.this, *node.expressions]:
        if _is_row(arg):
            arg.replace(spark("CASE WHEN to_json(_0) = '{}' THEN NULL ELSE _0 END", arg))
    return node


def _in_check(node: exp.Expression) -> Optional[str]:
    """Spark answers ``x IN (subquery)`` false where SQL's answer is NULL (x NULL, or no
    match and a NULL in the subquery): the same only as a condition of WHERE / HAVING."""
    if node.args.get("query") is None:
        return None
    parent = node.parent
    if isinstance(parent, exp.Not):
        parent = parent.parent
    while isinstance(parent, (exp.And, exp.Paren)):
        parent = parent.parent
    if isinstance(parent, (exp.Where, exp.Having)):
        return None
    return f"{node.sql('athena')} outside a WHERE condition (Spark answers false for NULL)"


same(exp.In, "in", _in_check)


@rewrites(exp.If, "if")
def if_(node: exp.Expression) -> exp.Expression:
    if node.args.get("false") is None:
        node.set("false", exp.Null())
    return node


@rewrites(exp.Div, "/")
def divide(node: exp.Expression) -> exp.Expression:
    """Trino's division: integer operands divide as integers (truncating), decimals as
    decimals with scale max(s1, s2), rounded half up; anything else as doubles."""
    left, right = type_of(node.this), type_of(node.expression)
    if is_integral(left) and is_integral(right):
        kind = wider_integral(left, right)  # type: ignore[arg-type]
        out = spark("CAST(_0 DIV _1 AS BIGINT)", node.this, node.expression)
        assert isinstance(out.this, exp.IntDiv)
        out.set("to", kind)
        out.type = kind
        return out
    if is_double(left) or is_double(right):
        return spark("CAST(_0 AS DOUBLE) / _1", node.this, node.expression)
    dleft = decimal_parts(left) if left is not None else None
    dright = decimal_parts(right) if right is not None else None
    if dleft and dright and (is_decimal(left) or is_decimal(right)):
        (p1, s1), (_p2, s2) = dleft, dright
        scale = max(s1, s2)
        precision = min(38, p1 + s2 + max(0, s2 - s1))
        kind = exp.DataType.build(f"decimal({precision},{scale})")
        out = spark("CAST(_0 / _1 AS DECIMAL(38, 0))", node.this, node.expression)
        out.set("to", kind)
        out.type = kind
        return out
    if left is not None and right is not None and (is_double(left) or is_double(right)):
        return node
    raise Refused(
        f"the division {node.sql('athena')}",
        "the emulator cannot tell its operands' types, and Athena divides integers as "
        "integers and decimals as decimals",
    )


@rewrites(exp.DPipe, "||")
def concat_operator(node: exp.Expression) -> exp.Expression:
    left, right = type_of(node.this), type_of(node.expression)
    arrays = [k is not None and k.this == exp.DataType.Type.ARRAY for k in (left, right)]
    if arrays[0] and arrays[1]:
        assert left is not None and right is not None
        inner_left = left.expressions[0] if left.expressions else None
        inner_right = right.expressions[0] if right.expressions else None
        if inner_right is not None and inner_right == left:  # element || array of them
            return spark("concat(array(_0), _1)", node.this, node.expression)
        if inner_left is not None and inner_left == right:
            return spark("concat(_0, array(_1))", node.this, node.expression)
        return spark("concat(_0, _1)", node.this, node.expression)
    if arrays[0]:
        return spark("concat(_0, array(_1))", node.this, node.expression)
    if arrays[1]:
        return spark("concat(array(_0), _1)", node.this, node.expression)
    strings = [
        (isinstance(n, exp.Literal) and n.is_string)
        or (k is not None and k.this in (T.VARCHAR, T.TEXT, T.CHAR))
        for n, k in ((node.this, left), (node.expression, right))
    ]
    if not any(strings):
        raise Refused(f"the operator || in {node.sql('athena')}", "operand types unknown")
    return spark("concat(_0, _1)", node.this, node.expression)


# ---- types and casts ------------------------------------------------------------------------
T = exp.DataType.Type
CASTABLE = {
    T.BOOLEAN,
    T.TINYINT,
    T.SMALLINT,
    T.INT,
    T.BIGINT,
    T.FLOAT,
    T.DOUBLE,
    T.DECIMAL,
    T.VARCHAR,
    T.CHAR,
    T.TEXT,
    T.DATE,
    T.TIMESTAMP,
    T.ARRAY,
    T.MAP,
    T.STRUCT,
    T.JSON,  # json_functions.cast
}


#: Athena types other modules cast to: {type: fn(cast node, value, source type, safe)}
CAST_TARGETS: Dict[Any, Callable[..., exp.Expression]] = {}


_ZONED_TYPES = (T.TIMESTAMPTZ, T.TIME, T.TIMETZ)  # literals only: time_functions.typed_cast
#: The forms of zoned and time-of-day values (cast, date_add, date_diff, to_unixtime, format
#: of dates), registered by time_functions.py, which imports this module.
TIME_FORMS: Dict[str, Callable[..., exp.Expression]] = {}


def _type_check(node: exp.Expression) -> Optional[str]:
    if node.this in _ZONED_TYPES and isinstance(node.parent, (exp.Cast, exp.TryCast)):
        return None
    if node.this not in CASTABLE and node.this not in CAST_TARGETS:
        return f"the type {node.sql('athena')}"
    if node.this == T.TIMESTAMP and node.expressions:
        precision = int(node.expressions[0].this.this)
        literal = isinstance(node.parent, exp.Cast) and isinstance(node.parent.this, exp.Literal)
        if precision > 6 and not (precision <= 9 and literal):  # time_functions: date_diff
            return f"the type {node.sql('athena')} (precision 6 at most: Spark keeps microseconds)"
    for child in node.expressions:
        if isinstance(child, exp.DataType):
            reason = _type_check(child)
            if reason:
                return reason
    return None


same(exp.DataType, "type", _type_check)

_DECIMAL_TEXT = re.compile(r"^\s*[+-]?(\d+)(?:\.(\d*))?\s*$")


def _sized_text(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType, safe: bool
) -> exp.Expression:
    """varchar(n) keeps n characters; char(n) is padded with spaces to n."""
    size = int(target.expressions[0].this.this)
    text = exp.Cast(this=value, to=exp.DataType.build("string"))
    if safe:
        text = exp.TryCast(this=value, to=exp.DataType.build("string"), safe=True)
    if target.this == T.CHAR:
        out = spark(f"rpad(_0, {size}, ' ')", text)
    else:
        if not _is_text(source) and not (isinstance(value, exp.Literal) and value.is_string):
            raise Refused(f"{node.sql('athena')} (a varchar(n) cast of a non-text value)")
        out = spark(f"substring(_0, 1, {size})", text)
    out.type = target
    return out


def _named_fields(row: exp.DataType) -> exp.DataType:
    """``row(integer, integer)``: Spark needs field names; Athena's are field0, field1."""
    fields = []
    for i, field in enumerate(row.expressions):
        if isinstance(field, exp.DataType):
            field = exp.ColumnDef(this=exp.to_identifier(f"field{i}"), kind=field)
        fields.append(field)
    return exp.DataType(this=T.STRUCT, expressions=fields, nested=True)


def _bare_decimal(value: exp.Expression) -> exp.DataType:
    """``DECIMAL '1.50'`` is decimal(3,2), its precision and scale from the text; any other
    bare DECIMAL is Trino's decimal(38,0)."""
    literal = isinstance(value, exp.Literal) and value.is_string
    match = _DECIMAL_TEXT.match(value.this) if literal else None
    if not match:
        return exp.DataType.build("decimal(38,0)")
    whole, fraction = match.group(1), match.group(2) or ""
    return exp.DataType.build(f"decimal({max(len(whole) + len(fraction), 1)},{len(fraction)})")


def _rounded_timestamp(
    node: Any,
    value: exp.Expression,
    source: Optional[exp.DataType],
    target: exp.DataType,
) -> Optional[exp.Expression]:
    """``cast(x as timestamp(p))`` where x may have more fractional digits than p: rounded
    half up to p digits, as Trino does (None: no rounding needed)."""
    precision = int(target.expressions[0].this.this) if target.expressions else 3
    if (isinstance(value, exp.Literal) and value.is_string) or precision >= 6:
        return None
    source_digits = 6
    if is_timestamp(source) and source is not None:  # Athena's timestamp is timestamp(3)
        source_digits = int(source.expressions[0].this.this) if source.expressions else 3
    elif is_date(source):
        source_digits = 0
    elif source is not None and not is_timestamp(source):
        source_digits = 6 if source.this in (T.VARCHAR, T.TEXT, T.CHAR) else 0
    if source_digits <= precision:
        return None
    out = spark(
        f"timestamp_micros(CAST(round(unix_micros(CAST(_0 AS TIMESTAMP)), "
        f"{precision - 6}) AS BIGINT))",
        value,
    )
    out.type = node.args["to"]
    return out


def _text_cast(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType, safe: bool
) -> Optional[exp.Expression]:
    """A cast to varchar/char where Spark's text differs from Athena's (None: it does not)."""
    typed = _typed_text_literal(node, value, target) if not target.expressions else None
    if typed is not None:
        return typed
    if is_timestamp(source):  # Athena writes the type's fractional digits, 3 at least
        digits = 3
        if source is not None and source.expressions:
            digits = max(3, int(source.expressions[0].this.this))
        fmt = "yyyy-MM-dd HH:mm:ss." + "S" * digits
        return spark(f"date_format(_0, '{fmt}')", value)
    if is_double(source):
        raise Refused(f"cast of a double to varchar ({node.sql('athena')})")
    if target.expressions:
        return _sized_text(node, value, source, target, safe)
    return None


def _timestamp_target(
    node: Any, value: exp.Expression, source: Any, target: exp.DataType
) -> exp.Expression:
    """Spark's timestamp, or the value rounded to the target's precision (a Spark form)."""
    digits = int(target.expressions[0].this.this) if target.expressions else 3
    literal = isinstance(value, exp.Literal) and value.is_string
    if digits not in (3, 6) and not literal:
        raise Refused(f"{node.sql('athena')} (timestamp(3) and timestamp(6) only)")
    rounded = _rounded_timestamp(node, value, source, target)
    return rounded if rounded is not None else exp.DataType.build("timestamp")


# CAST to and from JSON: json_functions.cast, registered here when it is imported
JSON_CAST: list = []


def _typed_text_literal(
    node: Any, value: exp.Expression, target: exp.DataType
) -> Optional[exp.Expression]:
    """A typed literal (sqlglot's Cast without CAST's arguments): CHAR 'abc' is char(3),
    VARCHAR 'abc' varchar(3) (None: not one)."""
    if target.this == T.TEXT:
        return None
    if "safe" in node.args or not (isinstance(value, exp.Literal) and value.is_string):
        if target.this == T.CHAR:  # CAST(x AS CHAR) is char(1)
            target.set("expressions", [exp.DataTypeParam(this=exp.Literal.number(1))])
        return None
    out = spark("CAST(_0 AS STRING)", value)
    out.type = exp.DataType.build(f"{target.this.value.lower()}({len(value.this)})")
    return out


def _precision_of(kind: exp.DataType) -> int:
    return int(kind.expressions[0].this.this)


def _time_cast(node: Any, value: Any, target: exp.DataType, safe: bool) -> Any:
    """A cast time_functions runs: of a zoned timestamp, or to a zoned or time-of-day type or
    a timestamp of more than 6 digits (None: another cast)."""
    source = type_of(value)
    if source is not None and source.this == T.TIMESTAMPTZ:
        return TIME_FORMS["cast_from_zoned"](node, safe)
    nanos = target.this == T.TIMESTAMP and target.expressions and _precision_of(target) > 6
    if target.this in _ZONED_TYPES or nanos:
        return TIME_FORMS["cast"](node, safe)
    return None


def _hooked_cast(node: Any, value: Any, target: exp.DataType, safe: bool) -> Any:
    """A cast another module runs (time_functions' TIME_FORMS, json_functions' JSON_CAST,
    then CAST_TARGETS); None: this module's."""
    timed = _time_cast(node, value, target, safe)
    if timed is not None:
        return timed
    source = type_of(value)
    if (target.this == T.JSON or (source is not None and source.this == T.JSON)) and JSON_CAST:
        return JSON_CAST[0](node, safe)
    if target.this not in CAST_TARGETS:
        return None
    return CAST_TARGETS[target.this](node, value, source, safe)


def _cast(node: Any, safe: bool) -> exp.Expression:
    target = node.to
    value = node.this
    hooked = _hooked_cast(node, value, target, safe)
    if hooked is not None:
        return hooked
    source = type_of(value)
    if target.this == T.DECIMAL and not target.expressions:
        target = _bare_decimal(value)
    if target.this in (T.VARCHAR, T.CHAR, T.TEXT):
        text = _text_cast(node, value, source, target, safe)
        if text is not None:
            return text
        target = exp.DataType.build("string")
    if is_integral(target) and (is_double(source) or is_decimal(source)):
        value = spark("round(_0)", value)
    if target.this == T.STRUCT:
        target = _named_fields(target)
    if target.this == T.TIMESTAMP:
        target = _timestamp_target(node, value, source, target)
        if not isinstance(target, exp.DataType):
            return target  # rounded
    athena_type = node.args["to"]
    if athena_type.this == T.DECIMAL and not athena_type.expressions:
        athena_type = target
    out = exp.TryCast(this=value, to=target, safe=True) if safe else exp.Cast(this=value, to=target)
    out.type = athena_type
    return out


@rewrites(exp.Cast, "cast")
def cast(node: exp.Expression) -> exp.Expression:
    return _cast(node, safe=False)


@rewrites(exp.TryCast, "try_cast")
def try_cast(node: exp.Expression) -> exp.Expression:
    return _cast(node, safe=True)


# try(expr): NULL where Athena's expr fails. Under ANSI mode the Spark forms (already
# translated: the table's rewrites run children first) that can fail are replaced inside it
# by forms that return NULL instead.
_SAFE_BINARY: Dict[type, str] = {
    exp.IntDiv: "CASE WHEN _1 = 0 THEN NULL ELSE _0 DIV _1 END",
    exp.Div: "try_divide(_0, _1)",
    exp.Add: "try_add(_0, _1)",
    exp.Sub: "try_subtract(_0, _1)",
    exp.Mul: "try_multiply(_0, _1)",
}


def _safe(inner: exp.Expression) -> exp.Expression:
    if isinstance(inner, exp.Anonymous) and str(inner.name).startswith(udfs.PREFIX):
        return udfs.try_form(inner)
    if type(inner) is exp.Cast:
        return exp.TryCast(this=inner.this, to=inner.to, safe=True)
    form = _SAFE_BINARY.get(type(inner))
    if form is not None:
        return spark(form, inner.this, inner.expression)
    name = str(inner.name).lower() if isinstance(inner, exp.Anonymous) else ""
    if name == "element_at":
        return exp.Anonymous(this="try_element_at", expressions=inner.expressions)
    if name == "raise_error":
        return exp.Null()
    if isinstance(inner, exp.StrToTime):  # rendered TO_TIMESTAMP(x, '<Spark pattern>')
        pattern = re.search(r"'((?:[^'\\]|\\.)*)'\)$", inner.sql("spark"))
        if pattern:
            text = re.sub(r"\\(.)", r"\1", pattern.group(1))
            return call("try_to_timestamp", inner.this, exp.Literal.string(text))
    return inner


@rewrites(exp.Try, "try")
def try_(node: exp.Expression) -> exp.Expression:
    # children first: a form that replaces a node (try_multiply(...)) keeps the safe
    # forms already made inside it (transform would not look inside the new node)
    tree = node.this
    for inner in reversed(list(tree.walk(bfs=False))):
        new = _safe(inner)
        if new is inner:
            continue
        if inner is tree:
            tree = new
        else:
            inner.replace(new)
    return tree


# ---- comparison / conditional functions -------------------------------------------------------
def _null_if_any(node: exp.Expression, name: str) -> exp.Expression:
    args = [node.this, *node.expressions]
    test = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    holes = ", ".join(f"_{i}" for i in range(len(args)))
    return spark(f"CASE WHEN {test} THEN NULL ELSE {name}({holes}) END", *args)


@rewrites(exp.Greatest, "greatest")
def greatest(node: exp.Expression) -> exp.Expression:
    return _null_if_any(node, "greatest")


@rewrites(exp.Least, "least")
def least(node: exp.Expression) -> exp.Expression:
    return _null_if_any(node, "least")


same(exp.Nullif, "nullif")

# ---- aggregates ---------------------------------------------------------------------------
for _cls, _name in (
    (exp.Count, "count"),
    (exp.Sum, "sum"),
    (exp.Min, "min"),
    (exp.Max, "max"),
    (exp.CountIf, "count_if"),
    (exp.LogicalOr, "bool_or"),
    (exp.LogicalAnd, "bool_and"),
    (exp.AnyValue, "arbitrary"),
):
    same(_cls, _name)


def _struct_fields(values: list) -> str:
    return ", ".join(f"_{i} AS k{i}" for i in range(len(values)))


def _ordered_list(value: exp.Expression, order: Optional[exp.Expression]) -> exp.Expression:
    """Spark's collect_list keeps no order and drops NULLs; Trino's array_agg keeps both:
    collect (value, order keys) structs, sort them by the keys, keep the values; NULL when
    there are no rows, as Trino's."""
    keys = [o for o in (order.expressions if order is not None else [])]
    holes = [value, *[k.this for k in keys]]
    packed = f"collect_list(named_struct({', '.join(f'{chr(39)}k{i}{chr(39)}, _{i}' for i in range(len(holes)))}))"
    if keys:
        compare = []
        for i, key in enumerate(keys, start=1):
            desc = bool(key.args.get("desc"))
            nulls_first = bool(key.args.get("nulls_first"))
            lt, gt = ("1", "-1") if desc else ("-1", "1")
            nf, nl = ("-1", "1") if nulls_first else ("1", "-1")
            compare.append(
                f"CASE WHEN l.k{i} IS NULL AND r.k{i} IS NULL THEN 0 "
                f"WHEN l.k{i} IS NULL THEN {nf} WHEN r.k{i} IS NULL THEN {nl} "
                f"WHEN l.k{i} < r.k{i} THEN {lt} WHEN l.k{i} > r.k{i} THEN {gt} ELSE 0 END"
            )
        chain = compare[-1]
        for part in reversed(compare[:-1]):
            chain = f"CASE WHEN ({part}) <> 0 THEN ({part}) ELSE ({chain}) END"
        packed = f"array_sort({packed}, (l, r) -> {chain})"
    text = f"CASE WHEN count(1) = 0 THEN NULL ELSE transform({packed}, s -> s.k0) END"
    return spark(text, *holes)


@rewrites(exp.ArrayAgg, "array_agg")
def array_agg(node: exp.Expression) -> exp.Expression:
    this = node.this
    if isinstance(this, exp.Order):
        return _ordered_list(this.this, this)
    if isinstance(this, exp.Distinct):
        # Trino keeps one NULL too, in no stated order: each value once, first seen first
        if len(this.expressions) != 1:
            raise Refused("array_agg(DISTINCT ...) of several values")
        return spark("array_distinct(_0)", _ordered_list(this.expressions[0], None))
    return _ordered_list(this, None)


# ---- dates and times ------------------------------------------------------------------------
UNITS = {
    "millisecond": "MILLISECOND",
    "second": "SECOND",
    "minute": "MINUTE",
    "hour": "HOUR",
    "day": "DAY",
    "week": "WEEK",
    "month": "MONTH",
    "quarter": "QUARTER",
    "year": "YEAR",
}
DATE_UNITS = ("day", "week", "month", "quarter", "year")


def _unit(node: exp.Expression) -> str:
    unit = node.args.get("unit")
    text = (unit.name if unit is not None else "day").lower()
    if text not in UNITS:
        raise Refused(f"the unit '{text}' of {node.sql('athena')}")
    return text


def _temporal(node: exp.Expression, arg: exp.Expression) -> str:
    kind = type_of(arg)
    if is_date(kind):
        return "date"
    if is_timestamp(kind):
        return "timestamp"
    raise Refused(
        f"{node.sql('athena')}",
        "the emulator cannot tell whether its argument is a date or a timestamp",
    )


@rewrites(exp.DateAdd, "date_add")
def date_add(node: exp.Expression) -> exp.Expression:
    unit = _unit(node)
    zoned = type_of(node.this)
    if zoned is not None and zoned.this == T.TIMESTAMPTZ:
        return TIME_FORMS["date_add"](node, unit)
    kind = _temporal(node, node.this)
    if kind == "date":
        if unit not in DATE_UNITS:
            raise Refused(f"date_add('{unit}', ...) of a date", "Athena fails it")
        months = {"month": 1, "quarter": 3, "year": 12}
        if unit in months:
            out = spark(
                f"add_months(_0, CAST(_1 AS INT) * {months[unit]})", node.this, node.expression
            )
        else:
            days = 7 if unit == "week" else 1
            out = spark(f"date_add(_0, CAST(_1 AS INT) * {days})", node.this, node.expression)
        return typed(out, "date")
    out = call("timestampadd", exp.var(UNITS[unit]), node.expression, node.this)
    out.type = type_of(node.this)
    return out


@rewrites(exp.DateDiff, "date_diff")
def date_diff(node: exp.Expression) -> exp.Expression:
    unit = _unit(node)
    kinds = (type_of(node.this), type_of(node.expression))
    if any(k is not None and k.this == T.TIMESTAMPTZ for k in kinds):
        return TIME_FORMS["date_diff"](node, unit)
    _temporal(node, node.this)
    _temporal(node, node.expression)
    out = call(
        "timestampdiff",
        exp.var(UNITS[unit]),
        spark("CAST(_0 AS TIMESTAMP)", node.expression),
        spark("CAST(_0 AS TIMESTAMP)", node.this),
    )
    return typed(out, "bigint")


def _trunc(node: exp.Expression, value: exp.Expression) -> exp.Expression:
    unit = _unit(node)
    kind = _temporal(node, value)
    if kind == "date":
        if unit not in DATE_UNITS:
            raise Refused(f"date_trunc('{unit}', ...) of a date", "Athena fails it")
        out = spark(f"CAST(date_trunc('{UNITS[unit]}', _0) AS DATE)", value)
        return typed(out, "date")
    out = spark(f"date_trunc('{UNITS[unit]}', _0)", value)
    out.type = type_of(value)
    return out


@rewrites(exp.TimestampTrunc, "date_trunc")
def date_trunc(node: exp.Expression) -> exp.Expression:
    return _trunc(node, node.this)


@rewrites(exp.DateTrunc, "date_trunc ")
def date_trunc_date(node: exp.Expression) -> exp.Expression:
    return _trunc(node, node.this)


@rewrites(exp.DayOfWeekIso, "day_of_week")
def day_of_week(node: exp.Expression) -> exp.Expression:
    out = spark("CAST(weekday(_0) + 1 AS BIGINT)", node.this)
    return typed(out, "bigint")


for _cls, _name, _spark in (
    (exp.Year, "year", "year"),
    (exp.Month, "month", "month"),
    (exp.Day, "day", "day"),
    (exp.Quarter, "quarter", "quarter"),
    (exp.DayOfYear, "day_of_year", "dayofyear"),
):

    def _part(node: exp.Expression, fn: str = _spark) -> exp.Expression:
        out = spark(f"{fn}(_0)", node.this)
        return out

    rewrites(_cls, _name)(_part)

same(exp.CurrentDate, "current_date")
same(exp.CurrentTimestamp, "current_timestamp")
same(exp.LastDay, "last_day_of_month")


_FORMAT_LITERAL = re.compile(r"(?<!%)([A-Za-z]+)")


def _quote_format_letters(node: exp.Expression) -> exp.Expression:
    """A literal letter in a date format (``%Y-%m-%dT%H``) quoted (``'T'``), as Spark's
    datetime patterns need (sqlglot translates the ``%`` codes when it renders)."""
    fmt = node.args.get("format")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise Refused(f"{node.sql('athena')} with a format that is not a literal")
    two_digit_year = isinstance(node, exp.StrToTime) and "%y" in fmt.this
    if two_digit_year and ("%Y" in fmt.this or fmt.this.count("%y") > 1):
        raise Refused(f"{node.sql('athena')} (parsing a two-digit year, %y)")
    node.set("format", exp.Literal.string(_FORMAT_LITERAL.sub(r"'\1'", fmt.this)))
    if two_digit_year:  # Spark reads yy as 2000-2099, Trino as 1970-2069
        return spark("CASE WHEN year(_0) >= 2070 THEN _0 - INTERVAL '100' YEAR ELSE _0 END", node)
    return node


rewrites(exp.StrToTime, "date_parse")(_quote_format_letters)
rewrites(exp.TimeToStr, "date_format")(_quote_format_letters)


@rewrites("second", "second")
def second(node: exp.Expression) -> exp.Expression:
    return spark("CAST(second(_0) AS BIGINT)", *node.expressions)


@rewrites("to_milliseconds", "to_milliseconds")
def to_milliseconds(node: exp.Expression) -> exp.Expression:
    [value] = node.expressions
    out = spark("unix_millis(TIMESTAMP '1970-01-01 00:00:00' + _0)", value)
    return typed(out, "bigint")


@rewrites(exp.TimeToUnix, "to_unixtime")
def to_unixtime(node: exp.Expression) -> exp.Expression:
    zoned = type_of(node.this)
    if zoned is not None and zoned.this == T.TIMESTAMPTZ:
        return TIME_FORMS["to_unixtime"](node)
    out = spark("unix_micros(CAST(_0 AS TIMESTAMP)) / 1000000D", node.this)
    return typed(out, "double")


# ---- numbers --------------------------------------------------------------------------------
for _cls, _name in (
    (exp.Abs, "abs"),
    (exp.Sqrt, "sqrt"),
    (exp.Exp, "exp"),
    (exp.Ln, "ln"),
):
    same(_cls, _name)


@rewrites(exp.Log, "log10")
def log(node: exp.Expression) -> exp.Expression:
    base = node.this
    if isinstance(base, exp.Literal) and base.this in ("10", "2"):
        return call(f"log{base.this}", node.expression)
    raise Refused(f"log(b, x) ({node.sql('athena')})")


# ---- strings --------------------------------------------------------------------------------
for _cls, _name in (
    (exp.Upper, "upper"),
    (exp.Lower, "lower"),
    (exp.Reverse, "reverse"),
):
    same(_cls, _name)


def _text_args(node: exp.Expression) -> Optional[str]:
    """Trino has no implicit cast to varchar: a number or date argument fails."""
    for arg in (node.this, *node.expressions):
        kind = type_of(arg) if isinstance(arg, exp.Expression) else None
        if kind is not None and (
            is_integral(kind)
            or is_double(kind)
            or is_decimal(kind)
            or is_date(kind)
            or is_timestamp(kind)
        ):
            raise Fails(
                f"FUNCTION_NOT_FOUND: Unexpected parameters ({kind.sql('athena').lower()}) "
                f"for function {node.sql('athena').split('(')[0].lower()}"
            )
    return None


@rewrites(exp.Length, "length")
def length(node: exp.Expression) -> exp.Expression:
    _text_args(node)
    return node


@rewrites(exp.Concat, "concat")
def concat(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) < 2:
        raise Fails("INVALID_FUNCTION_ARGUMENT: There must be two or more concatenation arguments")
    return node


@rewrites(exp.Replace, "replace")
def replace(node: exp.Expression) -> exp.Expression:
    return node


@rewrites(exp.StrPosition, "strpos")
def strpos(node: exp.Expression) -> exp.Expression:
    if node.args.get("position") is not None or node.args.get("occurrence") is not None:
        raise Refused(f"strpos with an instance ({node.sql('athena')})")
    return spark("locate(_1, _0)", node.this, node.args["substr"])


@rewrites(exp.Substring, "substr")
def substr(node: exp.Expression) -> exp.Expression:
    start = node.args["start"]
    length = node.args.get("length")
    if length is None:
        return spark("substring(_0, _1)", node.this, start)
    return spark("substring(_0, _1, _2)", node.this, start, length)


@rewrites(exp.SplitPart, "split_part")
def split_part(node: exp.Expression) -> exp.Expression:
    delimiter = node.args["delimiter"]
    if not (isinstance(delimiter, exp.Literal) and delimiter.is_string and delimiter.this):
        raise Refused(f"split_part with a delimiter that is not a literal ({node.sql('athena')})")
    pattern = exp.Literal.string(re.escape(delimiter.this))
    index = node.args["part_index"]
    parts = call("try_element_at", spark("split(_0, _1, -1)", node.this, pattern), index)
    return spark(
        "CASE WHEN _0 < 1 THEN raise_error('Index must be greater than zero') ELSE _1 END",
        index,
        parts,
    )


# ---- arrays -----------------------------------------------------------------------------------
same(exp.Array, "array")
same(exp.ArraySize, "cardinality")
same(exp.ArrayContains, "contains")


@rewrites(exp.ArrayToString, "array_join")
def array_join(node: exp.Expression) -> exp.Expression:
    if node.args.get("null") is not None:
        return spark("array_join(_0, _1, _2)", node.this, node.expression, node.args["null"])
    return spark("array_join(_0, _1)", node.this, node.expression)


@rewrites(exp.Bracket, "subscript")
def subscript(node: exp.Expression) -> exp.Expression:
    """``a[i]`` / ``m[k]`` fail out of range or for a missing key (ANSI mode); sqlglot has
    made an array index 0-based for Spark's ``[]``. ``element_at`` is NULL there."""
    [index] = node.expressions
    if node.args.get("safe"):
        return call("try_element_at", node.this, index)
    kind = type_of(node.this)
    # a text key: only a map has that subscript (an array's index, a row's position are numbers)
    text_key = kind is None and isinstance(index, exp.Literal) and index.is_string
    if (kind is not None and kind.this == T.MAP) or text_key:  # Athena fails on a missing key
        return spark(
            "CASE WHEN array_contains(map_keys(_0), _1) THEN element_at(_0, _1) "
            "ELSE raise_error(concat('Key not present in map: ', CAST(_1 AS STRING))) END",
            node.this,
            index,
        )
    if kind is not None and kind.this == T.STRUCT:
        return SHAPES["row_subscript"](node, kind)  # row[2]: its second field
    if (
        (kind is None or kind.this != T.ARRAY)
        and not isinstance(node.this, exp.Array)
        and not node.this.meta.get("athena_array")  # a lambda's array argument
    ):
        raise Refused(
            f"the subscript {node.sql('athena')} (of a value whose type the emulator cannot tell)"
        )
    return node


@rewrites(exp.Unnest, "unnest")
def unnest(node: exp.Expression) -> exp.Expression:
    return node  # the join around it renders it (translate.unnest_joins)


# ---- verified as sqlglot renders them (Spark's function has Trino's semantics) ---------------
for _cls, _name in (
    (exp.RegexpLike, "regexp_like"),
    (exp.RegexpExtract, "regexp_extract"),
    (exp.RegexpExtractAll, "regexp_extract_all"),
    (exp.RegexpCount, "regexp_count"),
    (exp.Translate, "translate"),
    (exp.ConcatWs, "concat_ws"),
    (exp.Pad, "lpad"),
    (exp.StartsWith, "starts_with"),
    (exp.Chr, "chr"),
    (exp.Levenshtein, "levenshtein_distance"),
    (exp.ArrayFilter, "filter"),
    (exp.Transform, "transform"),
    (exp.ArraySort, "array_sort"),
    (exp.Reduce, "reduce"),
    (exp.Map, "map"),
    (exp.MapFromEntries, "map_from_entries"),
    (exp.MapKeys, "map_keys"),
    (exp.ArrayDistinct, "array_distinct"),
    (exp.ArrayMax, "array_max"),
    (exp.ArrayMin, "array_min"),
    (exp.ArrayPosition, "array_position"),
    (exp.ArrayRemove, "array_remove"),
    (exp.ArraySlice, "slice"),
    (exp.GenerateSeries, "sequence"),
    (exp.Flatten, "flatten"),
    (exp.ArrayIntersect, "array_intersect"),
    (exp.ArrayExcept, "array_except"),
    (exp.Pow, "power"),
    (exp.Round, "round"),
    (exp.Pi, "pi"),
    (exp.MD5Digest, "md5"),
    (exp.Hex, "to_hex"),
    (exp.LowerHex, "lower(to_hex())"),
    (exp.Encode, "to_utf8"),
    (exp.Rand, "random"),
    (exp.Cbrt, "cbrt"),
    (exp.Degrees, "degrees"),
    (exp.Radians, "radians"),
    (exp.IsNan, "is_nan"),
    (exp.Stddev, "stddev"),
    (exp.StddevSamp, "stddev_samp"),
    (exp.StddevPop, "stddev_pop"),
    (exp.Variance, "variance"),
    (exp.VariancePop, "var_pop"),
    (exp.Avg, "avg"),
    (exp.ArgMax, "max_by"),
    (exp.ArgMin, "min_by"),
    (exp.ApproxDistinct, "approx_distinct"),
    (exp.RowNumber, "row_number"),
    (exp.Rank, "rank"),
    (exp.DenseRank, "dense_rank"),
    (exp.Lag, "lag"),
    (exp.Lead, "lead"),
    (exp.FirstValue, "first_value"),
    (exp.LastValue, "last_value"),
    (exp.NthValue, "nth_value"),
    (exp.PercentRank, "percent_rank"),
    (exp.CumeDist, "cume_dist"),
    (exp.Ntile, "ntile"),
    (exp.Hour, "hour"),
    (exp.Minute, "minute"),
    (exp.DayOfMonth, "day_of_month"),
    (exp.WeekOfYear, "week"),
    (exp.Trim, "trim"),
):
    same(_cls, _name)
for _name in (
    "transform_keys",
    "transform_values",
    "zip_with",
    "map_filter",
    "map_zip_with",
    "map_values",
    "array_union",
    "arrays_overlap",
):
    same(_name, _name)


# ---- rows ---------------------------------------------------------------------------------
def _row(values: list) -> exp.Expression:
    """An anonymous row: Athena prints its fields as field0, field1, ..."""
    pairs = ", ".join(f"'field{i}', _{i}" for i in range(len(values)))
    return spark(f"named_struct({pairs})", *values)


@rewrites(exp.Struct, "row")
def row(node: exp.Expression) -> exp.Expression:
    if any(isinstance(e, (exp.PropertyEQ, exp.Alias)) for e in node.expressions):
        raise Refused(f"the row constructor {node.sql('athena')} with field names")
    return _row(list(node.expressions))


@rewrites(exp.Tuple, "row constructor")
def tuple_row(node: exp.Expression) -> exp.Expression:
    if isinstance(node.parent, (exp.Values, exp.GroupingSets)):  # not a row there
        return node
    group = node.parent
    if isinstance(group, exp.Group) and node in group.expressions:
        # GROUP BY (a, b): Trino groups by a and b (Spark would by one row value)
        flat: list = []
        for item in group.expressions:
            flat.extend(item.expressions if item is node else [item])
        group.set("expressions", flat)
        return node
    return _row(list(node.expressions))


@rewrites("map_entries", "map_entries")
def map_entries(node: exp.Expression) -> exp.Expression:
    return spark(
        "transform(map_entries(_0), e -> named_struct('field0', e.key, 'field1', e.value))",
        *node.expressions,
    )


@rewrites("zip", "zip")
def zip_(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused("zip of more than two arrays")
    return spark(
        "zip_with(_0, _1, (x, y) -> named_struct('field0', x, 'field1', y))", *node.expressions
    )


# ---- bitwise --------------------------------------------------------------------------------
def _bits(node: exp.Expression, value: exp.Expression) -> int:
    kind = type_of(value)
    if kind is not None and kind.this == T.INT:
        return 32
    if kind is not None and kind.this == T.BIGINT:
        return 64
    raise Refused(f"{node.sql('athena')} (an integer or bigint value only)")


@rewrites(exp.BitwiseAnd, "bitwise_and")
def bitwise_and(node: exp.Expression) -> exp.Expression:
    return spark("CAST(_0 AS BIGINT) & CAST(_1 AS BIGINT)", node.this, node.expression)


@rewrites(exp.BitwiseOr, "bitwise_or")
def bitwise_or(node: exp.Expression) -> exp.Expression:
    return spark("CAST(_0 AS BIGINT) | CAST(_1 AS BIGINT)", node.this, node.expression)


@rewrites(exp.BitwiseXor, "bitwise_xor")
def bitwise_xor(node: exp.Expression) -> exp.Expression:
    return spark("CAST(_0 AS BIGINT) ^ CAST(_1 AS BIGINT)", node.this, node.expression)


@rewrites(exp.BitwiseNot, "bitwise_not")
def bitwise_not(node: exp.Expression) -> exp.Expression:
    return spark("~CAST(_0 AS BIGINT)", node.this)


@rewrites("bit_count", "bit_count")
def bit_count(node: exp.Expression) -> exp.Expression:
    value, bits = node.expressions
    if not (isinstance(bits, exp.Literal) and not bits.is_string and 2 <= int(bits.this) <= 64):
        raise Refused(f"{node.sql('athena')} (bits must be a literal from 2 to 64)")
    n = int(bits.this)
    if n == 64:
        return spark("CAST(bit_count(CAST(_0 AS BIGINT)) AS BIGINT)", value)
    low, high = -(2 ** (n - 1)), 2 ** (n - 1) - 1
    return spark(
        f"CASE WHEN CAST(_0 AS BIGINT) < {low} OR CAST(_0 AS BIGINT) > {high} THEN "
        f"raise_error('Number must be representable with the bits specified. "
        f"' || _0 || ' cannot be represented with {n} bits') "
        f"ELSE CAST(bit_count(CAST(_0 AS BIGINT) & {2**n - 1}) AS BIGINT) END",
        value,
    )


def _shift(node: exp.Expression, form: str, past: str) -> exp.Expression:
    value, shift = node.expressions
    bits = _bits(node, value)
    kind = "INT" if bits == 32 else "BIGINT"
    return spark(
        f"CASE WHEN _1 >= {bits} THEN {past} ELSE {form}(CAST(_0 AS {kind}), _1) END",
        value,
        shift,
    )


@rewrites("bitwise_left_shift", "bitwise_left_shift")
def left_shift(node: exp.Expression) -> exp.Expression:
    return _shift(node, "shiftleft", "0")


@rewrites("bitwise_right_shift", "bitwise_right_shift")
def right_shift(node: exp.Expression) -> exp.Expression:
    return _shift(node, "shiftrightunsigned", "0")


@rewrites("bitwise_right_shift_arithmetic", "bitwise_right_shift_arithmetic")
def right_shift_arithmetic(node: exp.Expression) -> exp.Expression:
    return _shift(node, "shiftright", "CASE WHEN _0 >= 0 THEN 0 ELSE -1 END")


# ---- more arrays, strings, urls ----------------------------------------------------------------
@rewrites("trim_array", "trim_array")
def trim_array(node: exp.Expression) -> exp.Expression:
    return spark("slice(_0, 1, size(_0) - _1)", *node.expressions)


@rewrites("ngrams", "ngrams")
def ngrams(node: exp.Expression) -> exp.Expression:
    return spark(
        "CASE WHEN size(_0) <= _1 THEN array(_0) "
        "ELSE transform(sequence(1, size(_0) - _1 + 1), i -> slice(_0, i, _1)) END",
        *node.expressions,
    )


@rewrites("array_histogram", "array_histogram")
def array_histogram(node: exp.Expression) -> exp.Expression:
    return spark(
        "map_from_entries(transform(array_distinct(filter(_0, x -> x IS NOT NULL)), "
        "x -> struct(x, CAST(size(filter(_0, y -> y = x)) AS BIGINT))))",
        *node.expressions,
    )


def _arrays_of_numbers(node: exp.Expression) -> None:
    for arg in node.expressions:
        kind = type_of(arg)
        if kind is None or kind.this != T.ARRAY:
            raise Refused(f"{node.sql('athena')} (arrays only)")


#: cosine_similarity of two maps (scalar_functions.py): fn(node, args, distance)
COSINE_OF_MAPS: Optional[Callable[..., exp.Expression]] = None


def _maps(node: exp.Expression) -> bool:
    kinds = [type_of(arg) for arg in node.expressions]
    return all(kind is not None and kind.this == T.MAP for kind in kinds)


_DOT = "aggregate(zip_with(_0, _1, (x, y) -> CAST(x AS DOUBLE) * CAST(y AS DOUBLE)), 0D, (s, v) -> s + v)"
_NORM = "sqrt(aggregate(transform(_{i}, x -> CAST(x AS DOUBLE) * CAST(x AS DOUBLE)), 0D, (s, v) -> s + v))"


@rewrites("dot_product", "dot_product")
def dot_product(node: exp.Expression) -> exp.Expression:
    _arrays_of_numbers(node)
    return spark(_DOT, *node.expressions)


@rewrites("euclidean_distance", "euclidean_distance")
def euclidean_distance(node: exp.Expression) -> exp.Expression:
    _arrays_of_numbers(node)
    return spark(
        "sqrt(aggregate(zip_with(_0, _1, (x, y) -> (CAST(x AS DOUBLE) - CAST(y AS DOUBLE)) * "
        "(CAST(x AS DOUBLE) - CAST(y AS DOUBLE))), 0D, (s, v) -> s + v))",
        *node.expressions,
    )


@rewrites("cosine_similarity", "cosine_similarity")
def cosine_similarity(node: exp.Expression) -> exp.Expression:
    if COSINE_OF_MAPS is not None and _maps(node):
        return COSINE_OF_MAPS(node, list(node.expressions), False)
    _arrays_of_numbers(node)
    text = f"{_DOT} / ({_NORM.format(i=0)} * {_NORM.format(i=1)})"
    return spark(text, *node.expressions)


@rewrites("cosine_distance", "cosine_distance")
def cosine_distance(node: exp.Expression) -> exp.Expression:
    _arrays_of_numbers(node)
    text = f"1 - {_DOT} / ({_NORM.format(i=0)} * {_NORM.format(i=1)})"
    return spark(text, *node.expressions)


@rewrites("any_match", "any_match")
def any_match(node: exp.Expression) -> exp.Expression:
    return call("exists", *node.expressions)


@rewrites("all_match", "all_match")
def all_match(node: exp.Expression) -> exp.Expression:
    return call("forall", *node.expressions)


@rewrites("none_match", "none_match")
def none_match(node: exp.Expression) -> exp.Expression:
    return exp.Not(this=call("exists", *node.expressions))


same(exp.RegexpSplit, "regexp_split")
same(exp.Overlay, "overlay")

for _name, _url_part in (
    ("url_extract_protocol", "PROTOCOL"),
    ("url_extract_host", "HOST"),
    ("url_extract_path", "PATH"),
    ("url_extract_query", "QUERY"),
    ("url_extract_fragment", "REF"),
):

    def _url(node: exp.Expression, part: str = _url_part) -> exp.Expression:
        return call("parse_url", node.expressions[0], exp.Literal.string(part))

    rewrites(_name, _name)(_url)


def _like_check(node: exp.Expression) -> Optional[str]:
    r"""Trino's LIKE has no escape character unless ESCAPE names one; Spark's is ``\``."""
    pattern = node.expression
    if isinstance(node.parent, exp.Escape):
        return None
    if isinstance(pattern, exp.Literal) and pattern.is_string and "\\" not in pattern.this:
        return None
    return f"LIKE with a pattern that is not a literal without backslashes ({node.sql('athena')})"


same(exp.Escape, "like ... escape")
same(exp.Like, "like", _like_check)


#: format() with a decimal or date argument (scalar_functions.py: Spark's format_string
#: has neither a BigDecimal nor a LocalDate)
FORMAT_OF_DECIMALS: Optional[Callable[[exp.Expression], exp.Expression]] = None


@rewrites(exp.Format, "format")
def format_(node: exp.Expression) -> exp.Expression:
    if node.expressions and all(is_date(type_of(a)) for a in node.expressions):
        return TIME_FORMS["format"](node)  # time_functions: Java's %t conversions
    kinds = [type_of(a) for a in node.expressions]
    if FORMAT_OF_DECIMALS is not None and any(is_decimal(k) or is_date(k) for k in kinds):
        return FORMAT_OF_DECIMALS(node)
    for arg in node.expressions:
        kind = type_of(arg)
        literal = isinstance(arg, exp.Literal) and arg.is_string
        if not literal and not (is_integral(kind) or is_double(kind) or _is_text(kind)):
            raise Refused(f"{node.sql('athena')} (format of a value other than a number or text)")
        if is_integral(kind):  # Trino formats every integer as a Java long (%x of -1)
            arg.replace(spark("CAST(_0 AS BIGINT)", arg.copy()))
    return node


def _is_text(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this in (T.VARCHAR, T.TEXT, T.CHAR)


@rewrites(exp.Extract, "extract")
def extract(node: exp.Expression) -> exp.Expression:
    unit = node.this.name.upper()
    forms = {
        "YEAR": "year(_0)",
        "QUARTER": "quarter(_0)",
        "MONTH": "month(_0)",
        "WEEK": "weekofyear(_0)",
        "DAY": "dayofmonth(_0)",
        "DAY_OF_MONTH": "dayofmonth(_0)",
        "DAY_OF_WEEK": "weekday(_0) + 1",
        "DOW": "weekday(_0) + 1",
        "DAY_OF_YEAR": "dayofyear(_0)",
        "DOY": "dayofyear(_0)",
        "HOUR": "hour(_0)",
        "MINUTE": "minute(_0)",
        "SECOND": "second(_0)",
    }
    if unit not in forms:
        raise Refused(f"extract({unit} FROM ...)")
    return spark(f"CAST({forms[unit]} AS BIGINT)", node.expression)


def _time_typeof(value: exp.Expression) -> Optional[str]:
    """typeof of a timestamp, interval or a value a rewrite typed (None: not one)."""
    named = value.meta.get("athena_typeof") if value._meta else None
    if named:  # the Athena type a rewrite gave its Spark form
        return str(named)
    if isinstance(value, exp.Interval) and value.args.get("unit") is not None:
        year_month = value.args["unit"].name.upper() in ("YEAR", "MONTH")
        return f"interval {'year to month' if year_month else 'day to second'}"
    if isinstance(value, exp.CurrentTimestamp):
        digits = int(value.this.this) if isinstance(value.this, exp.Literal) else 3
        return f"timestamp({digits}) with time zone"
    kind = type_of(value)
    if is_timestamp(kind) and kind is not None:
        if kind.expressions:
            return f"timestamp({int(kind.expressions[0].this.this)})"
        if isinstance(value, exp.Cast):  # Athena's bare timestamp is timestamp(3)
            return "timestamp(3)"
    return None


@rewrites(exp.Typeof, "typeof")
def typeof(node: exp.Expression) -> exp.Expression:
    value = node.this
    timed = _time_typeof(value)
    if timed:
        return exp.Literal.string(timed)
    name = _type_name_of(value)
    if name is None:
        raise Refused(f"{node.sql('athena')} (the emulator cannot tell this value's Athena type)")
    return exp.Literal.string(name)


def _type_name_of(value: exp.Expression) -> Optional[str]:
    """typeof(value): a string literal is varchar(its length); an array or map constructor
    has its elements' type where they all agree (or are all varchar(n): the longest)."""
    if isinstance(value, exp.Paren):
        return _type_name_of(value.this)
    if isinstance(value, exp.Literal) and value.is_string:
        return f"varchar({len(value.this)})"
    if isinstance(value, exp.Interval) and isinstance(value.args.get("unit"), exp.Var):
        unit = value.args["unit"].name.upper()
        if unit in ("YEAR", "MONTH"):
            return "interval year to month"
        return "interval day to second" if unit in ("DAY", "HOUR", "MINUTE", "SECOND") else None
    if isinstance(value, exp.Array):
        inner = _common_name([_type_name_of(e) for e in value.expressions])
        return f"array({inner})" if inner else None
    if isinstance(value, exp.Map):
        keys, values = value.args.get("keys"), value.args.get("values")
        if not (isinstance(keys, exp.Array) and isinstance(values, exp.Array)):
            return None
        key = _common_name([_type_name_of(e) for e in keys.expressions])
        item = _common_name([_type_name_of(e) for e in values.expressions])
        return f"map({key}, {item})" if key and item else None
    if any(value.find_all(exp.Array, exp.Map)):
        return None
    kind = type_of(value)
    cast_to_varchar = isinstance(value, exp.Cast) and kind is not None and kind.this == T.VARCHAR
    if cast_to_varchar and kind is not None and not kind.expressions:  # CAST(x AS VARCHAR)
        return "varchar"
    return athena_type_name(kind)


def _common_name(names: list) -> Optional[str]:
    if not names or None in names:
        return None
    if len(set(names)) == 1:
        return str(names[0])
    sizes = [re.fullmatch(r"varchar\((\d+)\)", n) for n in names]
    if all(sizes):
        return f"varchar({max(int(m.group(1)) for m in sizes if m)})"
    return None


def athena_type_name(kind: Optional[exp.DataType]) -> Optional[str]:
    """The name typeof gives ``kind`` (None: the emulator cannot tell it)."""
    if _is_text(kind) and kind is not None and kind.expressions and kind.this != T.TEXT:
        size = kind.expressions[0]
        number = size.this.this if isinstance(size, exp.DataTypeParam) else None
        return f"{kind.this.value.lower()}({number})" if number is not None else None
    if kind is None or _is_text(kind) or kind.this == T.STRUCT:
        return None
    if is_decimal(kind):
        parts = decimal_parts(kind)
        return f"decimal({parts[0]},{parts[1]})" if parts is not None else None
    if kind.this in (T.ARRAY, T.MAP):
        inner = [
            athena_type_name(k) if isinstance(k, exp.DataType) else None for k in kind.expressions
        ]
        if not inner or any(i is None for i in inner):
            return None
        return f"{'array' if kind.this == T.ARRAY else 'map'}({', '.join(inner)})"  # type: ignore[arg-type]
    names = {
        T.INT: "integer",
        T.BIGINT: "bigint",
        T.SMALLINT: "smallint",
        T.TINYINT: "tinyint",
        T.DOUBLE: "double",
        T.FLOAT: "real",
        T.BOOLEAN: "boolean",
        T.DATE: "date",
        T.VARBINARY: "varbinary",
        T.IPADDRESS: "ipaddress",
        T.UUID: "uuid",
        T.JSON: "json",
    }
    return names.get(kind.this)


same(exp.ColumnDef, "row field type")  # the named fields of row(a integer, ...)


@rewrites(exp.Sign, "sign")
def sign(node: exp.Expression) -> exp.Expression:
    """Trino's sign keeps an integer argument's type; Spark's signum is a double."""
    kind = type_of(node.this)
    if is_integral(kind):
        assert kind is not None
        out = exp.Cast(this=spark("signum(_0)", node.this), to=kind)
        out.type = kind
        return out
    if is_double(kind):
        return spark("signum(_0)", node.this)
    raise Refused(f"{node.sql('athena')} (sign of a value other than an integer or double)")


@rewrites(exp.GroupConcat, "listagg")
def listagg(node: exp.Expression) -> exp.Expression:
    this = node.this
    separator = node.args.get("separator") or exp.Literal.string("")
    if node.args.get("on_overflow") is not None:
        raise Refused("listagg ... ON OVERFLOW")
    value = this.this if isinstance(this, exp.Order) else this
    kind = type_of(value)
    if kind is None or not _is_text(kind):  # Athena's listagg takes varchar only
        if kind is not None:
            raise Fails(
                f"FUNCTION_NOT_FOUND: Unexpected parameters ({kind.sql('athena').lower()}) for function listagg"
            )
        raise Refused(f"{node.sql('athena')} (of a value whose type the emulator cannot tell)")
    if isinstance(this, exp.Order):
        values = _ordered_list(this.this, this)
    elif isinstance(this, exp.Distinct):
        raise Refused("listagg(DISTINCT ...)")
    else:
        values = _ordered_list(this, None)
    return spark("array_join(_0, _1)", values, separator)


__all__ = ["TABLE", "Entry", "FunctionTable", "Refused"]
