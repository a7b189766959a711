"""State a user can keep: ``athena-spark-emulator run --data-dir DIR``.

Without it an emulator starts from an empty AWS and removes everything when it stops. With
it, ``DIR`` holds, between invocations:

* ``DIR/s3/<bucket>/<key>``: every S3 object (the tables' files, uploaded seeds, Iceberg
  metadata, query results). It is also the warehouse directory Spark reads and writes, so
  a table's files are at its Glue location under ``DIR/s3/``;
* ``DIR/emulator-state.json``: every account's Glue databases and tables, the Athena data
  catalogs, the owners' grants, and which account owns each bucket.

:func:`save` writes both when the emulator stops; :func:`load` puts them back into a new
emulator's moto backends before the seed is applied (a seed replaces the tables it names).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List

from athena_spark_emulator.catalog import Catalog, glue_backend, table_input_of
from athena_spark_emulator.constants import LOCAL_ACCOUNT, REGION

STATE_FILE = "emulator-state.json"
VERSION = 1


def _accounts() -> List[str]:
    from moto.glue.models import glue_backends
    from moto.s3.models import s3_backends

    return sorted({str(a) for a in list(glue_backends.keys()) + list(s3_backends.keys())})


PARTITIONS = "__partitions__"  # a table's Glue partitions, kept beside its TableInput


def _partition_input(partition: Dict[str, Any]) -> Dict[str, Any]:
    keys = ("StorageDescriptor", "Parameters")
    return {k: partition[k] for k in keys if partition.get(k) is not None}


def _glue_state() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for account in _accounts():
        databases = {}
        for name, database in glue_backend(account).databases.items():
            tables = {}
            for table_name, table in database.tables.items():
                tables[table_name] = {"Name": table_name, **table_input_of(table.as_dict())}
                if table.partitions:  # Glue's partitions of a Hive table, in order
                    tables[table_name][PARTITIONS] = [
                        {"Values": p.values, **_partition_input(p.as_dict())}
                        for p in table.partitions.values()
                    ]
            databases[name] = tables
        if databases:
            out[account] = databases
    return out


def _data_catalogs() -> List[Dict[str, Any]]:
    from moto.athena.models import athena_backends

    found = []
    for name, entry in athena_backends[LOCAL_ACCOUNT][REGION].data_catalogs.items():
        found.append(
            {
                "name": name,
                "type": entry.type,
                "description": entry.description,
                "parameters": entry.parameters,
            }
        )
    return found


def _s3_buckets() -> Dict[str, str]:
    from moto.s3.models import s3_backends

    return {bucket: str(owner[1]) for bucket, owner in s3_backends.bucket_accounts.items()}


def save(catalog: Catalog, data_dir: Path) -> None:
    """Write the emulator's AWS state into ``data_dir`` (S3 objects as files)."""
    from moto.s3.models import s3_backends

    buckets = _s3_buckets()
    for bucket, account in buckets.items():
        backend = s3_backends[account]["aws"]
        for key, obj in list(backend.get_bucket(bucket).keys.items()):
            if key.endswith("/"):
                continue
            path = data_dir / "s3" / bucket / key
            path.parent.mkdir(parents=True, exist_ok=True)
            data = obj.value
            if not path.is_file() or path.read_bytes() != data:
                path.write_bytes(data)
    state = {
        "version": VERSION,
        "glue": _glue_state(),
        "data_catalogs": _data_catalogs(),
        "grants": {owner: sorted(grantees) for owner, grantees in catalog.grants.items()},
        "buckets": buckets,
    }
    (data_dir / STATE_FILE).write_text(json.dumps(state, indent=1, default=str), "utf-8")


def load(catalog: Catalog, data_dir: Path) -> bool:
    """Put a saved state back (False when ``data_dir`` holds none yet)."""
    path = data_dir / STATE_FILE
    if not path.is_file():
        return False
    state = json.loads(path.read_text("utf-8"))
    _load_s3(data_dir / "s3", state.get("buckets") or {})
    _load_glue(catalog, state.get("glue") or {})
    _load_data_catalogs(state.get("data_catalogs") or [])
    for owner, grantees in (state.get("grants") or {}).items():
        for grantee in grantees:
            catalog.grant(owner, grantee)
    return True


def _load_s3(root: Path, buckets: Dict[str, str]) -> None:
    from moto.s3.models import s3_backends

    for bucket_dir in sorted(root.iterdir()) if root.is_dir() else []:
        backend = s3_backends[buckets.get(bucket_dir.name, LOCAL_ACCOUNT)]["aws"]
        if bucket_dir.name not in s3_backends.bucket_accounts:
            backend.create_bucket(bucket_dir.name, REGION)
        for file in bucket_dir.rglob("*"):
            if file.is_file() and not file.name.endswith(".crc"):
                key = file.relative_to(bucket_dir).as_posix()
                backend.put_object(
                    bucket_dir.name, key, file.read_bytes(), disable_notification=True
                )


def _load_glue(catalog: Catalog, glue: Dict[str, Any]) -> None:
    for account, databases in glue.items():
        backend = glue_backend(account)
        for name, tables in databases.items():
            catalog.ensure_database(account, name)
            for table_name, table_input in tables.items():
                backend.databases[name].tables.pop(table_name, None)
                partitions = table_input.pop(PARTITIONS, [])
                backend.create_table(name, table_name, table_input)
                for partition in partitions:
                    backend.create_partition(name, table_name, partition)


def _load_data_catalogs(entries: List[Dict[str, Any]]) -> None:
    from moto.athena.models import athena_backends

    athena = athena_backends[LOCAL_ACCOUNT][REGION]
    for entry in entries:
        athena.data_catalogs.pop(entry["name"], None)
        athena.create_data_catalog(
            entry["name"],
            entry["type"],
            entry.get("description") or "",
            entry.get("parameters"),  # type: ignore[arg-type]  # moto's annotation is wrong
            [],
        )
