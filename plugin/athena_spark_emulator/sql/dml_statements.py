"""The Athena DML statements the emulator runs (their handlers, registered with
``@handles(kind)`` in the one table of statement handlers, as statements.py's): INSERT
INTO, DELETE, UPDATE and MERGE INTO, written with the Spark executor's session into the
table's files (Hive) or Iceberg table. CREATE TABLE AS is ddl_statements.py's."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.accounts import hive_partitions
from athena_spark_emulator.accounts.catalog import TableRef, columns_of, is_iceberg
from athena_spark_emulator.sql import syntax
from athena_spark_emulator.sql.statements import (
    Engine,
    Outcome,
    QueryFailed,
    Statement,
    _check_open_partitions,
    _target,
    _without_json,
    handles,
)
from athena_spark_emulator.sql.syntax import Untranslatable
from athena_spark_emulator.sql.translate import merge_plan


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
