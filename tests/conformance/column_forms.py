"""The column forms of a conformance entry: its literal arguments lifted into the columns of
a one-row table, so that the same statement runs over a table's columns instead of
constants. Pure: sqlglot and the standard library (no emulator, no Spark).

A literal argument ``f(1.5, 'abc')`` becomes ``f(lit_0, lit_1)`` read ``FROM <relation>``,
where the relation holds one row ``(1.5, 'abc')`` in columns ``lit_0 decimal(2,1)``,
``lit_1 string``. The relation is a Hive table, an Iceberg table, a view over the Hive table
or ``WITH t AS (SELECT * FROM <hive table>)`` (bench/conformance.py ``--forms`` runs them);
each must give the literal form's answer.

What is lifted (a *liftable* value), with the Athena type Trino gives the literal
(``io.trino.sql.analyzer.ExpressionAnalyzer``'s ``visitStringLiteral``, ``visitLongLiteral``,
``visitDecimalLiteral``, ``visitDoubleLiteral``, ``visitGenericLiteral``; decimal precision
and scale as ``io.trino.spi.type.Decimals.parse`` counts them):

* ``'abc'``: varchar (a ``string`` column: its type is ``varchar``, not the literal's
  ``varchar(3)``; so the type checks of Trino's corpus apply to the literal form only);
* ``1``: integer; ``3000000000``: bigint (wider ones, decimals in Trino, stay literals);
  ``1.5``: decimal(2,1); ``1e0``: double;
* typed literals ``DATE``, ``DECIMAL``, ``REAL``, ``DOUBLE``, ``TINYINT``, ``SMALLINT``,
  ``INTEGER``, ``BIGINT``, and ``TIMESTAMP`` where the table's column holds its value
  exactly: a Hive table's timestamps are timestamp(3), an Iceberg table's timestamp(6), so
  a timestamp(3) literal goes into Hive, a timestamp(6) one into Iceberg, and one without
  fractional seconds into Hive (its answer then prints ``.000`` zeros, which the harness
  drops where the expected value has no fraction: harness.py rule 5; in Iceberg it would
  print ``.000000``, which no rule lets equal a documented ``.000``);
* ``X'0A'``: varbinary; ``true``/``false``: boolean;
* ``CAST(NULL AS T)`` for a scalar type ``T`` a table holds: a NULL of that type;
* ``ARRAY[...]`` whose elements are liftable and of one type (NULLs allowed).
  ``MAP(ARRAY[...], ARRAY[...])`` lifts its two arrays, ``ROW(...)`` its fields.

What stays a literal, and why:

* types a table cannot hold: time, timestamp with time zone, interval, json, ipaddress,
  uuid, char, the sketch types (HyperLogLog, qdigest, ...), varchar(n) of a typed literal,
  an anonymous ``ROW(...)`` (a struct column's fields have names, which a cast to JSON
  prints: ``{"field0":1.0}`` where Trino gives ``[1.0]`` for the row literal),
  ``NaN``/``Infinity`` of REAL/DOUBLE; an Iceberg table also lacks tinyint and smallint;
  arrays mixing element types (Trino coerces them: ``ARRAY[1, 2.5]``), NULL alone,
  ``ARRAY[]``, ``U&'...'`` strings;
* a literal that is a whole select item (``SELECT 1``): no argument of anything;
* the query's code rather than its data (:data:`CONSTANT_ARGS`): date/time units, format
  and regular expression patterns, JSON paths and time zone names. Trino accepts a column
  in most of these places, but queries write them as constants, and the emulator turns
  them into Spark constructs when it translates; a column there is another test;
* the type parameters of a CAST, LIKE's ESCAPE character, interval literals, window frames, and anything inside a
  subquery;
* ``DECIMAL '007.5'``: Trino's docs count leading zeros in the precision
  (``decimal.md``: ``DECIMAL '0000012345.1234500000'`` is ``DECIMAL(20, 10)``), Trino 410's
  ``Decimals.parse`` does not (15, 10): which type the column should have is not settled;
* a ROW's subscript (``ROW(1, 2.0)[1]``: ``ExpressionAnalyzer.visitSubscriptExpression``
  requires a constant index on a row), ``U&'...' UESCAPE '#'``'s escape, and the precision
  of ``current_timestamp(p)``/``localtimestamp(p)`` (an integer literal in Trino's grammar);
* ``-2147483648`` and ``-9223372036854775808``: without the sign the literal is of the
  next wider type.

An entry is *not applicable* (and counted so) when it is not one SELECT without FROM,
WHERE, GROUP BY, ORDER BY, ... (a query with its own FROM or VALUES would change under the
lifting), when sqlglot cannot parse it, or when nothing in it is liftable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from athena_spark_emulator.sql.syntax import plain_numbers
from tests.conformance.literal_types import (
    HIVE,
    ICEBERG,
    INT_RANGES,
    Type,
    Value,
    common_type,
    integer_type,
    number_value,
    typed_literal_value,
)

__all__ = ["HIVE", "ICEBERG", "Lifting", "lift"]

DIALECT = "athena"  # as plugin/athena_spark_emulator/sql/syntax.py reads Athena SQL
COLUMN_PREFIX = "lit_"

#: (function, argument index from 0) that stay literals: the query's code, not its data
CONSTANT_ARGS = {
    **{(f, 0): "a date/time unit" for f in ("date_trunc", "date_add", "date_diff")},
    **{
        (f, 1): "a date/time format"
        for f in ("date_format", "date_parse", "format_datetime", "parse_datetime")
    },
    **{(f, 1): "a time zone name" for f in ("at_timezone", "with_timezone", "from_unixtime")},
    **{(f, 0): "a number format" for f in ("format",)},
    # Trino's grammar takes an integer literal there (current_timestamp(6))
    **{
        (f, 0): "a precision"
        for f in ("current_timestamp", "localtimestamp", "current_time", "localtime")
    },
    **{
        (f, 1): "a regular expression"
        for f in (
            "regexp_like",
            "regexp_extract",
            "regexp_extract_all",
            "regexp_replace",
            "regexp_split",
            "regexp_count",
            "regexp_position",
        )
    },
    **{
        (f, 1): "a JSON path"
        for f in ("json_extract", "json_extract_scalar", "json_size", "json_array_get")
    },
}

# sqlglot's type of CAST(NULL AS <type>) -> the Athena type (scalars a table holds)
_CAST_TYPES = {
    exp.DataType.Type.TINYINT: "tinyint",
    exp.DataType.Type.SMALLINT: "smallint",
    exp.DataType.Type.INT: "integer",
    exp.DataType.Type.BIGINT: "bigint",
    exp.DataType.Type.FLOAT: "real",
    exp.DataType.Type.DOUBLE: "double",
    exp.DataType.Type.BOOLEAN: "boolean",
    exp.DataType.Type.DATE: "date",
    exp.DataType.Type.VARBINARY: "varbinary",
}
_TYPED_LITERAL_WORDS = {
    "date",
    "time",
    "timestamp",
    "decimal",
    "numeric",
    "real",
    "double",
    "precision",
    "char",
    "varchar",
    "json",
    "ipaddress",
    "uuid",
    "interval",
    "tinyint",
    "smallint",
    "integer",
    "int",
    "bigint",
    "boolean",
    "varbinary",
    "zone",
    "uescape",
    "&",
}
_CLAUSES = (
    "from_",
    "from",
    "joins",
    "where",
    "group",
    "having",
    "order",
    "limit",
    "offset",
    "with",
)
_CLAUSES += ("qualify", "windows", "laterals", "distribute", "sort", "cluster", "into")


@dataclass(frozen=True)
class Lifted:
    """One literal lifted into column ``name``; ``start``/``end`` its span in the SQL."""

    name: str
    text: str
    type: Type
    value: Any
    start: int
    end: int  # exclusive


@dataclass
class Lifting:
    """An entry's literals lifted for one table format, or why it is not applicable."""

    kind: str
    sql: str  # the statement the spans refer to
    lifted: List[Lifted] = field(default_factory=list)
    not_applicable: str = ""  # the reason, when nothing is lifted

    @property
    def applicable(self) -> bool:
        return not self.not_applicable

    def columns(self) -> List[Tuple[str, str]]:
        """``[(name, Glue type)]`` of the table."""
        return [(item.name, item.type.glue()) for item in self.lifted]

    def athena_types(self) -> Dict[str, str]:
        return {item.name: item.type.athena(self.kind) for item in self.lifted}

    def row(self) -> List[Any]:
        return [item.value for item in self.lifted]

    def body(self) -> str:
        """The statement with each lifted literal replaced by its column."""
        out, last = [], 0
        for item in sorted(self.lifted, key=lambda i: i.start):
            out.append(self.sql[last : item.start])
            out.append(item.name)
            last = item.end
        out.append(self.sql[last:])
        return "".join(out)

    def query(self, relation: str) -> str:
        """The statement reading the columns ``FROM relation`` (on a line of its own, so a
        trailing ``--`` comment cannot swallow it)."""
        return f"{self.body()}\nFROM {relation}"

    def cte_query(self, table: str) -> str:
        """``WITH t AS (SELECT * FROM table) <statement> FROM t``: dbt's import CTE."""
        return f"WITH t AS (SELECT * FROM {table})\n{self.query('t')}"


