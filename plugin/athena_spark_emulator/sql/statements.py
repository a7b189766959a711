"""The Athena SQL statements the emulator runs: one handler per statement kind.

``StartQueryExecution`` (``aws/queries.py``) parses the statement (``syntax.parse``), looks its
kind (``syntax.statement_kind``) up in the emulator's one table of statement handlers
(``handlers.HANDLERS``, dialect ``athena``) and runs the handler on the
emulator's Glue catalog and files, with the Spark executor's local session as the engine:
the same catalog, files and session that Python models read and write, so a SQL model's
table is what a Python model reads and the other way round. A kind without a handler, or a
construct a handler cannot run, ends the query ``FAILED`` with the statement and the
construct named (:class:`syntax.Untranslatable`). Adding a statement is one function,
registered with ``@handles(kind)``, in the module of its responsibility: here SELECT and
the commands sqlglot keeps as text (``commands.py``); ddl_statements.py CREATE, DROP and
ALTER of tables, views and schemas; dml_statements.py INSERT, DELETE, UPDATE and MERGE;
partition_statements.py partitions; schema_statements.py the columns (ADD/REPLACE/DROP/
CHANGE COLUMNS, SHOW COLUMNS).

Names are resolved as Athena resolves them: a name without catalog is in the query's
catalog (``awsdatacatalog``: the local account's Glue), a name without database is in the
query's database, and a name in another catalog reads that registered Athena data
catalog's Glue (``catalog-id``) with the owner's grant checked; an unregistered catalog
fails as on Athena.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from sqlglot import exp

from athena_spark_emulator.accounts import hive_partitions, iceberg
from athena_spark_emulator.accounts.catalog import Catalog, TableRef, glue_name, is_iceberg
from athena_spark_emulator.core.constants import LOCAL_ACCOUNT, REGION
from athena_spark_emulator.core.handlers import ATHENA, HANDLERS, Handler
from athena_spark_emulator.sql import (
    column_types,
    commands,
    information_schema,
    results,
    syntax,
    translate,
    udfs,
)
from athena_spark_emulator.sql.syntax import Name, Untranslatable

DEFAULT_CATALOG = "awsdatacatalog"
VIEW_TEXT_PREFIX = "/* Presto View: "


class QueryFailed(Exception):
    """An Athena error (the text Athena gives, e.g. ``TABLE_NOT_FOUND: ...``)."""


@dataclass
class Statement:
    """One query execution's statement and its ``QueryExecutionContext``."""

    text: str
    tree: exp.Expression
    kind: str
    database: str = "default"
    catalog: str = DEFAULT_CATALOG


@dataclass
class Outcome:
    """What ``GetQueryResults`` returns for a statement."""

    statement_type: str = "DDL"  # DDL, DML or UTILITY, as GetQueryExecution reports it
    columns: List[Tuple[str, str]] = field(default_factory=list)  # (name, Athena type)
    rows: List[List[Optional[str]]] = field(default_factory=list)
    update_count: Optional[int] = None


def handles(*kinds: str, spark: bool = True) -> Callable[[Any], Any]:
    """Register ``fn(engine, statement) -> Outcome`` for Athena statements of ``kinds``
    (``spark=False``: it changes Glue metadata only, so it runs without Spark too)."""
    return HANDLERS.register(ATHENA, kinds, needs_spark=spark)


def handler_for(statement: Statement) -> Handler:
    handler = HANDLERS.find(ATHENA, statement.kind)
    if handler is None:
        raise Untranslatable(f"{statement.kind} statements", statement.text)
    return handler


# Statements sqlglot keeps as an opaque Command (``commands.py`` parses them), by what
# they are (``commands.Command.what``): each handler takes the parsed command too.
CommandHandler = Callable[["Engine", Statement, commands.Command], Outcome]
COMMANDS: Dict[str, CommandHandler] = {}
COMMAND_KINDS = (
    "COMMAND SHOW",
    "COMMAND ALTER",
    "COMMAND MSCK REPAIR",
    "COMMAND OPTIMIZE",
    "COMMAND VACUUM",
)


