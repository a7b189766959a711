"""The Athena SQL statements the emulator runs: one handler per statement kind.

``StartQueryExecution`` (``execution.py``) parses the statement (``syntax.parse``), looks its
kind (``syntax.statement_kind``) up in the emulator's one table of statement handlers
(``handlers.HANDLERS``, dialect ``athena``) and runs the handler on the
emulator's Glue catalog and files, with the Spark executor's local session as the engine:
the same catalog, files and session that Python models read and write, so a SQL model's
table is what a Python model reads and the other way round. A kind without a handler, or a
construct a handler cannot run, ends the query ``FAILED`` with the statement and the
construct named (:class:`syntax.Untranslatable`). Adding a statement is one function
here, registered with ``@handles(kind)``.

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
import shutil
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from sqlglot import exp

from athena_spark_emulator.accounts import hive_partitions, iceberg
from athena_spark_emulator.accounts.catalog import (
    Catalog,
    TableRef,
    columns_of,
    glue_backend,
    glue_name,
    is_iceberg,
)
from athena_spark_emulator.core.constants import LOCAL_ACCOUNT, REGION
from athena_spark_emulator.core.handlers import ATHENA, HANDLERS, Handler
from athena_spark_emulator.sql import commands, results, syntax, translate, udfs
from athena_spark_emulator.sql.syntax import Name, Untranslatable
from athena_spark_emulator.sql.translate import merge_plan

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
        self._schemas: Dict[str, Dict[str, str]] = {}  # view -> {column: Spark type}

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
        json_columns = getattr(spark_sql, "json_columns", ())
        if json_columns and len(set(names)) == len(names):  # Athena's type json, kept
            for i in sorted(json_columns):
                frame = frame.withMetadata(names[i], {"athena_type": "json"})
        return frame

    def temp_view(self, table: exp.Table, statement: Statement) -> str:
        ref = self.table_ref(table, statement, "glue:GetTable")
        entry = self.glue_entry(ref, str(syntax.table_name(table)))
        if str(entry.get("TableType", "")).upper() == "VIRTUAL_VIEW":
            return self.register(self.view_frame(ref, entry))
        frame = self.table_frame(ref)
        return self.register(frame if is_iceberg(entry) else _millisecond_timestamps(frame))

    def register(self, frame: Any) -> str:
        """``frame`` as a temporary view of this statement; its name."""
        view = f"athena_emulator_{next(_VIEW_IDS)}"
        frame.createOrReplaceTempView(view)
        self._temp_views.append(view)
        self._schemas[view] = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
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
    lowered = {s.lower() for s in skip}
    return [
        (f.name, f.dataType.simpleString()) for f in schema.fields if f.name.lower() not in lowered
    ]


def _without_json(frame: Any, statement: Statement) -> Any:
    """A query whose rows a statement writes: a JSON column is refused (Athena's tables have
    no json type, and it does not write one as varchar)."""
    for column in frame.schema.fields:
        if column.metadata.get("athena_type") == "json":
            raise Untranslatable(f"writing the JSON value {column.name} to a table", statement.text)
    return frame


def result_of(frame: Any) -> Outcome:
    rows = frame.collect()
    columns = [
        (f.name.lower(), f.metadata.get("athena_type") or results.athena_type(f.dataType))
        for f in frame.schema.fields
    ]
    kinds = [type(f.dataType).__name__ for f in frame.schema.fields]
    return Outcome(
        "DML",
        columns,
        [[results.athena_value(v, k) for v, k in zip(row, kinds)] for row in rows],
        len(rows),
    )


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


# ---- tables -------------------------------------------------------------------------------
HIVE_FORMATS = ("parquet", "orc", "avro", "json", "textfile")


def _hive_format(props: Dict[str, Any], statement: Statement) -> str:
    fmt = str(props.get("format") or "parquet").lower()
    if fmt not in HIVE_FORMATS:
        raise Untranslatable(
            f"format '{fmt}'", statement.text, "parquet, orc, avro, json, textfile"
        )
    return fmt


def _location(props: Dict[str, Any], ref: TableRef) -> str:
    return str(
        props.get("external_location")
        or props.get("location")
        or f"s3://emulator-{ref.account}-{REGION}/tables/{ref.database}/{ref.table}/"
    )


def _new_table(engine: Engine, statement: Statement) -> Optional[TableRef]:
    """The table a CREATE names; None for ``if not exists`` on an existing one."""
    ref = _target(engine, statement, statement.tree.this, "glue:CreateTable")
    _require_database(engine, ref)
    if engine.catalog.table_exists(ref):
        if statement.tree.args.get("exists"):
            return None
        raise QueryFailed(
            f"TABLE_ALREADY_EXISTS: Table '{ref.database}.{ref.table}' already exists"
        )
    return ref


@handles("CREATE TABLE AS")
def create_table_as(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    ref = _new_table(engine, statement)
    if ref is None:
        return Outcome()  # create table if not exists, and it exists
    props = syntax.properties(tree)
    if "WithDataProperty" in props:
        raise Untranslatable("create table ... with no data", statement.text)
    frame = _without_json(engine.frame(tree.expression, statement), statement)
    location = _location(props, ref)
    rows = frame.count()
    if str(props.get("table_type", "hive")).lower() == "iceberg":
        partitioning = props.get("partitioning") or props.get("partitioned_by") or []
        engine.write_iceberg(
            frame, ref, location, [partitioning] if isinstance(partitioning, str) else partitioning
        )
        return Outcome(update_count=rows)
    fmt = _hive_format(props, statement)
    keys = _partition_keys_last(frame, list(props.get("partitioned_by") or []))
    _check_open_partitions(frame, keys)
    _check_location_empty(engine.catalog, location)
    engine.write_hive(frame, location, fmt, keys, "errorifexists")
    by_name = {f.name.lower(): f.dataType.simpleString() for f in frame.schema.fields}
    engine.catalog.put_table(
        ref,
        glue_columns(frame.schema, keys),
        location,
        fmt,
        [(k, by_name[k.lower()]) for k in keys],
    )
    hive_partitions.register_written(engine.catalog, ref)
    engine.catalog.sync_to_s3(location, ref.account)
    return Outcome(update_count=rows)


def _partition_keys_last(frame: Any, keys: List[str]) -> List[str]:
    """The partition keys of a Hive CTAS, which Athena requires as the query's last
    columns, in the same order."""
    names = [f.name for f in frame.schema.fields]
    lowered = [n.lower() for n in names]
    missing = [k for k in keys if k.lower() not in lowered]
    if missing:
        raise QueryFailed(
            f"COLUMN_NOT_FOUND: Partition column(s) {missing} not in the query's columns {names}"
        )
    if keys and lowered[len(names) - len(keys) :] != [k.lower() for k in keys]:
        raise QueryFailed(
            "HIVE_COLUMN_ORDER_MISMATCH: Partition keys must be the last columns in the table "
            f"and in the same order as the table properties: {keys}"
        )
    return [names[lowered.index(k.lower())] for k in keys]


def _check_open_partitions(frame: Any, keys: Sequence[str], iceberg_table: bool = False) -> None:
    """Athena writes at most 100 partitions per statement (HIVE_TOO_MANY_OPEN_PARTITIONS)."""
    if not keys:
        return
    count = frame.select(*[f"`{k}`" for k in keys]).distinct().count()
    if count > hive_partitions.MAX_OPEN_PARTITIONS:
        raise QueryFailed(hive_partitions.too_many_partitions(count, iceberg_table))


def _check_location_empty(catalog: Catalog, location: str) -> None:
    path = catalog.local_path(location)
    if path.is_dir() and any(p.is_file() for p in path.rglob("*")):
        raise QueryFailed(
            f"HIVE_PATH_ALREADY_EXISTS: Target directory for table already exists: {location}. "
            "You may need to manually clean the data at location before creating the table."
        )
    shutil.rmtree(path, ignore_errors=True)


@handles("CREATE TABLE")
def create_external_table(engine: Engine, statement: Statement) -> Outcome:
    """``create external table t (cols) [row format serde ...] location ...`` (dbt-athena's
    seeds): the files already at the location (the uploaded CSV) are the table's data."""
    tree = statement.tree
    ref = _new_table(engine, statement)
    if ref is None:
        return Outcome()  # create table if not exists, and it exists
    props = syntax.properties(tree)
    if str(props.get("table_type", "hive")).lower() == "iceberg":
        raise Untranslatable("create table (columns) for Iceberg tables", statement.text)
    if not props.get("is_external"):
        raise QueryFailed(
            "NOT_SUPPORTED: Only external table creation is supported. (CREATE TABLE without "
            "EXTERNAL makes a Hive table only as CREATE EXTERNAL TABLE; an Iceberg table needs "
            "TBLPROPERTIES ('table_type'='ICEBERG'))"
        )
    if "location" not in props:
        raise Untranslatable("create table without location", statement.text)
    location = str(props["location"])
    serde = str(props.get("serde") or "")
    if serde.endswith("OpenCSVSerde"):
        fmt = "csv"
        extra = {
            "serde": serde,
            "separatorChar": str(props.get("serde.separatorchar", ",")),
            "quoteChar": str(props.get("serde.quotechar", '"')),
            "escapeChar": str(props.get("serde.escapechar", "\\")),
        }
    elif serde.endswith("JsonSerDe"):  # org.openx.data.jsonserde / hive.hcatalog.data
        fmt, extra = "json", {"serde": serde}
    elif serde:
        raise Untranslatable(f"row format serde '{serde}'", statement.text)
    else:
        fmt = _hive_format({"format": props.get("format") or "textfile"}, statement)
        extra = _delimited(tree, statement)
    params = (
        {"skip.header.line.count": str(props["skip.header.line.count"])}
        if ("skip.header.line.count" in props)
        else {}
    )
    engine.catalog.sync_from_s3(location, ref.account)
    engine.catalog.put_table(
        ref,
        syntax.column_defs(tree),
        location,
        fmt,
        _partition_key_defs(tree),
        parameters=params,
        serde=extra,
    )
    return Outcome()