# ---------------------------------------------------------------------------------------
# Reading the statement


@dataclass
class _Statement:
    sql: str
    tree: exp.Expression
    tokens: List[Token]
    spans: Dict[int, Tuple[int, int]] = field(default_factory=dict)  # id(node) -> span

    def token_at(self, start: int) -> int:
        for i, token in enumerate(self.tokens):
            if token.start == start:
                return i
        return -1

    def previous_word(self, start: int) -> str:
        i = self.token_at(start)
        return self.tokens[i - 1].text.lower() if i > 0 else ""

    def span(self, node: exp.Expression) -> Optional[Tuple[int, int]]:
        if id(node) in self.spans:
            return self.spans[id(node)]
        meta = node.meta
        if "start" in meta and "end" in meta:
            return meta["start"], meta["end"] + 1
        return None


def _read(sql: str) -> Union[_Statement, str]:
    """The statement parsed and tokenised, or why it is not applicable."""
    try:
        tokens = list(sqlglot.tokenize(sql, read=DIALECT))
        trees = [t for t in sqlglot.parse(sql, read=DIALECT) if t is not None]
    except (ParseError, TokenError) as exc:
        return f"sqlglot cannot parse it ({str(exc).splitlines()[0][:80]})"
    if len(trees) != 1 or not isinstance(trees[0], exp.Select):
        return "not a single SELECT"
    tree = trees[0]
    used = [c for c in _CLAUSES if tree.args.get(c)]
    if used:
        return f"a query with its own {used[0].rstrip('_').upper()}"
    if re.search(r"\bjson_(query|value|exists|object|array|table)\s*\(", sql, re.I):
        return "SQL/JSON clauses (the emulator rewrites them before parsing)"
    statement = _Statement(sql, tree, tokens)
    _place_unanchored(statement)
    return statement


