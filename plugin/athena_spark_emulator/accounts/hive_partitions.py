"""Partitions of Hive tables as Glue keeps them, and as Athena writes and reads them.

A partitioned Hive table (Glue ``PartitionKeys``) holds only the partitions registered in
Glue: each a ``Values`` list (the partition's values as text, in key order) and a
``StorageDescriptor`` whose ``Location`` is the partition's own folder. Athena's CTAS and
``INSERT INTO`` write ``<table location>/<key>=<value>/...`` folders and register each new
partition (``BatchCreatePartition``); Athena and Spark read the registered partitions'
locations only, so files under a folder no partition points to are not read (``msck
repair table`` or ``alter table ... add partition`` registers them). dbt-athena's
``insert_overwrite`` relies on this: it lists the partitions it rewrites with
``GetPartitions``, deletes their files and their Glue entries (``BatchDeletePartition``),
then inserts.

A statement that would write more than :data:`MAX_OPEN_PARTITIONS` partitions fails as
Athena's does (``HIVE_TOO_MANY_OPEN_PARTITIONS``), so dbt-athena's batching runs.

Folder names use Hive's escaping (what Spark and Athena both write): ``%XX`` for the
characters a path cannot hold, ``__HIVE_DEFAULT_PARTITION__`` for NULL.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple
from urllib.parse import unquote

from athena_spark_emulator.accounts.catalog import Catalog, TableRef, glue_backend

MAX_OPEN_PARTITIONS = 100
DEFAULT_PARTITION = "__HIVE_DEFAULT_PARTITION__"
# Hive's FileUtils.escapePathName: these characters (and controls) are written as %XX.
_ESCAPED = set("\"#%'*/:=?\\\x7f{[]^")


def escape(value: str) -> str:
    """A partition value as a folder name part (Hive's escaping)."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED or ord(c) < 0x20 else c for c in value)


def too_many_partitions(count: int, iceberg: bool = False) -> str:
    """Athena's error for a write into more than 100 partitions."""
    prefix = "ICEBERG" if iceberg else "HIVE"
    return (
        f"{prefix}_TOO_MANY_OPEN_PARTITIONS: Exceeded limit of {MAX_OPEN_PARTITIONS} open "
        f"writers for partitions/buckets ({count} partitions in this query). Write at most "
        f"{MAX_OPEN_PARTITIONS} partitions per CTAS or INSERT INTO (dbt-athena batches them "
        "when it sees this error, or with force_batch=true)"
    )


def partition_location(table_location: str, keys: Sequence[str], values: Sequence[str]) -> str:
    root = table_location.rstrip("/")
    return root + "/" + "/".join(f"{k}={escape(v)}" for k, v in zip(keys, values))


def keys_of(table: Mapping[str, Any]) -> List[str]:
    return [k["Name"] for k in table.get("PartitionKeys") or []]


def discover(catalog: Catalog, location: str, keys: Sequence[str]) -> List[List[str]]:
    """The partitions whose folders hold data under ``location`` (``k=v/...`` folders, in
    key order): what ``msck repair table`` finds, and what a write just wrote."""
    root = catalog.local_path(location)
    found: List[List[str]] = []

    def walk(folder: Path, depth: int, values: List[str]) -> None:
        if depth == len(keys):
            if any(p.is_file() and not p.name.startswith((".", "_")) for p in folder.rglob("*")):
                found.append(values)
            return
        prefix = f"{keys[depth].lower()}="
        for child in sorted(folder.iterdir()) if folder.is_dir() else []:
            if child.is_dir() and child.name.lower().startswith(prefix):
                walk(child, depth + 1, [*values, unquote(child.name[len(prefix) :])])

    walk(root, 0, [])
    return found


def partition_input(table: Mapping[str, Any], values: Sequence[str], location: str) -> dict:
    """Glue's PartitionInput of one partition: the table's storage at its own location."""
    storage = copy.deepcopy(dict(table.get("StorageDescriptor") or {}))
    storage["Location"] = location
    return {"Values": list(values), "StorageDescriptor": storage, "Parameters": {}}


def registered(ref: TableRef) -> List[Dict[str, Any]]:
    """The Glue partitions of a table (``GetPartitions`` entries), in creation order."""
    database = glue_backend(ref.account).databases.get(ref.database)
    table = database.tables.get(ref.table) if database is not None else None
    return [p.as_dict() for p in (table.partitions.values() if table is not None else [])]


def register(
    catalog: Catalog,
    ref: TableRef,
    values_list: Sequence[Sequence[str]],
    locations: Optional[Sequence[str]] = None,
) -> int:
    """Register the partitions not yet in Glue (``BatchCreatePartition``); returns how many
    were new. ``locations`` default to the table location's ``k=v`` folders."""
    table = catalog.get_table(ref)
    keys = keys_of(table)
    root = table["StorageDescriptor"]["Location"]
    backend = glue_backend(ref.account)
    existing = {tuple(p["Values"]) for p in registered(ref)}
    new = 0
    with catalog.lock:
        for i, values in enumerate(values_list):
            if tuple(values) in existing:
                continue
            where = locations[i] if locations else partition_location(root, keys, values)
            backend.create_partition(ref.database, ref.table, partition_input(table, values, where))
            existing.add(tuple(values))
            new += 1
    return new


def register_written(catalog: Catalog, ref: TableRef) -> int:
    """After a write: register every partition folder under the table's location."""
    table = catalog.get_table(ref)
    keys = keys_of(table)
    if not keys:
        return 0
    return register(catalog, ref, discover(catalog, table["StorageDescriptor"]["Location"], keys))


def drop(catalog: Catalog, ref: TableRef, values: Sequence[str]) -> bool:
    """Delete one partition from Glue (its files stay, as Athena's drop partition leaves
    them for an external table); False when it was not registered."""
    database = glue_backend(ref.account).databases.get(ref.database)
    table = database.tables.get(ref.table) if database is not None else None
    with catalog.lock:
        if table is None or str(list(values)) not in table.partitions:
            return False
        del table.partitions[str(list(values))]
    return True


# ---- reading -----------------------------------------------------------------------------
def read(
    real: Any,
    catalog: Catalog,
    table: Mapping[str, Any],
    load: Any,
    ddl: str,
    data_ddl: str,
    keys: Sequence[Tuple[str, str]],
) -> Any:
    """A partitioned Hive table as Athena reads it: the registered partitions' locations
    only. ``load(paths, ddl, base)`` reads files (local paths, not URIs: a ``k=v`` folder
    name is not URI-escaped) with a schema (``base``: the folder whose
    ``k=v`` subfolders give the partition values). Partitions at their table's ``k=v``
    folders are read in one scan; others one by one, with their values as constants."""
    from pyspark.sql import functions as F

    ref = TableRef(str(table["CatalogId"]), table["DatabaseName"], table["Name"])
    names = [k for k, _ in keys]
    root = table["StorageDescriptor"]["Location"]
    standard: List[str] = []
    frames = []
    for part in registered(ref):
        where = str(part["StorageDescriptor"]["Location"]).rstrip("/")
        if not catalog.local_path(where).is_dir():
            continue  # a partition whose folder holds nothing: no rows, as on Athena
        if where == partition_location(root, names, part["Values"]).rstrip("/"):
            standard.append(str(catalog.local_path(where)))
            continue
        frame = load([str(catalog.local_path(where))], data_ddl, None)
        for (name, kind), value in zip(keys, part["Values"]):
            text = None if value == DEFAULT_PARTITION else value
            frame = frame.withColumn(name, F.lit(text).cast(kind))
        frames.append(frame)
    if standard:
        frames.insert(0, load(standard, ddl, str(catalog.local_path(root))))
    if not frames:
        return real.createDataFrame([], ddl)
    result = frames[0]
    for frame in frames[1:]:
        result = result.unionByName(frame)
    return result
