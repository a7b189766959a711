"""Athena (Trino) SQL as the emulator reads it: parsing, statement kinds, table names and
``with (...)`` properties. Pure: no Spark, no moto.

* :func:`parse` reads one statement with sqlglot's ``athena`` dialect (Athena engine v3
  is Trino). A statement sqlglot cannot parse, or only keeps as an opaque ``Command``,
  raises :class:`Untranslatable` naming the statement and the construct.
* :func:`statement_kind` names what a parsed statement is (``"CREATE TABLE AS"``,
  ``"CREATE VIEW"``, ``"INSERT"``, ``"SELECT"``, ...): the key of the handler table in
  ``statements.py``.
* :func:`table_name` / :func:`tables_read` give the names a statement uses, from the
  parsed tree (catalog, database, table), never from the text.
* :func:`properties` / :func:`column_defs` read a CREATE's table properties and columns.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Set

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from athena_spark_emulator.sql.functions.table import Fails

DIALECT = "athena"
# sqlglot logs a warning for each statement it keeps as a Command; the emulator refuses
# those itself, with the statement named.
logging.getLogger("sqlglot").setLevel(logging.ERROR)
_MAX_QUOTED = 600  # characters of a statement quoted in an error


def excerpt(statement: str) -> str:
    text = " ".join(statement.split())
    return text if len(text) <= _MAX_QUOTED else text[:_MAX_QUOTED] + " ..."


class Untranslatable(Exception):
    """A statement the emulator cannot translate or run; the query ends FAILED with this."""

    def __init__(self, construct: str, statement: str, detail: str = "") -> None:
        self.construct = construct
        self.statement = statement
        message = (
            f"NOT_SUPPORTED: the Athena emulator cannot run {construct}"
            + (f" ({detail})" if detail else "")
            + f". Statement: {excerpt(statement)}"
        )
        super().__init__(message)


@dataclass(frozen=True)
class Name:
    """A table name as a statement wrote it (parts it left out are None)."""

    catalog: Optional[str]
    database: Optional[str]
    table: str

    def __str__(self) -> str:
        return ".".join(p for p in (self.catalog, self.database, self.table) if p)


# Trino's 123_456.789_123: sqlglot cannot read a number whose digits are separated by _
_DIGIT_SEPARATORS = re.compile(r"(?<![\w.])\d+(?:_\d+)+(?:\.\d+(?:_\d+)*)?(?:[eE][-+]?\d+)?")


# Trino's integer literals 0x0A, 0o40, 0b1001 and digits separated by _ (123_456.789_123),
# outside quotes and comments: sqlglot reads 0x0A as X'0A' (a varbinary), 0o40 as 0 AS o40
_QUOTED = re.compile(
    r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|`(?:[^`]|``)*`|--[^\n]*|/\*.*?\*/", re.DOTALL
)
_BASED = re.compile(
    r"(?<![\w.])0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)(?![\w.])"
)
_SEPARATED = re.compile(r"(?<![\w.])\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?(?:[eE][-+]?\d+)?(?![\w.])")


def _based(match: re.Match) -> str:
    text = match.group(0).replace("_", "")
    value = int(text[2:], {"x": 16, "o": 8, "b": 2}[text[1].lower()])
    return str(value) if value < 2**63 else match.group(0)


def plain_numbers(statement: str) -> str:
    """``statement`` with Trino's 0x/0o/0b integer literals in decimal and the ``_`` of
    digit separators dropped (quoted text and comments untouched)."""
    if not re.search(r"0[xXoObB]|\d_", statement):  # the common case: nothing to do
        return statement
    out, last = [], 0
    for quoted in _QUOTED.finditer(statement):
        out.append(_plain(statement[last : quoted.start()]))
        out.append(quoted.group(0))
        last = quoted.end()
    out.append(_plain(statement[last:]))
    return "".join(out)


def _plain(code: str) -> str:
    code = _BASED.sub(_based, code)
    return _SEPARATED.sub(lambda m: m.group(0).replace("_", ""), code)


def binary_literals(statement: str) -> str:
    """``statement`` with the blanks inside Trino's varbinary literals dropped: Trino's
    grammar (SqlBase.g4 BINARY_LITERAL) takes any text between ``X'`` and ``'`` and its
    AstBuilder removes the whitespace before reading the hex digits, so ``X'68 65'`` is
    ``X'6865'`` (sqlglot's tokenizer stops at the blank)."""
    if not re.search(r"[xX]'[^']*\s", statement):
        return statement
    out, last = [], 0
    for quoted in _QUOTED.finditer(statement):
        start = quoted.start()
        text = quoted.group(0)
        before = statement[start - 2 : start] if start >= 2 else " " + statement[:start]
        if text.startswith("'") and before[-1:] in "xX" and not re.match(r"\w", before[0]):
            text = re.sub(r"\s+", "", text)
        out.append(statement[last:start])
        out.append(text)
        last = quoted.end()
    out.append(statement[last:])
    return "".join(out)


# The words a statement can start with: Trino's (SqlBase.g4, rule statement; its parser's
# error lists them, TestSqlParserErrorHandling), a query's, and Athena's Hive DDL commands.
_STATEMENT_WORDS = (
    "'ALTER', 'ANALYZE', 'CALL', 'COMMENT', 'COMMIT', 'CREATE', 'DEALLOCATE', 'DELETE', "
    "'DENY', 'DESC', 'DESCRIBE', 'DROP', 'EXECUTE', 'EXPLAIN', 'GRANT', 'INSERT', 'MERGE', "
    "'PREPARE', 'REFRESH', 'RESET', 'REVOKE', 'ROLLBACK', 'SET', 'SHOW', 'START', 'TRUNCATE', "
    "'UPDATE', 'USE', <query>"
)
_STARTS = {w.strip("'").lower() for w in _STATEMENT_WORDS.split(", ")} | {
    "with",
    "select",
    "values",
    "table",
    "msck",
    "unload",
    "optimize",
    "vacuum",
}
_FIRST_TOKEN = re.compile(r"(?:\s+|--[^\n]*\n?|/\*.*?\*/)*([A-Za-z_]\w*|[^\s(])?", re.DOTALL)


def check_first_word(statement: str) -> None:
    """Trino's syntax error for a statement that starts with no statement's word (``THIS IS
    NOT SQL``): ``line 1:1: mismatched input 'THIS'. Expecting: 'ALTER', ...`` (Trino's
    ErrorHandler, as its TestSqlParserErrorHandling states it)."""
    match = _FIRST_TOKEN.match(statement)
    word = match.group(1) if match else None
    if word is None or word.lower() in _STARTS:
        return
    before = statement[: match.start(1)]  # type: ignore[union-attr]
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    raise Fails(
        f"SYNTAX_ERROR: line {line}:{column}: mismatched input '{word}'. "
        f"Expecting: {_STATEMENT_WORDS}"
    )


#: meta key of the Spark ``range(...)`` that stands for Trino's ``TABLE(sequence(...))``
TABLE_SEQUENCE = "athena_table_sequence"
_SEQUENCE_ARGUMENTS = ("start", "stop", "step")


def _sequence_arguments(call: exp.Expression, statement: str) -> Dict[str, int]:
    """START, STOP and STEP of ``sequence(...)`` in ``TABLE(...)``, by name (``stop =>
    10``) or position; each a bigint constant (Trino's ScalarArgumentSpecification)."""
    if isinstance(call, exp.GenerateSeries):  # sqlglot's reading of sequence(...)
        given = [call.args.get(k) for k in ("start", "end", "step")]
    else:
        given = list(call.expressions)
    found: Dict[str, int] = {}
    for position, arg in enumerate(a for a in given if a is not None):
        name = _SEQUENCE_ARGUMENTS[position] if position < 3 else "?"
        if isinstance(arg, exp.Kwarg):
            name, arg = arg.this.name.lower(), arg.expression
        number = arg.this if isinstance(arg, exp.Neg) else arg
        if name not in _SEQUENCE_ARGUMENTS or name in found:
            raise Fails(f"INVALID_FUNCTION_ARGUMENT: Unexpected argument name: {name.upper()}")
        if not (isinstance(number, exp.Literal) and number.is_int):
            raise Untranslatable(
                "TABLE(sequence(...)) with an argument that is not an integer literal",
                statement,
            )
        found[name] = -int(number.this) if isinstance(arg, exp.Neg) else int(number.this)
    return found


def table_sequences(tree: exp.Expression, statement: str) -> None:
    """Trino's table function ``TABLE(sequence(start => 0, stop => n, step => 1))``
    (io.trino.operator.table.SequenceFunction; Athena has it): one bigint column
    ``sequential_number`` from start to stop inclusive; START defaults to 0, STEP to 1;
    a step of the wrong sign fails when the query is analysed. It becomes Spark's
    ``range(start, stop + 1, step)`` (``stop - 1`` for a negative step), marked for the
    function table (query_shapes.py)."""
    for table in list(tree.find_all(exp.Table)):
        wrapper = table.this
        if not (isinstance(wrapper, exp.Anonymous) and str(wrapper.name).upper() == "TABLE"):
            continue
        [call] = wrapper.expressions if len(wrapper.expressions) == 1 else [None]
        if isinstance(call, exp.Dot) and call.this.sql(DIALECT).lower() == "system.builtin":
            call = call.expression
        named = isinstance(call, exp.Anonymous) and str(call.name).lower() == "sequence"
        if not (named or isinstance(call, exp.GenerateSeries)):
            raise Untranslatable(f"the table function {wrapper.sql(DIALECT)}", statement)
        found = _sequence_arguments(call, statement)
        if "stop" not in found:
            raise Fails("INVALID_FUNCTION_ARGUMENT: Missing argument: STOP")
        start, stop, step = found.get("start", 0), found["stop"], found.get("step", 1)
        if start < stop and step <= 0:
            raise Fails(
                f"INVALID_FUNCTION_ARGUMENT: Step must be positive for sequence [{start}, {stop}]"
            )
        if start > stop and step >= 0:
            raise Fails(
                f"INVALID_FUNCTION_ARGUMENT: Step must be negative for sequence [{start}, {stop}]"
            )
        step = step if start != stop else 1
        end = stop + (1 if step > 0 else -1)
        generator = exp.Anonymous(
            this="range", expressions=[exp.Literal.number(v) for v in (start, end, step)]
        )
        generator.meta[TABLE_SEQUENCE] = True
        alias = table.args.get("alias")
        name = alias.this if alias is not None and alias.this else exp.to_identifier("sequence")
        columns = list(alias.columns) if alias is not None and alias.columns else []
        table.set("this", generator)
        table.set(
            "alias",
            exp.TableAlias(this=name, columns=columns or [exp.to_identifier("sequential_number")]),
        )


#: WITH FUNCTION's expansion (query_shapes.py registers it on import).
INLINE_FUNCTIONS: List[Any] = []


#: meta key of a subscript whose constant index sqlglot made 0-based (it took ``x`` in
#: ``x[2]`` for an array: a column, whose type the parser does not know)
ZERO_BASED = "athena_zero_based_index"


def values_rows(tree: exp.Expression) -> None:
    """``VALUES ROW(a, b)`` is the row (a, b), as ``VALUES (a, b)`` is: Trino's ROW there is
    the table's row, not a value (``VALUES ROW(ROW(1, 2))`` has one column, a row); sqlglot
    reads it as a one-column row holding a row."""
    for values in tree.find_all(exp.Values):
        for row in values.expressions:
            if isinstance(row, exp.Tuple) and len(row.expressions) == 1:
                [only] = row.expressions
                if isinstance(only, exp.Struct):
                    row.set("expressions", list(only.expressions))


def mark_array_indexes(tree: exp.Expression) -> None:
    """Mark each subscript whose index sqlglot's parser made 0-based: where the value turns
    out to be a row, its field is the index the statement wrote (functions/array.py)."""
    unknown = (exp.DataType.Type.UNKNOWN, exp.DataType.Type.ARRAY)
    for bracket in tree.find_all(exp.Bracket):
        kind = bracket.this.type
        index = bracket.expressions[0] if len(bracket.expressions) == 1 else None
        if index is not None and index.is_int and kind is not None and kind.this in unknown:
            bracket.meta[ZERO_BASED] = True


def _values_width(row: exp.Expression) -> int:
    """The columns of a VALUES row: its items, or the fields of its one value when that is
    cast to a row type (Trino's StatementAnalyzer.visitValues gives a row-typed value a
    column per field; functions/select.py spreads them)."""
    items = row.expressions if isinstance(row, exp.Tuple) else [row]
    if len(items) == 1 and isinstance(items[0], exp.Cast):
        to = items[0].to
        if to.this == exp.DataType.Type.STRUCT and to.expressions:
            return len(to.expressions)
    return len(items)


_OPEN = (TokenType.L_PAREN, TokenType.L_BRACKET)
_CLOSE = (TokenType.R_PAREN, TokenType.R_BRACKET)


def listagg_arguments(statement: str) -> None:
    """Trino's grammar (SqlBase.g4: ``LISTAGG '(' setQuantifier? expression (',' string)?
    (ON OVERFLOW ...)? ')'``) takes a value and at most a separator: a third argument is a
    SYNTAX_ERROR ("mismatched input ','. Expecting: ')', 'ON'", TestListagg), where
    sqlglot reads the call and drops it."""
    if "listagg" not in statement.lower():
        return
    try:
        tokens = sqlglot.Dialect.get_or_raise(DIALECT).tokenize(statement)
    except TokenError:
        return  # the parse names what is wrong
    for i, token in enumerate(tokens[:-1]):
        if token.text.lower() != "listagg" or tokens[i + 1].token_type != TokenType.L_PAREN:
            continue
        depth, commas = 0, 0
        for inner in tokens[i + 1 :]:
            depth += (inner.token_type in _OPEN) - (inner.token_type in _CLOSE)
            if depth == 0:
                break
            commas += depth == 1 and inner.token_type == TokenType.COMMA
            if commas == 2:
                line = statement.count("\n", 0, inner.start) + 1
                column = inner.start - statement.rfind("\n", 0, inner.start)
                raise Fails(
                    f"SYNTAX_ERROR: line {line}:{column}: mismatched input ','. Expecting: "
                    "')', 'ON' (listagg takes a value and a separator string: "
                    "listagg(x, ',') WITHIN GROUP (ORDER BY ...); it has no third argument)"
                )


def parse(statement: str) -> exp.Expression:
    """One Athena statement, parsed; :class:`Untranslatable` when sqlglot cannot."""
    check_first_word(statement)
    if re.match(r"\s*explain\b", statement, re.IGNORECASE):
        raise Untranslatable(
            "EXPLAIN",
            statement,
            "Athena answers it with Trino's query plan; the emulator runs the statement's "
            "translation on Spark and has no Trino plan to give. Run EXPLAIN on Athena itself",
        )
    listagg_arguments(statement)
    text = binary_literals(statement)
    if "json_" in statement.lower():  # SQL/JSON clauses sqlglot cannot parse
        from athena_spark_emulator.sql.functions.json import json_clauses

        text = json_clauses(text)
    try:
        text = plain_numbers(text)
        trees = [t for t in sqlglot.parse(text, read=DIALECT) if t is not None]
    except ParseError as exc:
        errors = getattr(exc, "errors", None) or [{}]
        first = errors[0].get("description") or str(exc).splitlines()[0]
        near = str(errors[0].get("highlight") or "").strip()
        construct = "a statement sqlglot cannot parse" + (f" (near '{near}')" if near else "")
        separated = _DIGIT_SEPARATORS.search(re.sub(r"'(?:[^']|'')*'", "''", statement))
        if separated:
            construct = f"the number literal {separated.group(0)} (digits separated by _)"
        raise Untranslatable(construct, statement, first) from None
    if len(trees) != 1:
        raise Untranslatable(f"{len(trees)} statements in one query", statement)
    tree = trees[0]
    assert isinstance(tree, exp.Expression)
    values_rows(tree)
    mark_array_indexes(tree)
    if tree.find(exp.Anonymous):
        table_sequences(tree, statement)
    if tree.find(exp.UserDefinedFunction):
        # WITH FUNCTION name(...) RETURNS ... RETURN expr: each call replaced by its body
        if not INLINE_FUNCTIONS or not isinstance(tree, exp.Query):
            raise Untranslatable("inline SQL functions (WITH FUNCTION ...)", statement)
        tree = INLINE_FUNCTIONS[0](tree)
    if isinstance(tree, exp.Values) and tree.expressions and not tree.args.get("alias"):
        # a VALUES statement: its rows as a query, its columns named _col0, _col1, ...
        width = _values_width(tree.expressions[0])
        names = [f"_col{i}" for i in range(width)]
        tree = exp.select("*").from_(tree.as_("_values", table=names))
    return tree


def statement_kind(tree: exp.Expression) -> str:
    """The handler key of a parsed statement, e.g. ``"CREATE TABLE AS"``."""
    if isinstance(tree, exp.Create):
        kind = str(tree.args.get("kind") or "").upper()
        if kind == "TABLE" and isinstance(tree.expression, exp.Query):
            return "CREATE TABLE AS"
        return f"CREATE {kind}"
    if isinstance(tree, exp.Drop):
        return f"DROP {str(tree.args.get('kind') or '').upper()}"
    if isinstance(tree, exp.Alter):
        actions = tree.args.get("actions") or []
        names = {type(a).__name__ for a in actions}
        if names == {"AlterRename"}:
            return "ALTER TABLE RENAME"
        if names == {"AlterSet"}:
            return "ALTER TABLE SET"
        return "ALTER TABLE " + " ".join(sorted(names))
    if isinstance(tree, exp.Query):
        return "SELECT"
    if isinstance(tree, exp.Command):
        return f"COMMAND {str(tree.this).upper()}"
    return type(tree).__name__.upper()


def table_name(table: exp.Table) -> Name:
    return Name(table.catalog or None, table.db or None, table.name)


def _cte_names(tree: exp.Expression) -> Set[str]:
    return {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}


def tables_read(tree: exp.Expression) -> List[exp.Table]:
    """The ``Table`` nodes of ``tree`` that name catalog tables (not CTEs), in order."""
    ctes = _cte_names(tree)
    found = []
    for table in tree.find_all(exp.Table):
        if not table.name:
            continue  # a table function, e.g. unnest
        if not table.db and table.name.lower() in ctes:
            continue
        found.append(table)
    return found


# ---- CREATE TABLE properties --------------------------------------------------------------
def properties(create: exp.Expression) -> Dict[str, Any]:
    """The ``with (...)`` / ``tblproperties`` / ``location`` / ``row format`` of a CREATE,
    keyed in lower case: strings, booleans, numbers, or lists (``partitioned_by``)."""
    found: Dict[str, Any] = {}
    props = create.args.get("properties")
    for prop in props.expressions if props else []:
        if isinstance(prop, exp.LocationProperty):
            found["location"] = _value(prop.this)
        elif isinstance(prop, exp.FileFormatProperty):
            found["format"] = str(_value(prop.this)).lower()
        elif isinstance(prop, exp.PartitionedByProperty):
            found["partitioned_by"] = _partition_names(prop.this)
        elif isinstance(prop, exp.ExternalProperty):
            found["is_external"] = True
        elif isinstance(prop, exp.RowFormatSerdeProperty):
            found["serde"] = _value(prop.this)
            serde_props = prop.args.get("serde_properties")
            for item in serde_props.expressions if serde_props else []:
                found[f"serde.{_key(item)}"] = _value(item.args.get("value"))
        elif isinstance(prop, exp.Property):
            found[_key(prop)] = _value(prop.args.get("value"))
        else:
            found[type(prop).__name__] = prop.sql(DIALECT)
    return found


def _key(prop: exp.Expression) -> str:
    this = prop.this
    return str(
        this.name if isinstance(this, (exp.Literal, exp.Identifier, exp.Var)) else this
    ).lower()


def _value(node: Any) -> Any:
    if node is None:
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Literal):
        return node.this if node.is_string else node.to_py()
    if isinstance(node, exp.Array):
        return [_value(e) for e in node.expressions]
    if isinstance(node, (exp.Identifier, exp.Var)):
        return node.name
    return node.sql(DIALECT)


def _partition_names(node: Any) -> List[str]:
    if isinstance(node, exp.Schema):  # partitioned by (col type, ...)
        return [c.name for c in node.expressions]
    value = _value(node)
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def column_defs(create: exp.Expression) -> List[tuple]:
    """``(name, hive type)`` of ``create external table t (col type, ...)``."""
    schema = create.this
    out = []
    for col in schema.expressions if isinstance(schema, exp.Schema) else []:
        kind = col.args.get("kind")
        out.append((col.name, hive_type(kind.sql("hive") if kind else "string")))
    return out


def hive_type(text: str) -> str:
    """A type as Glue stores it for Hive tables (``varchar`` -> ``string``)."""
    lowered = text.lower().replace(" ", "")
    if lowered in ("varchar", "text", "char") or lowered.startswith(("varchar(", "char(")):
        return "string"
    return {"integer": "int", "real": "float"}.get(lowered, lowered)