def _place_unanchored(statement: _Statement) -> None:
    """Spans for the nodes sqlglot records no position of: ``true``/``false`` (a TRUE or
    FALSE token) and ``CAST(NULL AS T)`` (its CAST token to the matching parenthesis), the
    n-th node to the n-th token in the statement's order. Kept only when every literal, in
    the tree's order, then stands in the text's order (else those nodes stay literals)."""
    nodes = list(statement.tree.walk(bfs=False))  # the tree's order: the text's, mostly
    booleans = [n for n in nodes if isinstance(n, exp.Boolean)]
    null_casts = [n for n in nodes if type(n) is exp.Cast and isinstance(n.this, exp.Null)]
    tokens = statement.tokens
    true_false = [t for t in tokens if t.token_type in (TokenType.TRUE, TokenType.FALSE)]
    cast_spans = []
    for i, token in enumerate(tokens[:-3]):
        if (
            token.text.lower() == "cast"
            and tokens[i + 1].token_type == TokenType.L_PAREN
            and tokens[i + 2].token_type == TokenType.NULL
        ):
            close = _closing(tokens, i + 1)
            if close is not None:
                cast_spans.append((token.start, tokens[close].end + 1))
    found: Dict[int, Tuple[int, int]] = {}
    if len(booleans) == len(true_false):
        found.update({id(n): (t.start, t.end + 1) for n, t in zip(booleans, true_false)})
    if len(null_casts) == len(cast_spans):
        found.update({id(n): s for n, s in zip(null_casts, cast_spans)})
    order = []
    for node in nodes:
        if id(node) in found:
            order.append(found[id(node)][0])
        elif isinstance(node, exp.Literal) and "start" in node.meta:
            order.append(node.meta["start"])
    if order == sorted(order) and len(set(order)) == len(order):
        statement.spans.update(found)