def handles_command(what: str) -> Callable[[CommandHandler], CommandHandler]:
    """Register ``fn(engine, statement, command) -> Outcome`` for the commands ``what``."""

    def register(fn: CommandHandler) -> CommandHandler:
        if what in COMMANDS:
            raise ValueError(f"two handlers for the command {what!r}")
        COMMANDS[what] = fn
        return fn

    return register


_VIEW_IDS = itertools.count(1)


class Engine:
    """Names, reads and writes of one statement: the emulator's catalog and, for
    statements that touch data, the local SparkSession (``spark``)."""

    def __init__(self, catalog: Catalog, spark: Any = None, caller: Optional[str] = None) -> None:
        self.catalog = catalog
        self.spark = spark
        self.caller = caller  # who called StartQueryExecution: Athena SQL reads as the caller
        self._temp_views: List[str] = []
        self._schemas: Dict[str, Dict[str, str]] = {}  # view -> {column: Athena type}

    def sql(self, spark_sql: str) -> Any:
        """``spark.sql(spark_sql)`` with the UDFs it calls registered (udfs.register_used)."""
        udfs.register_used(self.spark, spark_sql)
        return self.spark.sql(spark_sql)

    def close(self) -> None:
        for view in self._temp_views:
            self.spark.catalog.dropTempView(view)
        self._temp_views.clear()

    # -- names ----------------------------------------------------------------------------
    def account_of(self, catalog_name: str) -> str:
        """The Glue account behind an Athena data catalog name (Athena lowercases it)."""
        name = catalog_name.lower()
        if name == DEFAULT_CATALOG:
            return self.catalog.local_account
        from moto.athena.models import athena_backends

        entry = athena_backends[self.catalog.local_account][REGION].data_catalogs.get(name)
        if entry is None:
            raise QueryFailed(
                f"CATALOG_NOT_FOUND: Catalog '{name}' does not exist (no Athena data catalog "
                f"of that name in account {self.catalog.local_account}: create it with "
                "CreateDataCatalog, or under `data_catalogs:` in the emulator's seed file)"
            )
        kind = str(entry.type or "").upper()
        params: Any = entry.parameters
        owner = params.get("catalog-id") if isinstance(params, dict) else None
        if kind != "GLUE" or not owner:
            raise QueryFailed(
                f"NOT_SUPPORTED: catalog '{name}' is a {kind} data catalog; the emulator "
                "reads GLUE data catalogs with a catalog-id parameter only"
            )
        return str(owner)

    def ref(self, name: Name, statement: Statement) -> TableRef:
        account = self.account_of(name.catalog or statement.catalog)
        database = name.database or statement.database
        return TableRef(account, glue_name(database), glue_name(name.table))

    def table_ref(self, table: exp.Table, statement: Statement, action: str) -> TableRef:
        ref = self.ref(syntax.table_name(table), statement)
        try:
            self.catalog.check_access(ref, action, caller=self.caller)
        except Exception as exc:
            raise QueryFailed(f"ACCESS_DENIED: {exc}") from None
        return ref

    def existing(
        self, node: exp.Expression, statement: Statement, action: str
    ) -> Tuple[TableRef, Dict[str, Any]]:
        """The table a statement changes, and its Glue entry (it must exist)."""
        if isinstance(node, exp.Schema):
            node = node.this
        assert isinstance(node, exp.Table)
        ref = self.table_ref(node, statement, action)
        return ref, self.glue_entry(ref, f"{ref.database}.{ref.table}")

    def glue_entry(self, ref: TableRef, name: str) -> Dict[str, Any]:
        if not self.catalog.database_exists(ref.account, ref.database):
            raise QueryFailed(f"SCHEMA_NOT_FOUND: Schema '{ref.database}' does not exist")
        if not self.catalog.table_exists(ref):
            raise QueryFailed(f"TABLE_NOT_FOUND: Table '{name}' does not exist")
        return self.catalog.get_table(ref)

    # -- reads ----------------------------------------------------------------------------
    def frame(self, query: exp.Expression, statement: Statement) -> Any:
        """A Spark DataFrame of ``query``: every table it reads registered as a temporary
        view (a view's own query expanded the same way), then the query in Spark SQL."""
        views: Dict[int, str] = {}
        for table in syntax.tables_read(query):
            views[id(table)] = self.temp_view(table, statement)
        spark_sql = translate.to_spark(query, views, self._schemas)
        frame = self.sql(spark_sql)
        names = translate.athena_names(frame.columns)
        frame = frame if names == frame.columns else frame.toDF(*names)
        if len(set(names)) != len(names):
            return frame  # a column cannot be told from another by name
        kinds = list(getattr(spark_sql, "athena_types", ()))
        for i in getattr(spark_sql, "json_columns", ()):  # Athena's type json, kept
            kinds[i : i + 1] = ["json"]
        return athena_typed(frame, kinds, statement.text)

    def temp_view(self, table: exp.Table, statement: Statement) -> str:
        name = syntax.table_name(table)
        if (name.database or statement.database).lower() == information_schema.SCHEMA:
            return self.register(self.information_schema(table, name, statement))
        ref = self.table_ref(table, statement, "glue:GetTable")
        entry = self.glue_entry(ref, str(name))
        if str(entry.get("TableType", "")).upper() == "VIRTUAL_VIEW":
            return self.register(self.view_frame(ref, entry))
        frame = self.table_frame(ref)
        if is_iceberg(entry):
            return self.register(column_types.typed(frame, 6))
        glue = [*entry["StorageDescriptor"].get("Columns", []), *entry.get("PartitionKeys", [])]
        declared = {c["Name"]: c["Type"] for c in glue}
        return self.register(column_types.typed(_millisecond_timestamps(frame), 3, declared))

    def information_schema(self, table: exp.Table, name: Name, statement: Statement) -> Any:
        """A table of ``information_schema`` (information_schema.py) of the catalog named."""
        ref = self.table_ref(table, statement, "glue:GetTables")
        found = information_schema.rows(
            ref.table, (name.catalog or statement.catalog).lower(), ref.account
        )
        if found is None:
            raise Untranslatable(f"information_schema.{ref.table}", statement.text)
        return self.spark.createDataFrame(found, information_schema.TABLES[ref.table])

    def register(self, frame: Any) -> str:
        """``frame`` as a temporary view of this statement; its name."""
        view = f"athena_emulator_{next(_VIEW_IDS)}"
        frame.createOrReplaceTempView(view)
        self._temp_views.append(view)
        self._schemas[view] = column_types.columns_of(frame.schema)
        return view

    def view_frame(self, ref: TableRef, entry: Dict[str, Any]) -> Any:
        original = view_definition(entry)
        inner = Statement(
            original["originalSql"],
            syntax.parse(original["originalSql"]),
            "SELECT",
            original.get("schema") or ref.database,
            original.get("catalog") or DEFAULT_CATALOG,
        )
        return self.frame(inner.tree, inner)

    def table_frame(self, ref: TableRef) -> Any:
        from athena_spark_emulator.spark.catalogs import frame_of

        return frame_of(self.spark, self.catalog, ref)

    # -- writes ---------------------------------------------------------------------------
    def write_hive(
        self, frame: Any, location: str, fmt: str, partitioned_by: Sequence[str], mode: str
    ) -> None:
        writer = frame.write.mode(mode)
        if partitioned_by:
            writer = writer.partitionBy(*partitioned_by)
        target = self.catalog.local_uri(location)
        if fmt == "textfile":
            writer.option("sep", "\x01").option("nullValue", "\\N").csv(target)
        else:
            writer.format(fmt).save(target)

    def write_iceberg(
        self, frame: Any, ref: TableRef, location: str, partitioning: Sequence[str] = ()
    ) -> None:
        """An Iceberg table of ``frame``'s rows, partitioned by Athena's ``partitioning``
        (identity, year/month/day/hour, bucket, truncate), at most 100 partitions."""
        data = arrow_of(frame)
        assert self.catalog.endpoint_url is not None
        try:
            iceberg.write_table(
                self.catalog.endpoint_url, ref.account, ref.database, ref.table, location, data,
                partitioning, hive_partitions.MAX_OPEN_PARTITIONS,
            )  # fmt: skip
        except iceberg.PartitioningError as exc:
            raise QueryFailed(f"INVALID_TABLE_PROPERTY: partitioning: {exc}") from None
        except iceberg.TooManyPartitions as exc:
            raise QueryFailed(hive_partitions.too_many_partitions(exc.count, True)) from None

    def append_iceberg(
        self, frame: Any, ref: TableRef, overwrite: bool = False, limit: bool = False
    ) -> None:
        """``frame``'s rows appended to (or, ``overwrite``, replacing) an Iceberg table's;
        ``limit``: an INSERT, which writes at most 100 partitions."""
        assert self.catalog.endpoint_url is not None
        table = iceberg.load_table(
            self.catalog.endpoint_url, ref.account, ref.database, ref.table, as_account=ref.account
        )
        data = arrow_of(frame, table.schema().as_arrow())
        if limit:
            count = iceberg.partition_count(table, data)
            if count > hive_partitions.MAX_OPEN_PARTITIONS:
                raise QueryFailed(hive_partitions.too_many_partitions(count, True))
        if overwrite:
            table.overwrite(data)
        else:
            table.append(data)


