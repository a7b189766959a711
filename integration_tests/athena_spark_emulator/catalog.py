"""Glue catalog semantics over local storage, as Athena for Apache Spark sees them.

* Every Glue database belongs to an account: the session's own account
  (``LOCAL_ACCOUNT``, moto's default) or an owner account. The metadata lives in moto's
  Glue backend of that account (``glue_backends[account][REGION]``), so what dbt-athena
  does through the Glue API (get_table, delete_table, ...) and what Spark reads agree.
* ``s3://bucket/key`` maps to ``<warehouse>/s3/bucket/key`` on local disk.
* An owner account is readable from another account only after :meth:`Catalog.grant`
  (the owner's Glue resource policy). Without it, reads fail with the
  ``AccessDeniedException`` text the real Glue client gives.
* Namespace resolution follows the Glue client: ``<12 digits>/<db>`` names the owner's
  database only when the session sets ``spark.hadoop.aws.glue.catalog.separator`` to
  ``/``; otherwise the namespace is a literal (and non-existent) database name.

Nothing here imports PySpark; seeded tables are JSON-lines files, readable by Spark.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from moto.core import DEFAULT_ACCOUNT_ID

REGION = "eu-west-1"
LOCAL_ACCOUNT = DEFAULT_ACCOUNT_ID  # "123456789012"
SEPARATOR_PROPERTY = "spark.hadoop.aws.glue.catalog.separator"
ROLE_NAME = "AthenaSparkExecutionRole"

_OWNER_NAMESPACE = re.compile(r"([0-9]{12})/(.+)", re.DOTALL)

PARQUET = {
    "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "SerdeInfo": {
        "SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    },
}
JSON = {
    "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
    "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
    "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"},
}


class GlueAccessDenied(Exception):
    """Raised (inside a calculation) when an owner has not granted the caller's account."""


class GlueEntityNotFound(Exception):
    """Raised when a database or table does not exist in the account it resolves to."""


@dataclass(frozen=True)
class TableRef:
    """A resolved Spark table name: whose Glue catalog, which database, which table."""

    account: str
    database: str
    table: str

    @property
    def arn(self) -> str:
        return f"arn:aws:glue:{REGION}:{self.account}:table/{self.database}/{self.table}"


def glue_backend(account: str) -> Any:
    from moto.glue.models import glue_backends

    return glue_backends[account][REGION]


def glue_name(name: str) -> str:
    """Glue stores database and table names lowercased."""
    return name.lower()


