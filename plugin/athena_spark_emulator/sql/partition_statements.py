"""Athena's partition statements on Hive tables, on Glue's partitions
(``hive_partitions.py``): ``alter table ... add [if not exists] partition (...) [location
...]``, ``alter table ... drop [if exists] partition (...)``, ``msck repair table`` and
``show partitions``. Iceberg tables have no Glue partitions (their partitioning is hidden):
these statements fail on them as Athena's do.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence

from sqlglot import exp

from athena_spark_emulator.accounts import hive_partitions
from athena_spark_emulator.accounts.catalog import TableRef, is_iceberg
from athena_spark_emulator.sql import commands, syntax
from athena_spark_emulator.sql.statements import (
    Engine,
    Outcome,
    QueryFailed,
    Statement,
    handles,
    handles_command,
)


def _hive_partitioned(
    engine: Engine, statement: Statement, name: syntax.Name, action: str
) -> tuple:
    ref = engine.ref(name, statement)
    try:
        engine.catalog.check_access(ref, action, caller=engine.caller)
    except Exception as exc:
        raise QueryFailed(f"ACCESS_DENIED: {exc}") from None
    entry = engine.glue_entry(ref, f"{ref.database}.{ref.table}")
    if is_iceberg(entry):
        raise QueryFailed(
            f"NOT_SUPPORTED: {ref.database}.{ref.table} is an Iceberg table: its partitioning "
            "is hidden and kept in its metadata, not in Glue partitions"
        )
    keys = hive_partitions.keys_of(entry)
    if not keys:
        raise QueryFailed(f"NOT_SUPPORTED: Table '{ref.database}.{ref.table}' is not partitioned")
    return ref, entry, keys


def _values(spec: Mapping[str, str], keys: Sequence[str], ref: TableRef) -> List[str]:
    lowered = {k.lower(): v for k, v in spec.items()}
    unknown = sorted(set(lowered) - {k.lower() for k in keys})
    if unknown or len(lowered) != len(keys):
        raise QueryFailed(
            f"INVALID_PARTITION_SPEC: the partition spec {dict(spec)} of "
            f"{ref.database}.{ref.table} must name each partition key once: {list(keys)}"
        )
    return [str(lowered[k.lower()]) for k in keys]


def _text(keys: Sequence[str], values: Sequence[str]) -> str:
    return "/".join(f"{k}={v}" for k, v in zip(keys, values))


@handles("ALTER TABLE AddPartition", spark=False)
def add_one_partition(engine: Engine, statement: Statement) -> Outcome:
    """``alter table t add [if not exists] partition (...) [location '...']`` (one partition;
    sqlglot parses several as a Command: :func:`add_partition`)."""
    tree = statement.tree
    action = tree.args["actions"][0]
    location = action.args.get("location")
    spec = _spec(action.this, statement)
    where = str(syntax._value(location.this)) if location else None
    parsed = commands.Command(
        "ADD PARTITION",
        syntax.table_name(tree.this),
        [(spec, where)],
        if_not_exists=bool(action.args.get("exists")),
    )
    return add_partition(engine, statement, parsed)


@handles_command("ADD PARTITION")
def add_partition(engine: Engine, statement: Statement, command: commands.Command) -> Outcome:
    ref, entry, keys = _hive_partitioned(
        engine, statement, command.name, "glue:BatchCreatePartition"
    )
    existing = {tuple(p["Values"]) for p in hive_partitions.registered(ref)}
    wanted = []
    for spec, location in command.partitions:
        values = _values(spec, keys, ref)
        if tuple(values) in existing:
            if command.if_not_exists:
                continue
            raise QueryFailed(
                f"ALREADY_EXISTS: Partition already exists: {_text(keys, values)} (table "
                f"{ref.database}.{ref.table}; add IF NOT EXISTS to skip it)"
            )
        root = entry["StorageDescriptor"]["Location"]
        wanted.append((values, location or hive_partitions.partition_location(root, keys, values)))
    for _, location in wanted:
        engine.catalog.sync_from_s3(location, ref.account)
    hive_partitions.register(
        engine.catalog, ref, [v for v, _ in wanted], [loc.rstrip("/") for _, loc in wanted]
    )
    return Outcome()


@handles("ALTER TABLE DropPartition", spark=False)
def drop_partition(engine: Engine, statement: Statement) -> Outcome:
    """``alter table t drop [if exists] partition (k=v, ...) [, partition (...)]``: the
    partitions matching each spec (a spec may name some keys only) leave Glue; the files
    stay, as for Athena's external tables."""
    tree = statement.tree
    name = syntax.table_name(tree.this)
    ref, _, keys = _hive_partitioned(engine, statement, name, "glue:BatchDeletePartition")
    action = tree.args["actions"][0]
    if_exists = bool(action.args.get("exists")) or bool(tree.args.get("exists"))
    registered = hive_partitions.registered(ref)
    doomed: List[List[str]] = []
    for partition in action.expressions:
        spec = _spec(partition, statement)
        lowered = {k.lower(): v for k, v in spec.items()}
        if not set(lowered) <= {k.lower() for k in keys}:
            raise QueryFailed(
                f"INVALID_PARTITION_SPEC: {dict(spec)} names a column that is no partition key "
                f"of {ref.database}.{ref.table}: {keys}"
            )
        matched = [
            p["Values"]
            for p in registered
            if all(
                p["Values"][i] == lowered[k.lower()]
                for i, k in enumerate(keys)
                if k.lower() in lowered
            )
        ]
        if not matched and not if_exists:
            shown = ", ".join(f"{k}={v}" for k, v in spec.items())
            raise QueryFailed(
                f"PARTITION_NOT_FOUND: No partition ({shown}) in {ref.database}.{ref.table} "
                "(add IF EXISTS to skip it)"
            )
        doomed.extend(matched)
    for values in doomed:
        hive_partitions.drop(engine.catalog, ref, values)
    return Outcome()