def arrow_of(frame: Any, schema: Any = None) -> Any:
    pa = iceberg.pyarrow()
    from pyspark.sql.pandas.types import to_arrow_schema

    schema = schema if schema is not None else to_arrow_schema(frame.schema)
    return pa.Table.from_pylist([row.asDict(recursive=True) for row in frame.collect()], schema)


def view_definition(entry: Dict[str, Any]) -> Dict[str, Any]:
    """The ``originalSql``/``catalog``/``schema`` Athena encodes in a view's Glue entry."""
    text = str(entry.get("ViewOriginalText") or "")
    if not text.startswith(VIEW_TEXT_PREFIX):
        raise QueryFailed(f"NOT_SUPPORTED: view {entry.get('Name')} has no Presto view text")
    encoded = text[len(VIEW_TEXT_PREFIX) :].rsplit("*/", 1)[0].strip()
    return dict(json.loads(base64.b64decode(encoded)))


def glue_columns(schema: Any, skip: Sequence[str] = ()) -> List[Tuple[str, str]]:
    """The Glue columns of a table written from a query's ``schema`` (but ``skip``): each
    column's Glue type from its Athena type (column_types.glue_type: a ``varchar(3)``
    result is Glue ``varchar(3)``, as Athena's CTAS writes it)."""
    lowered = {s.lower() for s in skip}
    return [
        (f.name, column_types.glue_type(type_of_field(f), f.dataType))
        for f in schema.fields
        if f.name.lower() not in lowered
    ]