def _delimited(tree: exp.Expression, statement: Statement) -> Dict[str, str]:
    """``row format delimited fields terminated by 'x'``: LazySimpleSerDe with that field
    delimiter (the other delimited clauses, but lines terminated by a newline, are refused
    rather than read wrongly)."""
    found = tree.find(exp.RowFormatDelimitedProperty)
    if found is None:
        return {}
    others = {k for k, v in found.args.items() if v is not None and k != "fields"}
    lines = found.args.get("lines")
    if lines is not None and str(lines.this) == "\n":
        others.discard("lines")
    if others:
        raise Untranslatable(
            f"row format delimited ... {', '.join(sorted(others))}", statement.text
        )
    fields = found.args.get("fields")
    serde = "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
    return {"serde": serde, "field.delim": str(fields.this)} if fields is not None else {}


def _partition_key_defs(tree: exp.Expression) -> List[Tuple[str, str]]:
    """``partitioned by (k type, ...)`` of a CREATE EXTERNAL TABLE: Glue's PartitionKeys
    (the table then has no partition until ``msck repair table`` or ``add partition``)."""
    props = tree.args.get("properties")
    for prop in props.expressions if props else []:
        if isinstance(prop, exp.PartitionedByProperty) and isinstance(prop.this, exp.Schema):
            return [
                (
                    c.name,
                    syntax.hive_type(
                        c.args["kind"].sql("hive") if c.args.get("kind") else "string"
                    ),
                )
                for c in prop.this.expressions
            ]
    return []


