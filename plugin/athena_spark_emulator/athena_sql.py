"""Athena (Trino) SQL as the emulator reads it: parsing, statement kinds, names, table
properties, and the translation of a query to Spark SQL. Pure: no Spark, no moto.

* :func:`parse` reads one statement with sqlglot's ``athena`` dialect (Athena engine v3
  is Trino). A statement sqlglot cannot parse, or only keeps as an opaque ``Command``,
  raises :class:`Untranslatable` naming the statement and the construct.
* :func:`statement_kind` names what a parsed statement is (``"CREATE TABLE AS"``,
  ``"CREATE VIEW"``, ``"INSERT"``, ``"SELECT"``, ...): the key of the handler table in
  ``sql_statements.py``.
* :func:`table_name` / :func:`tables_read` give the names a statement uses, from the
  parsed tree (catalog, database, table), never from the text.
* :func:`to_spark` renders a query for Spark after replacing the tables it reads with the
  temporary views that stand for them.
* :func:`athena_type` / :func:`athena_value` give the ``GetQueryResults`` column type and
  text of a Spark value as Athena writes them (what pyathena and dbt-athena parse).
"""

from __future__ import annotations

import datetime
import decimal
import logging
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Set

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

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


def parse(statement: str) -> exp.Expression:
    """One Athena statement, parsed; :class:`Untranslatable` when sqlglot cannot."""
    try:
        trees = [t for t in sqlglot.parse(statement, read=DIALECT) if t is not None]
    except ParseError as exc:
        errors = getattr(exc, "errors", None) or [{}]
        first = errors[0].get("description") or str(exc).splitlines()[0]
        raise Untranslatable("a statement sqlglot cannot parse", statement, first) from None
    if len(trees) != 1:
        raise Untranslatable(f"{len(trees)} statements in one query", statement)
    tree = trees[0]
    assert isinstance(tree, exp.Expression)
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


def to_spark(query: exp.Expression, views: Mapping[int, str]) -> str:
    """Spark SQL for ``query``; ``views`` maps ``id(table node)`` to the temporary view
    that stands for it (an unaliased table keeps its own name as alias, so ``t.col``
    still resolves)."""
    copy = query.copy()
    originals = [t for t in query.find_all(exp.Table)]
    copies = [t for t in copy.find_all(exp.Table)]
    for original, node in zip(originals, copies):
        view = views.get(id(original))
        if view is None:
            continue
        alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name))
        node.replace(exp.Table(this=exp.to_identifier(view, quoted=True), alias=alias))
    if copy.find(*_REWRITTEN):
        copy = copy.transform(_for_spark, copy=False)
    try:
        return copy.sql(dialect="spark", unsupported_level=sqlglot.ErrorLevel.RAISE)
    except sqlglot.errors.UnsupportedError as exc:
        raise Untranslatable(
            "a construct Spark SQL has no form for", query.sql(DIALECT), str(exc)
        ) from None


_REWRITTEN = (exp.Try, exp.StrToTime, exp.TimeToStr, exp.StrToDate)
_FORMAT_LITERAL = re.compile(r"(?<!%)([A-Za-z]+)")


def _for_spark(node: exp.Expression) -> exp.Expression:
    """What sqlglot leaves for Spark to refuse, rewritten:

    * Trino's ``try(expr)`` (NULL where ``expr`` fails) is ``expr``: with ANSI mode off, as
      the emulator's session runs, a failed cast or parse is already NULL (dbt-athena's
      seeds wrap each timestamp format in it);
    * a literal letter in a date format (``%Y-%m-%dT%H``) is quoted (``'T'``), as Spark's
      datetime patterns need.
    """
    if isinstance(node, exp.Try):
        return node.this.transform(_for_spark)
    if isinstance(node, (exp.StrToTime, exp.TimeToStr, exp.StrToDate)):
        fmt = node.args.get("format")
        if isinstance(fmt, exp.Literal) and fmt.is_string:
            node.set("format", exp.Literal.string(_FORMAT_LITERAL.sub(r"'\1'", fmt.this)))
    return node