def _without_json(frame: Any, statement: Statement) -> Any:
    """A query whose rows a statement writes: a JSON column is refused (Athena's tables have
    no json type, and it does not write one as varchar)."""
    for column in frame.schema.fields:
        if column.metadata.get(ATHENA_TYPE) == "json":
            raise Untranslatable(f"writing the JSON value {column.name} to a table", statement.text)
    return frame


#: Spark column metadata: the column's Athena type as the translation gives it (one type
#: per value: GetQueryResults' ColumnInfo, a view's columns, the Glue columns of a CTAS).
ATHENA_TYPE = "athena_type"
# Spark's types that stand for Athena's numbers, by the Athena type's name
_NUMBERS = {
    "tinyint": "ByteType",
    "smallint": "ShortType",
    "integer": "IntegerType",
    "bigint": "LongType",
    "real": "FloatType",
    "double": "DoubleType",
}
_WIDER = ["ByteType", "ShortType", "IntegerType", "LongType"]


def _lost_digits(spark_type: Any, athena: str) -> bool:
    """Whether Spark computed a decimal with fewer fraction digits than Athena's type has
    because it ran out of precision (Spark's decimal(38, s) with s below Athena's scale:
    Spark rounds a product or sum to fit 38 digits, Trino keeps the scale and fails only
    when the value does not fit): casting it back would print digits Spark rounded away."""
    found = _DECIMAL.fullmatch(athena.replace(" ", ""))
    return bool(
        found
        and type(spark_type).__name__ == "DecimalType"
        and spark_type.precision == 38
        and spark_type.scale < int(found.group(2))
    )