@handles("INSERT")
def insert_into(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    if tree.args.get("overwrite"):  # Hive's syntax; Athena (Trino) has INSERT INTO only
        raise QueryFailed(
            "SYNTAX_ERROR: mismatched input 'overwrite'. Expecting: 'INTO' (Athena has no "
            "INSERT OVERWRITE: delete the partitions' files and Glue entries, then INSERT INTO, "
            "as dbt-athena's insert_overwrite does). Statement: " + syntax.excerpt(statement.text)
        )
    target_node = tree.this
    listed = (
        [c.name for c in target_node.expressions] if isinstance(target_node, exp.Schema) else None
    )
    ref = _target(engine, statement, target_node, "glue:UpdateTable")
    entry = engine.glue_entry(ref, f"{ref.database}.{ref.table}")
    columns = columns_of(entry)
    source = _without_json(engine.frame(tree.expression, statement), statement)
    frame = _aligned(source, columns, listed, statement)
    rows = frame.count()
    if is_iceberg(entry):
        engine.append_iceberg(frame, ref, limit=True)
        return Outcome("DML", update_count=rows)
    params = entry.get("Parameters") or {}
    location = entry["StorageDescriptor"]["Location"]
    keys = [k["Name"] for k in entry.get("PartitionKeys") or []]
    fmt = str(params.get("classification") or "parquet").lower()
    if fmt == "csv":
        raise Untranslatable("insert into a CSV (OpenCSVSerde) table", statement.text)
    _check_open_partitions(frame, keys)
    engine.write_hive(frame, location, fmt, keys, "append")
    hive_partitions.register_written(engine.catalog, ref)
    engine.catalog.sync_to_s3(location, ref.account)
    return Outcome("DML", update_count=rows)


def _aligned(
    source: Any, columns: List[Tuple[str, str]], listed: Optional[List[str]], statement: Statement
) -> Any:
    """``source``'s columns, by position, as the target's (missing listed ones NULL)."""
    from pyspark.sql import functions as F

    wanted = listed or [n for n, _ in columns]
    if len(source.columns) != len(wanted):
        raise QueryFailed(
            f"TYPE_MISMATCH: Insert query has {len(source.columns)} columns, the target "
            f"has {len(wanted)}"
        )
    given = {w.lower(): source.columns[i] for i, w in enumerate(wanted)}
    out = []
    for name, kind in columns:
        col = F.col(f"`{given[name.lower()]}`") if name.lower() in given else F.lit(None)
        out.append(col.cast(kind).alias(name))
    return source.select(*out)


def _millisecond_timestamps(frame: Any) -> Any:
    """A Hive table's timestamp columns as Athena reads them: timestamp(3), each value
    rounded to the millisecond (an Iceberg table's keep their microseconds: timestamp(6)).
    Top-level columns only; Spark's own session (Python models) reads the files unchanged."""
    from pyspark.sql.types import TimestampType

    exprs, changed = [], False
    for column in frame.schema.fields:
        quoted = "`" + column.name.replace("`", "``") + "`"
        if isinstance(column.dataType, TimestampType):
            changed = True
            exprs.append(
                f"timestamp_micros(CAST(floor((unix_micros({quoted}) + 500) / 1000) * 1000 "
                f"AS BIGINT)) AS {quoted}"
            )
        else:
            exprs.append(quoted)
    return frame.selectExpr(*exprs) if changed else frame


def _iceberg_target(
    engine: Engine, statement: Statement, refusal: str
) -> Tuple[TableRef, Dict[str, Any]]:
    """The table a row-changing statement (DELETE, UPDATE) writes, and its Glue entry;
    ``refusal`` (Athena's text) when it is not an Iceberg table."""
    ref = _target(engine, statement, statement.tree.this, "glue:UpdateTable")
    entry = engine.glue_entry(ref, f"{ref.database}.{ref.table}")
    if not is_iceberg(entry):
        raise QueryFailed(refusal)
    return ref, entry


@handles("DELETE")
def delete_from(engine: Engine, statement: Statement) -> Outcome:
    """``delete from <iceberg table> [where ...]``: the table rewritten without the rows."""
    tree = statement.tree
    ref, _ = _iceberg_target(
        engine,
        statement,
        "NOT_SUPPORTED: Cannot delete from non-managed Hive table (DELETE runs on Iceberg "
        "tables only)",
    )
    where = tree.args.get("where")
    keep = exp.select("*").from_(tree.this.copy())
    if where is not None:
        keep = keep.where(exp.not_(exp.func("coalesce", exp.paren(where.this.copy()), exp.false())))
    before = engine.table_frame(ref).count()
    kept = engine.frame(keep, statement).localCheckpoint()
    engine.append_iceberg(kept, ref, overwrite=True)
    return Outcome("DML", update_count=before - kept.count())


@handles("UPDATE")
def update(engine: Engine, statement: Statement) -> Outcome:
    """``update <iceberg table> set col = expr, ... [where ...]`` (dbt-athena's change of an
    Iceberg column's type copies the column with it): the table rewritten with the rows
    the condition holds for changed."""
    tree = statement.tree
    ref, entry = _iceberg_target(
        engine,
        statement,
        "NOT_SUPPORTED: Modifying Hive table rows is not supported (UPDATE runs on Iceberg "
        "tables only)",
    )
    columns = [n for n, _ in columns_of(entry)]
    sets: Dict[str, exp.Expression] = {}
    for assignment in tree.expressions:
        name = assignment.this.name.lower()
        if name not in {c.lower() for c in columns}:
            raise QueryFailed(f"COLUMN_NOT_FOUND: Column '{name}' cannot be resolved")
        sets[name] = assignment.expression
    where = tree.args.get("where")
    picked: List[Any] = []
    for column in columns:
        current = exp.column(column, quoted=True)
        value = sets.get(column.lower())
        if value is None:
            picked.append(current)
            continue
        new = value.copy()
        if where is not None:
            new = exp.Case().when(where.this.copy(), new).else_(current)
        picked.append(exp.alias_(new, column, quoted=True))
    rewritten = exp.select(*picked).from_(tree.this.copy())
    changed = exp.select(exp.func("count", exp.Star())).from_(tree.this.copy())
    if where is not None:
        changed = changed.where(where.this.copy())
    count = int(engine.frame(changed, statement).collect()[0][0])
    frame = engine.frame(rewritten, statement).localCheckpoint()
    engine.append_iceberg(frame, ref, overwrite=True)
    return Outcome("DML", update_count=count)


@handles("MERGE")
def merge_into(engine: Engine, statement: Statement) -> Outcome:
    """``merge into <iceberg table> as t using <table or query> as s on ... when matched
    [and ...] then update / delete ... when not matched [and ...] then insert ...``
    (dbt-athena's ``merge`` strategy): the table rewritten with the merged rows."""
    tree = statement.tree
    ref, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    if not is_iceberg(entry):
        raise QueryFailed("NOT_SUPPORTED: MERGE INTO is only supported for Iceberg tables")
    plan = merge_plan(tree, [n for n, _ in columns_of(entry)], statement.text)
    from pyspark.sql import functions as F

    target_view = engine.register(
        engine.table_frame(ref).withColumn("__emulator_row", F.monotonically_increasing_id())
    )
    using = tree.args["using"]
    if isinstance(using, exp.Table):
        source_view = engine.temp_view(using, statement)
    else:
        source_view = engine.register(engine.frame(using.this, statement))
    for query in plan.checks(target_view, source_view):
        if engine.sql(query).count():
            raise QueryFailed(
                "MERGE_TARGET_ROW_MULTIPLE_MATCHES: One MERGE target table row matched more "
                "than one source row"
            )
    parts = [engine.sql(q) for q in plan.queries(target_view, source_view)]
    merged = parts[0].unionByName(parts[1]).unionByName(parts[2]).localCheckpoint()
    changed = parts[1].count() + parts[2].count() + plan.deleted(engine, target_view, source_view)
    engine.append_iceberg(merged, ref, overwrite=True)
    return Outcome("DML", update_count=changed)


# ---- views --------------------------------------------------------------------------------
@handles("CREATE VIEW")
def create_view(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    ref = _target(engine, statement, tree.this, "glue:CreateTable")
    _require_database(engine, ref)
    if engine.catalog.table_exists(ref) and not tree.args.get("replace"):
        raise QueryFailed(f"ALREADY_EXISTS: View '{ref.database}.{ref.table}' already exists")
    frame = engine.frame(tree.expression, statement)  # analysed: the view must resolve
    sql = tree.expression.sql(syntax.DIALECT)
    columns = glue_columns(frame.schema)
    definition = {
        "originalSql": sql,
        "catalog": statement.catalog,
        "schema": statement.database,
        "columns": [
            {
                "name": f.name.lower(),
                "type": f.metadata.get("athena_type") or results.athena_type(f.dataType),
            }
            for f in frame.schema.fields
        ],
    }
    encoded = base64.b64encode(json.dumps(definition).encode()).decode()
    engine.catalog.put_view(ref, columns, f"{VIEW_TEXT_PREFIX}{encoded} */")
    return Outcome()


# ---- metadata only (Glue) -------------------------------------------------------------------
def _schema_name(node: exp.Expression) -> Tuple[Optional[str], str]:
    if isinstance(node, exp.Table):
        if node.args.get("catalog") or (node.db and node.name):
            return (node.db or None), node.name
        return None, node.db or node.name
    return None, node.name


@handles("CREATE SCHEMA", spark=False)
def create_schema(engine: Engine, statement: Statement) -> Outcome:
    catalog_name, name = _schema_name(statement.tree.this)
    account = engine.account_of(catalog_name or statement.catalog)
    if engine.catalog.database_exists(account, name) and not statement.tree.args.get("exists"):
        raise QueryFailed(f"SCHEMA_ALREADY_EXISTS: Schema '{name.lower()}' already exists")
    engine.catalog.ensure_database(account, name)
    return Outcome()


@handles("DROP SCHEMA", spark=False)
def drop_schema(engine: Engine, statement: Statement) -> Outcome:
    """``drop schema [if exists] s [cascade]``: a missing schema fails without IF EXISTS and
    a schema holding tables fails without CASCADE, as on Athena."""
    tree = statement.tree
    for node in tree.args.get("tables") or [tree.this]:
        catalog_name, name = _schema_name(node)
        account = engine.account_of(catalog_name or statement.catalog)
        database = glue_backend(account).databases.get(glue_name(name))
        if database is None:
            if tree.args.get("exists"):
                continue
            raise QueryFailed(f"SCHEMA_NOT_FOUND: Schema '{glue_name(name)}' does not exist")
        if database.tables and not tree.args.get("cascade"):
            raise QueryFailed(
                f"SCHEMA_NOT_EMPTY: Schema '{glue_name(name)}' is not empty ({len(database.tables)} "
                "tables): drop them first, or add CASCADE"
            )
        glue_backend(account).databases.pop(glue_name(name), None)
    return Outcome()


@handles("DROP TABLE", "DROP VIEW", spark=False)
def drop_table(engine: Engine, statement: Statement) -> Outcome:
    for node in statement.tree.args.get("tables") or [statement.tree.this]:
        ref = engine.table_ref(node, statement, "glue:DeleteTable")
        if not engine.catalog.table_exists(ref):
            if statement.tree.args.get("exists"):
                continue
            raise QueryFailed(f"TABLE_NOT_FOUND: Table '{ref.database}.{ref.table}' does not exist")
        engine.catalog.drop_table(ref)
    return Outcome()


@handles("ALTER TABLE RENAME", spark=False)
def rename_table(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    source, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    if not is_iceberg(entry) and str(entry.get("TableType", "")).upper() != "VIRTUAL_VIEW":
        raise QueryFailed(
            f"NOT_SUPPORTED: ALTER TABLE RENAME TO is not supported for Hive tables "
            f"({source.database}.{source.table}; Athena renames Iceberg tables only): create "
            "the new table with CTAS and drop the old one"
        )
    target_node = tree.args["actions"][0].this
    target = engine.table_ref(target_node, statement, "glue:CreateTable")
    engine.catalog.rename_table(source, target)
    return Outcome()


@handles("ALTER TABLE SET", spark=False)
def set_table_properties(engine: Engine, statement: Statement) -> Outcome:
    """``alter table t set tblproperties (...)`` (Glue parameters added) and ``alter table t
    set location '...'`` (a Hive table's Glue location changed: it reads the new location's
    files from then on; its partitions keep their own). Any other ``set`` is refused."""
    tree = statement.tree
    ref, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    action = tree.args["actions"][0]
    location = action.args.get("location")
    others = [k for k, v in action.args.items() if v and k not in ("expressions", "location")]
    if (
        others
        or (location is not None and action.expressions)
        or (location is None and not action.expressions)
    ):
        raise Untranslatable(
            "alter table ... set other than tblproperties or location", statement.text
        )
    if location is not None:
        if is_iceberg(entry):
            raise QueryFailed(
                "NOT_SUPPORTED: ALTER TABLE SET LOCATION is not supported for Iceberg tables "
                f"({ref.database}.{ref.table}): its location is in its Iceberg metadata"
            )
        target = str(syntax._value(location))
        if not target.lower().startswith(("s3://", "s3a://", "s3n://")):
            raise QueryFailed(f"INVALID_TABLE_PROPERTY: location must be an s3:// URI: {target}")
        engine.catalog.sync_from_s3(target, ref.account)
        engine.catalog.set_location(ref, target)
        return Outcome()
    found: Dict[str, str] = {}
    for props in action.expressions:
        if not isinstance(props, exp.Properties):
            raise Untranslatable("alter table ... set other than tblproperties", statement.text)
        for prop in props.expressions:
            found[syntax._key(prop)] = str(syntax._value(prop.args.get("value")))
    engine.catalog.set_parameters(ref, found)
    return Outcome()


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