# ---- MERGE ---------------------------------------------------------------------------------
@dataclass
class MergePlan:
    """A MERGE as three Spark queries over a target view (with ``__emulator_row``) and a
    source view: target rows no source row matches, matched rows after their first
    applicable ``when matched`` clause (deleted ones left out), and the inserted rows."""

    columns: List[str]
    target: str  # the statement's aliases
    source: str
    on: str
    matched: List[tuple]  # (condition, {column: expression} or None for delete)
    insert: Optional[tuple]  # (condition, {column: expression})

    def _from(self, target_view: str, source_view: str, join: str) -> str:
        return (
            f"FROM `{target_view}` AS {self.target} {join} `{source_view}` AS {self.source} "
            f"ON {self.on}"
        )

    def _delete_case(self) -> str:
        whens = " ".join(
            f"WHEN {cond} THEN {'true' if sets is None else 'false'}" for cond, sets in self.matched
        )
        return f"(CASE {whens} ELSE false END)" if whens else "false"

    def queries(self, target_view: str, source_view: str) -> List[str]:
        cols = ", ".join(f"{self.target}.`{c}`" for c in self.columns)
        kept = f"SELECT {cols} {self._from(target_view, source_view, 'LEFT ANTI JOIN')}"
        updated_cols = []
        for c in self.columns:
            whens = " ".join(
                f"WHEN {cond} THEN {sets.get(c.lower(), f'{self.target}.`{c}`')}"
                for cond, sets in self.matched
                if sets is not None
            )
            value = (
                f"CASE {whens} ELSE {self.target}.`{c}` END" if whens else f"{self.target}.`{c}`"
            )
            updated_cols.append(f"{value} AS `{c}`")
        updated = (
            f"SELECT {', '.join(updated_cols)} {self._from(target_view, source_view, 'JOIN')} "
            f"WHERE NOT {self._delete_case()}"
        )
        if self.insert is None:
            inserted = f"SELECT {cols} FROM `{target_view}` AS {self.target} WHERE false"
        else:
            cond, values = self.insert
            picked = ", ".join(f"{values.get(c.lower(), 'NULL')} AS `{c}`" for c in self.columns)
            inserted = (
                f"SELECT {picked} FROM `{source_view}` AS {self.source} LEFT ANTI JOIN "
                f"`{target_view}` AS {self.target} ON {self.on} WHERE {cond}"
            )
        return [kept, updated, inserted]

    def checks(self, target_view: str, source_view: str) -> List[str]:
        """Queries that return rows when a target row matches several source rows."""
        return [
            f"SELECT {self.target}.__emulator_row "
            f"{self._from(target_view, source_view, 'JOIN')} "
            f"GROUP BY {self.target}.__emulator_row HAVING count(*) > 1"
        ]

    def deleted(self, spark: Any, target_view: str, source_view: str) -> int:
        query = (
            f"SELECT 1 {self._from(target_view, source_view, 'JOIN')} WHERE {self._delete_case()}"
        )
        return int(spark.sql(query).count())


def _spark(node: Optional[exp.Expression]) -> str:
    if node is None:
        return "true"
    return node.copy().transform(_for_spark).sql(dialect="spark")


def merge_plan(tree: exp.Expression, columns: List[str], statement: str) -> MergePlan:
    """The :class:`MergePlan` of a parsed MERGE on a table with ``columns``."""
    using = tree.args["using"]
    matched: List[tuple] = []
    insert = None
    for when in tree.args["whens"].expressions:
        then, cond = when.args.get("then"), _spark(when.args.get("condition"))
        if when.args.get("matched") and isinstance(then, exp.Update):
            sets = {e.this.name.lower(): _spark(e.expression) for e in then.expressions}
            matched.append((cond, sets))
        elif (
            when.args.get("matched") and isinstance(then, exp.Var) and then.name.lower() == "delete"
        ):
            matched.append((cond, None))
        elif not when.args.get("matched") and isinstance(then, exp.Insert) and insert is None:
            names = (
                [c.name.lower() for c in then.this.expressions]
                if then.this
                else [c.lower() for c in columns]
            )
            values = [_spark(v) for v in then.expression.expressions]
            insert = (cond, dict(zip(names, values)))
        else:
            raise Untranslatable(f"merge clause '{when.sql(DIALECT)}'", statement)
    return MergePlan(
        columns,
        tree.this.alias_or_name,
        using.alias_or_name,
        _spark(tree.args["on"]),
        matched,
        insert,
    )


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


# ---- results as Athena writes them ------------------------------------------------------------
_SIMPLE_TYPES = {
    "StringType": "varchar",
    "VarcharType": "varchar",
    "CharType": "varchar",
    "LongType": "bigint",
    "IntegerType": "integer",
    "ShortType": "smallint",
    "ByteType": "tinyint",
    "DoubleType": "double",
    "FloatType": "real",
    "DecimalType": "decimal",
    "DateType": "date",
    "TimestampType": "timestamp",
    "TimestampNTZType": "timestamp",
    "BooleanType": "boolean",
    "ArrayType": "array",
    "MapType": "map",
    "StructType": "row",
    "BinaryType": "varbinary",
    "NullType": "unknown",
}


def athena_type(spark_type: Any) -> str:
    """The ``ColumnInfo.Type`` Athena reports for a Spark data type."""
    return _SIMPLE_TYPES.get(type(spark_type).__name__, spark_type.simpleString())


def athena_value(value: Any) -> Optional[str]:
    """A value as Athena's result text (None: SQL NULL, sent without ``VarCharValue``)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    if isinstance(value, (datetime.date, decimal.Decimal, int, float, str)):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return " ".join(f"{b:02x}" for b in value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{athena_value(k)}={_nested(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        if hasattr(value, "asDict"):  # a Spark Row: Athena's row text
            return athena_value(value.asDict())
        return "[" + ", ".join(_nested(v) for v in value) + "]"
    return str(value)


def _nested(value: Any) -> str:
    text = athena_value(value)
    return "null" if text is None else text