class Catalog:
    """Accounts, grants and local storage of one emulator (one per process: ``CATALOG``)."""

    def __init__(
        self, warehouse: Optional[Union[str, Path]] = None, local_account: str = LOCAL_ACCOUNT
    ) -> None:
        self._own_dir = warehouse is None
        self._warehouse = Path(warehouse) if warehouse is not None else None
        self.local_account = local_account
        self.grants: Dict[str, Set[str]] = {}
        self.lock = threading.RLock()

    @property
    def warehouse(self) -> Path:
        """The local directory standing for S3 (a temporary one unless given)."""
        if self._warehouse is None:
            self._warehouse = Path(tempfile.mkdtemp(prefix="athena-emulator-"))
        return self._warehouse

    def cleanup(self) -> None:
        if self._own_dir and self._warehouse is not None:
            shutil.rmtree(self._warehouse, ignore_errors=True)

    # -- storage --------------------------------------------------------------------
    def local_path(self, uri: str) -> Path:
        """``s3://bucket/key`` (or s3a/s3n) -> the local directory that stands for it."""
        match = re.match(r"s3[an]?://([^/]+)/?(.*)", uri)
        if not match:
            raise ValueError(f"not an s3:// location: {uri!r}")
        bucket, key = match.groups()
        return self.warehouse / "s3" / bucket / key.strip("/")

    def local_uri(self, uri: str) -> str:
        return self.local_path(uri).as_uri()

    # -- grants (the owner's Glue resource policy) -------------------------------------
    def grant(self, owner: str, grantee: str = LOCAL_ACCOUNT) -> None:
        with self.lock:
            self.grants.setdefault(owner, set()).add(grantee)

    def revoke(self, owner: str, grantee: str = LOCAL_ACCOUNT) -> None:
        with self.lock:
            self.grants.get(owner, set()).discard(grantee)

    def check_access(
        self, ref: TableRef, action: str = "glue:GetTable", caller: Optional[str] = None
    ) -> None:
        caller = caller or self.local_account
        if ref.account == caller or caller in self.grants.get(ref.account, set()):
            return
        raise GlueAccessDenied(
            "software.amazon.awssdk.services.glue.model.AccessDeniedException: "
            f"User: arn:aws:sts::{caller}:assumed-role/{ROLE_NAME}/AthenaSparkSession "
            f"is not authorized to perform: {action} on resource: {ref.arn} "
            "because no resource-based policy allows the "
            f"{action} action (Service: Glue, Status Code: 400, Request ID: "
            f"{abs(hash((ref, time.time()))) % 10**12:012d})"
        )

    # -- names ---------------------------------------------------------------------
    def resolve(self, parts: Sequence[str], spark_properties: Mapping[str, str]) -> TableRef:
        """Spark's parsed multipart name -> TableRef, as Athena's Glue client resolves it."""
        parts = list(parts)
        if len(parts) == 1:
            namespace, table = "default", parts[0]
        else:
            # spark_catalog.db.tbl or db.tbl: the Glue client sees the last two parts.
            namespace, table = parts[-2], parts[-1]
        separator = spark_properties.get(SEPARATOR_PROPERTY)
        match = _OWNER_NAMESPACE.fullmatch(namespace)
        if separator == "/" and match:
            return TableRef(match.group(1), glue_name(match.group(2)), glue_name(table))
        return TableRef(self.local_account, glue_name(namespace), glue_name(table))

    # -- Glue metadata ----------------------------------------------------------------
    def ensure_database(self, account: str, database: str) -> None:
        backend = glue_backend(account)
        name = glue_name(database)
        with self.lock:
            if name not in backend.databases:
                backend.create_database(name, {"Name": name})

    def database_exists(self, account: str, database: str) -> bool:
        return glue_name(database) in glue_backend(account).databases

    def get_table(self, ref: TableRef) -> Dict[str, Any]:
        backend = glue_backend(ref.account)
        database = backend.databases.get(ref.database)
        if database is None:
            raise GlueEntityNotFound(
                f"[SCHEMA_NOT_FOUND] The schema `{ref.database}` cannot be found in the Glue "
                f"catalog of account {ref.account} (Glue: EntityNotFoundException: "
                f"Database {ref.database} not found)."
            )
        table = database.tables.get(ref.table)
        if table is None:
            raise GlueEntityNotFound(
                f"[TABLE_OR_VIEW_NOT_FOUND] The table or view `{ref.database}`.`{ref.table}` "
                "cannot be found "
                f"in the Glue catalog of account {ref.account} "
                f"(Glue: EntityNotFoundException: Table {ref.table} not found)."
            )
        return table.as_dict()

    def put_table(
        self,
        ref: TableRef,
        columns: Sequence[Tuple[str, str]],
        location: str,
        classification: str = "parquet",
        partition_keys: Sequence[Tuple[str, str]] = (),
    ) -> None:
        """Create or replace a Glue table (EXTERNAL_TABLE) in the ref's account."""
        formats = JSON if classification == "json" else PARQUET
        table_input = {
            "Name": ref.table,
            "TableType": "EXTERNAL_TABLE",
            "Parameters": {"classification": classification, "EXTERNAL": "TRUE"},
            "StorageDescriptor": {
                "Columns": [{"Name": n, "Type": t} for n, t in columns],
                "Location": location,
                **formats,
            },
            "PartitionKeys": [{"Name": n, "Type": t} for n, t in partition_keys],
        }
        backend = glue_backend(ref.account)
        with self.lock:
            self.ensure_database(ref.account, ref.database)
            if ref.table in backend.databases[ref.database].tables:
                backend.update_table(ref.database, ref.table, table_input)
            else:
                backend.create_table(ref.database, ref.table, table_input)

    def drop_table(self, ref: TableRef) -> None:
        database = glue_backend(ref.account).databases.get(ref.database)
        if database is not None:
            database.tables.pop(ref.table, None)

    def rename_table(self, source: TableRef, target: TableRef) -> None:
        table = self.get_table(source)
        sd = table.get("StorageDescriptor", {})
        columns = [(c["Name"], c["Type"]) for c in sd.get("Columns", [])]
        keys = [(c["Name"], c["Type"]) for c in table.get("PartitionKeys", [])]
        classification = (table.get("Parameters") or {}).get("classification", "parquet")
        self.put_table(target, columns, sd.get("Location", ""), classification, keys)
        self.drop_table(source)

    # -- seeding ----------------------------------------------------------------------
    def create_table(
        self,
        account: str,
        database: str,
        table: str,
        columns: Union[Mapping[str, str], Sequence[Tuple[str, str]]],
        rows: Iterable[Union[Sequence[Any], Mapping[str, Any]]] = (),
        location: Optional[str] = None,
    ) -> TableRef:
        """Create ``account``'s ``database.table`` with ``rows`` (JSON lines on local disk).

        ``columns`` maps names to Hive types (``int``, ``bigint``, ``string``, ``double``,
        ``boolean``, ``date``, ``timestamp``); rows are sequences in column order or dicts.
        Replaces the table and its data when it exists.
        """
        cols = (
            list(columns.items()) if isinstance(columns, Mapping) else [tuple(c) for c in columns]
        )
        ref = TableRef(account, glue_name(database), glue_name(table))
        location = (
            location or f"s3://emulator-{account}-{REGION}/warehouse/{ref.database}/{ref.table}/"
        )
        path = self.local_path(location)
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True, exist_ok=True)
        names = [n for n, _ in cols]
        with open(path / "part-00000.json", "w", encoding="utf-8") as handle:
            for row in rows:
                record = dict(row) if isinstance(row, Mapping) else dict(zip(names, row))
                handle.write(json.dumps(record, default=str) + "\n")
        self.put_table(ref, cols, location, classification="json")
        return ref

    def append_rows(self, account: str, database: str, table: str, rows: Iterable[Any]) -> None:
        """Add rows to a table created by :meth:`create_table` (a new JSON-lines file)."""
        ref = TableRef(account, glue_name(database), glue_name(table))
        meta = self.get_table(ref)
        names = [c["Name"] for c in meta["StorageDescriptor"]["Columns"]]
        path = self.local_path(meta["StorageDescriptor"]["Location"])
        name = f"part-{len(os.listdir(path)):05d}.json"
        with open(path / name, "w", encoding="utf-8") as handle:
            for row in rows:
                record = dict(row) if isinstance(row, Mapping) else dict(zip(names, row))
                handle.write(json.dumps(record, default=str) + "\n")


def columns_of(table: Mapping[str, Any]) -> List[Tuple[str, str]]:
    sd = table.get("StorageDescriptor", {})
    return [(c["Name"], c["Type"]) for c in sd.get("Columns", [])] + [
        (c["Name"], c["Type"]) for c in table.get("PartitionKeys", [])
    ]


# The catalog that the emulator's executors and SQL hook use. One emulator per process.
CATALOG = Catalog()
