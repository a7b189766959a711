"""The Athena DDL statements the emulator runs (their handlers, registered with
``@handles(kind)`` in the one table of statement handlers, as statements.py's): CREATE
TABLE [AS], CREATE VIEW, CREATE/DROP SCHEMA, DROP TABLE/VIEW, ALTER TABLE RENAME and SET
TBLPROPERTIES, on the emulator's Glue catalog and files. Partitions are
partition_statements.py's, a table's columns schema_statements.py's, INSERT, DELETE,
UPDATE and MERGE dml_statements.py's."""

from __future__ import annotations

import base64
import json
import shutil
from typing import Any, Dict, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.accounts import hive_partitions
from athena_spark_emulator.accounts.catalog import (
    Catalog,
    TableRef,
    glue_backend,
    glue_name,
    is_iceberg,
)
from athena_spark_emulator.core.constants import REGION
from athena_spark_emulator.sql import column_types, syntax
from athena_spark_emulator.sql.statements import (
    VIEW_TEXT_PREFIX,
    Engine,
    Outcome,
    QueryFailed,
    Statement,
    _check_open_partitions,
    _require_database,
    _target,
    _without_json,
    glue_columns,
    handles,
    type_of_field,
)
from athena_spark_emulator.sql.syntax import Untranslatable

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
    _check_hive_types(frame)
    keys = _partition_keys_last(frame, list(props.get("partitioned_by") or []))
    _check_open_partitions(frame, keys)
    _check_location_empty(engine.catalog, location)
    engine.write_hive(frame, location, fmt, keys, "errorifexists")
    by_name = {name.lower(): kind for name, kind in glue_columns(frame.schema)}
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


def _check_hive_types(frame: Any) -> None:
    """A Hive table holds the types Trino's ``HiveTypeTranslator.toTypeInfo`` translates
    (column_types.hive_type); a column of another type (a zoned timestamp, a time, an
    interval, an ipaddress, a uuid) fails the CTAS as on Athena: ``NOT_SUPPORTED:
    Unsupported Hive type``. (A NULL's ``unknown`` is left to Spark's own type.)"""
    for spark_field in frame.schema.fields:
        athena = type_of_field(spark_field)
        if "unknown" not in athena and column_types.hive_type(athena) is None:
            raise QueryFailed(
                f"NOT_SUPPORTED: Unsupported Hive type: {athena} (column {spark_field.name}: "
                "a Hive table cannot hold it; cast it to a type it holds, e.g. "
                f"cast({spark_field.name} as varchar), or write an Iceberg table)"
            )


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
            {"name": f.name.lower(), "type": type_of_field(f)} for f in frame.schema.fields
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