def _closing(tokens: List[Token], opening: int) -> Optional[int]:
    depth = 0
    for i in range(opening, len(tokens)):
        kind = tokens[i].token_type
        if kind in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
        elif kind in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
            if depth == 0:
                return i
    return None


def _opening(tokens: List[Token], inside: int) -> Optional[int]:
    depth = 0
    for i in range(inside - 1, -1, -1):
        kind = tokens[i].token_type
        if kind in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth += 1
        elif kind in (TokenType.L_PAREN, TokenType.L_BRACKET):
            if depth == 0:
                return i
            depth -= 1
    return None


# ---------------------------------------------------------------------------------------
# Liftable values


def value_of(statement: _Statement, node: exp.Expression) -> Optional[Value]:
    """The liftable value ``node`` stands for (None: it is not one)."""
    if isinstance(node, exp.Boolean):
        if isinstance(node.parent, exp.Is):
            return None  # x IS TRUE: a keyword there, not a value
        return Value(Type("boolean"), bool(node.this))
    if isinstance(node, exp.HexString):
        text = str(node.this)
        return Value(Type("varbinary"), bytes.fromhex(text)) if len(text) % 2 == 0 else None
    if isinstance(node, exp.Literal):
        return _literal_value(statement, node)
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return _negative_value(statement, node.this)
    if type(node) is exp.Cast:
        return _cast_value(statement, node)
    if isinstance(node, exp.Array):
        return _array_value(statement, node)
    if isinstance(node, exp.Struct):
        fields = [value_of(statement, e) for e in node.expressions]
        if not fields or any(v is None for v in fields):
            return None
        return Value(
            Type("row", tuple(v.type for v in fields if v)), [v.value for v in fields if v]
        )
    return None


def _negative_value(statement: _Statement, literal: exp.Literal) -> Optional[Value]:
    """``-<number>``: the number's type (Trino negates the literal)."""
    inner = _literal_value(statement, literal)
    if inner is None or inner.type.name == "varchar":
        return None
    if inner.type.name.startswith("decimal"):
        return Value(inner.type, "-" + str(inner.value))
    number = -inner.value
    if inner.type.name in INT_RANGES and integer_type(number) != inner.type.name:
        return None  # -2147483648: the literal 2147483648 is a bigint
    return Value(inner.type, number)


def _array_value(statement: _Statement, node: exp.Array) -> Optional[Value]:
    """``ARRAY[...]`` of liftable elements of one type, NULLs among them."""
    items = [None if isinstance(e, exp.Null) else value_of(statement, e) for e in node.expressions]
    if any(v is None and not isinstance(e, exp.Null) for v, e in zip(items, node.expressions)):
        return None
    common = common_type(items)
    if common is None:
        return None
    return Value(Type("array", (common,)), [v.value if v else None for v in items])


def _literal_value(statement: _Statement, node: exp.Literal) -> Optional[Value]:
    span = statement.span(node)
    if span is None:
        return None
    if node.is_string:
        if statement.previous_word(span[0]) in _TYPED_LITERAL_WORDS:
            return None  # the text of a typed literal (its Cast is the value) or U&'...'
        return Value(Type("varchar"), str(node.this))
    return number_value(statement.sql[span[0] : span[1]])