_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")


def _athena_cast(spark_type: Any, athena: str) -> Optional[str]:
    """The Spark type a column of ``spark_type`` is cast to so that it holds Athena's type
    ``athena`` (None: it holds it already, or no cast is safe). Decimals are cast to
    Athena's precision and scale (Spark sizes products and sums otherwise: decimal(18,2) *
    decimal(18,6) is decimal(37,8) in Spark, decimal(36,8) in Trino's DecimalOperators);
    an integral type only widens (year() is integer in Spark, bigint in Trino), real only
    to double. A cast between other kinds of type (a double where Athena has a decimal)
    would change values: not made."""
    name = type(spark_type).__name__
    if athena.startswith("decimal(") and name == "DecimalType":
        wanted = athena.replace(" ", "")
        have = f"decimal({spark_type.precision},{spark_type.scale})"
        return None if wanted == have else wanted
    target = _NUMBERS.get(athena)
    if target is None or target == name:
        return None
    if target in _WIDER and name in _WIDER and _WIDER.index(target) > _WIDER.index(name):
        return athena
    return athena if (name, target) == ("FloatType", "DoubleType") else None


def _agrees(spark_type: Any, athena: str) -> bool:
    """Whether a Spark column of ``spark_type`` holds values of the Athena type ``athena``
    (the metadata then names ``athena``; else Spark's own type stands)."""
    have = column_types.athena_type(spark_type).split("(", 1)[0].strip()
    base = athena.split("(", 1)[0].strip()
    # Spark holds char(n) values (padded to n) as strings
    return have == base or athena == "json" or (have, base) == ("varchar", "char")


def athena_typed(frame: Any, kinds: Sequence[Optional[str]], statement: str = "") -> Any:
    """``frame`` with each column's Athena type (``kinds``, by position; None: unknown) in
    its metadata (:data:`ATHENA_TYPE`), and cast to it where Spark's type differs
    (:func:`_athena_cast`: Spark casts decimals rounding half up; with ANSI on an overflow
    fails, NUMERIC_VALUE_OUT_OF_RANGE): the rows, the result's types, a view's columns and
    a CTAS's Glue columns and files then all have Athena's type."""
    from pyspark.sql import functions as F

    columns, changed = [], False
    for spark_field, athena in itertools.zip_longest(
        frame.schema.fields, kinds[: len(frame.columns)]
    ):
        column = F.col(_quoted(spark_field.name))
        if athena and _lost_digits(spark_field.dataType, athena):
            raise Untranslatable(
                f"the result column {spark_field.name} of type {athena}",
                statement,
                f"Spark computes it as {spark_field.dataType.simpleString()}, rounding away "
                "fraction digits Athena keeps (Trino's DecimalOperators keep the scale up to "
                "38 digits): cast the operands to decimals of fewer digits",
            )
        cast = _athena_cast(spark_field.dataType, athena) if athena else None
        if cast is not None:
            column, changed = column.cast(cast), True
        if athena and (cast is not None or _agrees(spark_field.dataType, athena)):
            metadata = {**spark_field.metadata, ATHENA_TYPE: athena}
            column, changed = column.alias(spark_field.name, metadata=metadata), True
        columns.append(column)
    return frame.select(*columns) if changed else frame


def _quoted(name: str) -> str:
    """A column name quoted for Spark SQL (its backticks doubled)."""
    return "`" + name.replace("`", "``") + "`"


def type_of_field(spark_field: Any) -> str:
    """A result column's Athena type: the translation's (:data:`ATHENA_TYPE`), else a
    table column's own (column_types.TYPE_KEY: an Iceberg table's ``timestamp(6)``), else the
    one its Spark type gives (column_types.athena_type: ``decimal(10,2)``)."""
    metadata = spark_field.metadata
    athena = metadata.get(ATHENA_TYPE) or metadata.get(column_types.TYPE_KEY)
    return str(athena or column_types.athena_type(spark_field.dataType))