def _spec(partition: exp.Expression, statement: Statement) -> Dict[str, str]:
    spec: Dict[str, str] = {}
    for condition in partition.expressions:
        if not isinstance(condition, exp.EQ) or not isinstance(condition.expression, exp.Literal):
            raise syntax.Untranslatable(
                f"partition spec '{condition.sql(syntax.DIALECT)}'",
                statement.text,
                "key = literal expected",
            )
        spec[condition.this.name] = str(condition.expression.this)
    return spec


@handles_command("MSCK REPAIR TABLE")
def msck_repair(engine: Engine, statement: Statement, command: commands.Command) -> Outcome:
    """The partitions whose ``k=v`` folders hold files under the table's location, registered
    (those already in Glue are kept as they are)."""
    ref, entry, keys = _hive_partitioned(
        engine, statement, command.name, "glue:BatchCreatePartition"
    )
    location = entry["StorageDescriptor"]["Location"]
    engine.catalog.sync_from_s3(location, ref.account)
    existing = {tuple(p["Values"]) for p in hive_partitions.registered(ref)}
    found = [v for v in hive_partitions.discover(engine.catalog, location, keys)]
    missing = [v for v in found if tuple(v) not in existing]
    hive_partitions.register(engine.catalog, ref, missing)
    lines: List[List[Any]] = []
    if missing:
        names = "\t".join(f"{ref.table}:{_text(keys, v)}" for v in missing)
        lines.append([f"Partitions not in metastore:\t{names}"])
        lines.extend(
            [f"Repair: Added partition to metastore {ref.table}:{_text(keys, v)}"] for v in missing
        )
    return Outcome("UTILITY", [("result", "varchar")], lines)


@handles_command("SHOW PARTITIONS")
def show_partitions(engine: Engine, statement: Statement, command: commands.Command) -> Outcome:
    ref, _, keys = _hive_partitioned(engine, statement, command.name, "glue:GetPartitions")
    values = sorted(p["Values"] for p in hive_partitions.registered(ref))
    return Outcome("UTILITY", [("partition", "varchar")], [[_text(keys, v)] for v in values])