def _cast_value(statement: _Statement, node: exp.Cast) -> Optional[Value]:
    """A typed literal (``DATE '2001-08-22'``: its type word right before the text) or
    ``CAST(NULL AS T)`` of a scalar T."""
    if isinstance(node.this, exp.Null):
        if id(node) not in statement.spans:
            return None
        return _null_of(node.to)
    literal = node.this
    if not (isinstance(literal, exp.Literal) and literal.is_string):
        return None
    span = statement.span(literal)
    if span is None:
        return None
    i = statement.token_at(span[0])
    if i <= 0 or statement.tokens[i - 1].token_type == TokenType.L_PAREN:
        return None  # CAST('...' AS T): not a typed literal
    word = statement.tokens[i - 1].text
    if statement.tokens[i - 2].text.lower() in ("double", "with") if i >= 2 else False:
        return None  # DOUBLE PRECISION '...', ... WITH TIME ZONE '...'
    return typed_literal_value(word, str(literal.this))


def _null_of(data_type: exp.DataType) -> Optional[Value]:
    params = [p.this for p in data_type.expressions if isinstance(p, exp.DataTypeParam)]
    if data_type.this in _CAST_TYPES and not params:
        return Value(Type(_CAST_TYPES[data_type.this]), None)
    if data_type.this == exp.DataType.Type.VARCHAR and not params:
        return Value(Type("varchar"), None)
    if data_type.this == exp.DataType.Type.DECIMAL:
        numbers = [int(p.name) for p in params if isinstance(p, exp.Literal)]
        precision, scale = (numbers + [38, 0][len(numbers) :])[:2] if numbers else (38, 0)
        return Value(Type(f"decimal({precision},{scale})"), None)
    if data_type.this == exp.DataType.Type.TIMESTAMP:
        numbers = [int(p.name) for p in params if isinstance(p, exp.Literal)]
        return Value(Type("timestamp", precision=numbers[0] if numbers else 3), None)
    return None


def _node_span(statement: _Statement, node: exp.Expression) -> Optional[Tuple[int, int]]:
    """Where a liftable node stands in the text: its own position, a typed literal from its
    type word, ``ARRAY[...]``/``ROW(...)`` from the keyword to the closing bracket."""
    if id(node) in statement.spans:
        return statement.spans[id(node)]
    if type(node) is exp.Cast:
        inner = statement.span(node.this)
        if inner is None:
            return None
        i = statement.token_at(inner[0])
        return statement.tokens[i - 1].start, inner[1]
    if isinstance(node, exp.Neg):
        inner = _node_span(statement, node.this)
        if inner is None:
            return None
        i = statement.token_at(inner[0])
        if i <= 0 or statement.tokens[i - 1].token_type != TokenType.DASH:
            return None
        return statement.tokens[i - 1].start, inner[1]
    if isinstance(node, (exp.Array, exp.Struct)):
        return _bracketed_span(statement, node)
    return statement.span(node)


def _bracketed_span(statement: _Statement, node: exp.Expression) -> Optional[Tuple[int, int]]:
    anchors = [
        s for child in node.expressions for s in [_node_span(statement, child)] if s is not None
    ]
    if not anchors:
        return None
    first = statement.token_at(min(a[0] for a in anchors))
    if first < 0:
        return None
    opening = _opening(statement.tokens, first)
    if opening is None or opening == 0:
        return None
    keyword = statement.tokens[opening - 1]
    wanted = "array" if isinstance(node, exp.Array) else "row"
    if keyword.text.lower() != wanted:
        return None
    close = _closing(statement.tokens, opening)
    if close is None:
        return None
    return keyword.start, statement.tokens[close].end + 1


# ---------------------------------------------------------------------------------------
# Lifting


def _call_context(statement: _Statement) -> Dict[int, Tuple[str, int]]:
    """For each token's start: the innermost function call it is an argument of (its name
    in lower case, the argument's index from 0); ``("", 0)`` outside any call."""
    context: Dict[int, Tuple[str, int]] = {}
    stack: List[List[Any]] = []
    previous: Optional[Token] = None
    for token in statement.tokens:
        kind = token.token_type
        if kind in (TokenType.R_PAREN, TokenType.R_BRACKET) and stack:
            stack.pop()
        context[token.start] = (stack[-1][0], stack[-1][1]) if stack else ("", 0)
        if kind == TokenType.L_PAREN:
            name = previous.text.lower() if previous is not None else ""
            stack.append([name, 0])
        elif kind == TokenType.L_BRACKET:
            stack.append(["[", 0])
        elif kind == TokenType.COMMA and stack:
            stack[-1][1] += 1
        previous = token
    return context