def result_of(frame: Any) -> Outcome:
    """A query's rows as GetQueryResults gives them; each column with its Athena type
    (``decimal(36,8)``: aws/queries.py makes ColumnInfo's Type, Precision and Scale of it)."""
    columns = [(f.name.lower(), type_of_field(f)) for f in frame.schema.fields]
    kinds = [f.dataType for f in frame.schema.fields]  # the types: nested reals print as reals
    rows = _entries_of_unhashable_maps(frame).collect()
    digits = [results.fraction_digits(kind) for _, kind in columns]
    return Outcome(
        "DML",
        columns,
        [[results.athena_value(v, k, d) for v, k, d in zip(row, kinds, digits)] for row in rows],
        len(rows),
    )


def _entries_of_unhashable_maps(frame: Any) -> Any:
    """``frame`` with each map column whose keys Python cannot hash (arrays, maps, rows,
    varbinary: PySpark's collect makes a dict of a map, and fails on them) as its
    ``map_entries``, the (key, value) rows results.athena_value prints as the map's text."""
    from pyspark.sql import functions as F

    unhashable = ("ArrayType", "MapType", "StructType", "BinaryType")
    columns, changed = [], False
    for spark_field in frame.schema.fields:
        column = F.col(_quoted(spark_field.name))
        key = getattr(spark_field.dataType, "keyType", None)
        if type(key).__name__ in unhashable:
            column, changed = F.map_entries(column).alias(spark_field.name), True
        columns.append(column)
    return frame.select(*columns) if changed else frame


def _target(engine: Engine, statement: Statement, table: exp.Expression, action: str) -> TableRef:
    if isinstance(table, exp.Schema):
        table = table.this
    assert isinstance(table, exp.Table)
    return engine.table_ref(table, statement, action)


def _require_database(engine: Engine, ref: TableRef) -> None:
    if not engine.catalog.database_exists(ref.account, ref.database):
        raise QueryFailed(f"SCHEMA_NOT_FOUND: Schema '{ref.database}' does not exist")


# ---- queries ------------------------------------------------------------------------------
@handles("SELECT")
def select(engine: Engine, statement: Statement) -> Outcome:
    return result_of(engine.frame(statement.tree, statement))


def _check_open_partitions(frame: Any, keys: Sequence[str], iceberg_table: bool = False) -> None:
    """Athena writes at most 100 partitions per statement (HIVE_TOO_MANY_OPEN_PARTITIONS)."""
    if not keys:
        return
    count = frame.select(*[f"`{k}`" for k in keys]).distinct().count()
    if count > hive_partitions.MAX_OPEN_PARTITIONS:
        raise QueryFailed(hive_partitions.too_many_partitions(count, iceberg_table))


def _millisecond_timestamps(frame: Any) -> Any:
    """A Hive table's timestamp columns as Athena reads them: timestamp(3), each value
    rounded to the millisecond (an Iceberg table's keep their microseconds: timestamp(6)).
    Top-level columns only; Spark's own session (Python models) reads the files unchanged."""
    from pyspark.sql.types import TimestampType

    exprs, changed = [], False
    for column in frame.schema.fields:
        quoted = _quoted(column.name)
        if isinstance(column.dataType, TimestampType):
            changed = True
            exprs.append(
                f"timestamp_micros(CAST(floor((unix_micros({quoted}) + 500) / 1000) * 1000 "
                f"AS BIGINT)) AS {quoted}"
            )
        else:
            exprs.append(quoted)
    return frame.selectExpr(*exprs) if changed else frame


@handles(*COMMAND_KINDS, spark=False)
def command(engine: Engine, statement: Statement) -> Outcome:
    """A statement sqlglot keeps as a Command: parsed (``commands.py``), then its handler;
    a command without one fails naming it."""
    parsed = commands.parse(statement.tree, statement.text)
    handler = COMMANDS.get(parsed.what)
    if handler is None:
        raise Untranslatable(f"{parsed.what} statements", statement.text)
    return handler(engine, statement, parsed)


__all__ = [
    "HANDLERS",
    "LOCAL_ACCOUNT",
    "Engine",
    "Outcome",
    "QueryFailed",
    "Statement",
    "handler_for",
    "handles",
]