def _kept_position(
    statement: _Statement, span: Tuple[int, int], context: Dict[int, Tuple[str, int]]
) -> bool:
    """A place whose literal stays one (:data:`CONSTANT_ARGS`; AT TIME ZONE's zone)."""
    if context.get(span[0]) in CONSTANT_ARGS:
        return True
    return statement.previous_word(span[0]) == "zone"


_NO_DESCENT = (exp.DataType, exp.Interval, exp.WindowSpec, exp.Subquery, exp.Select, exp.Ordered)


def lift(sql: str, kind: str) -> Lifting:
    """The literals of ``sql`` a ``kind`` table (hive or iceberg) can hold, lifted. The
    statement is first read as the emulator reads it: Trino's ``0x10`` and ``1_000`` as
    plain numbers (``syntax.plain_numbers``; sqlglot would read ``0x10`` as varbinary)."""
    sql = plain_numbers(sql)
    read = _read(sql)
    if isinstance(read, str):
        return Lifting(kind, sql, not_applicable=read)
    finder = _Finder(read, kind)
    for item in read.tree.expressions:
        finder.visit(item.this if isinstance(item, exp.Alias) else item, top=True)
    if not finder.found:
        return Lifting(kind, sql, not_applicable="no literal argument a table can hold")
    lifted = [
        Lifted(f"{COLUMN_PREFIX}{i}", sql[s:e], value.type, value.value, s, e)
        for i, (value, (s, e)) in enumerate(sorted(finder.found, key=lambda f: f[1][0]))
    ]
    return Lifting(kind, sql, lifted)


class _Finder:
    """Walks the select list, outermost first: a liftable value is taken whole."""

    def __init__(self, statement: _Statement, kind: str) -> None:
        self.statement = statement
        self.kind = kind
        self.context = _call_context(statement)
        self.found: List[Tuple[Value, Tuple[int, int]]] = []

    def take(self, node: exp.Expression) -> bool:
        """Lift ``node`` if it is liftable where it stands; True when it is an atom (taken,
        or a typed literal that stays whole)."""
        value = value_of(self.statement, node)
        span = _node_span(self.statement, node) if value is not None else None
        if value is None or span is None:
            return False
        if value.type.held_by(self.kind) and not _kept_position(self.statement, span, self.context):
            self.found.append((value, span))
            return True
        return type(node) is exp.Cast  # a typed literal: one token pair, never taken apart

    def visit(self, node: exp.Expression, top: bool = False) -> None:
        if not top and self.take(node):
            return
        if isinstance(node, exp.Bracket) and _is_row(self.statement, node.this):
            self.visit(node.this)  # a row's subscript is a constant in Trino: index kept
            return
        if isinstance(node, _NO_DESCENT) or _is_typed_literal(self.statement, node):
            return
        for key, child in node.args.items():
            if key in ("unit", "to") or (isinstance(node, exp.Escape) and key == "expression"):
                continue  # a unit, a type, LIKE's ESCAPE character (sqlglot needs a literal)
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, exp.Expression):
                    self.visit(item)


def _is_row(statement: _Statement, node: exp.Expression) -> bool:
    value = value_of(statement, node)
    return value is not None and value.type.name == "row"


def _is_typed_literal(statement: _Statement, node: exp.Expression) -> bool:
    """A typed literal the table cannot hold (``TIME '...'``, ``JSON '...'``), or a negated
    number (``-2147483648`` is an integer, ``2147483648`` a bigint): never taken apart."""
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return True
    inner = node.args.get("this")
    if not (isinstance(inner, exp.Literal) and inner.is_string):
        return False
    span = statement.span(inner)
    return span is not None and statement.previous_word(span[0]) in _TYPED_LITERAL_WORDS
