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

* Names follow Spark's session catalog: ``db.table``, ``table`` (database ``default``) or
  ``spark_catalog.db.table``. Any other name with three or more parts is rejected with
  Spark's own ``REQUIRES_SINGLE_PART_NAMESPACE`` error, as the Glue-backed session catalog
  of Athena for Spark rejects it.
* Every file the emulator writes under a table's location (seeded rows, what Spark wrote,
  ``_SUCCESS`` included) is mirrored into moto's S3 under the same ``s3://`` key, so S3
  API calls (the doctor's ``data`` check, ``aws s3 ls``) see what Spark reads.
* The Hive Glue client behind Spark's session catalog refuses a Glue table without Hive
  storage (no ``StorageDescriptor.InputFormat``), as Iceberg tables are registered, with the
  error the AWS Glue Data Catalog client for Hive raises (:meth:`Catalog.hive_table`).
* Iceberg tables (``create_table(..., table_format="iceberg")``) are real ones, written with
  pyiceberg through the emulator's Glue and S3 (``iceberg.py``); they live in the emulated
  S3 only, not in the local warehouse directory.

Nothing here imports PySpark; seeded Hive tables are JSON-lines files, readable by Spark.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, Union

from athena_spark_emulator.accounts import glue_types
from athena_spark_emulator.accounts.sts_roles import Roles
from athena_spark_emulator.core.constants import (
    LOCAL_ACCOUNT,
    REGION,
    ROLE_NAME,
    SEPARATOR_PROPERTY,
)
from athena_spark_emulator.core.context import current_principal

__all__ = [
    "LOCAL_ACCOUNT",
    "REGION",
    "ROLE_NAME",
    "SEPARATOR_PROPERTY",
    "Catalog",
    "GlueAccessDenied",
    "GlueEntityNotFound",
    "HiveClientRefusal",
    "InvalidTableName",
    "TableRef",
]

_OWNER_NAMESPACE = re.compile(r"([0-9]{12})/(.+)", re.DOTALL)

PARQUET = {
    "InputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
    "OutputFormat": "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
    "SerdeInfo": {
        "SerializationLibrary": "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
    },
}
_TEXT_IO = {
    "InputFormat": "org.apache.hadoop.mapred.TextInputFormat",
    "OutputFormat": "org.apache.hadoop.hive.ql.io.HiveIgnoreKeyTextOutputFormat",
}
JSON = {**_TEXT_IO, "SerdeInfo": {"SerializationLibrary": "org.openx.data.jsonserde.JsonSerDe"}}
# Glue storage of each classification the emulator writes (Athena's for the same format).
STORAGE = {
    "parquet": PARQUET,
    "json": JSON,
    "orc": {
        "InputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
        "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.ql.io.orc.OrcSerde"},
    },
    "avro": {
        "InputFormat": "org.apache.hadoop.hive.ql.io.avro.AvroContainerInputFormat",
        "OutputFormat": "org.apache.hadoop.hive.ql.io.avro.AvroContainerOutputFormat",
        "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.avro.AvroSerDe"},
    },
    "csv": {
        **_TEXT_IO,
        "SerdeInfo": {"SerializationLibrary": "org.apache.hadoop.hive.serde2.OpenCSVSerde"},
    },
    "textfile": {
        **_TEXT_IO,
        "SerdeInfo": {
            "SerializationLibrary": "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
            "Parameters": {"field.delim": "\x01"},
        },
    },
}


class GlueAccessDenied(Exception):
    """Raised (inside a calculation) when an owner has not granted the caller's account."""


class GlueEntityNotFound(Exception):
    """Raised when a database or table does not exist in the account it resolves to."""


class HiveClientRefusal(Exception):
    """The Glue Hive client cannot load a table without Hive storage (Spark raises it as
    ``AnalysisException``)."""


class InvalidTableName(ValueError):
    """A name Spark's session catalog rejects (Spark raises ``AnalysisException``)."""


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


def s3_backend(account: str) -> Any:
    from moto.s3.models import s3_backends

    return s3_backends[account]["aws"]


def principal_account(principal: str) -> str:
    """The account of an account id or an ARN (``arn:aws:iam::<account>:role/...``)."""
    parts = str(principal).split(":")
    return parts[4] if len(parts) > 4 and parts[0] == "arn" else str(principal)


def _session_arn(principal: str) -> str:
    """How Glue names the caller in a refusal: a role as its assumed-role session."""
    match = re.fullmatch(r"arn:aws:iam::(\d{12}):role/(?:.*/)?([^/]+)", str(principal))
    if match:
        return f"arn:aws:sts::{match.group(1)}:assumed-role/{match.group(2)}/AthenaSparkSession"
    if str(principal).startswith("arn:"):
        return str(principal)
    return f"arn:aws:sts::{principal}:assumed-role/{ROLE_NAME}/AthenaSparkSession"


def _spark_quoted(parts: Sequence[str]) -> str:
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def glue_name(name: str) -> str:
    """Glue stores database and table names lowercased."""
    return name.lower()


class Catalog:
    """Accounts, grants and local storage of one emulator (``emulator.catalog``)."""

    def __init__(
        self, warehouse: Optional[Union[str, Path]] = None, local_account: str = LOCAL_ACCOUNT
    ) -> None:
        self._own_dir = warehouse is None
        self._warehouse = Path(warehouse).resolve() if warehouse is not None else None
        self.local_account = local_account
        self.grants: Dict[str, Set[str]] = {}
        # IAM roles of the accounts, and STS AssumeRole into them (sts_roles.py)
        self.roles = Roles()
        self.lock = threading.RLock()
        # The emulator's endpoint, set when it starts: Iceberg tables are read and written
        # through its Glue and S3 APIs.
        self.endpoint_url: Optional[str] = None

    @property
    def warehouse(self) -> Path:
        """The local directory standing for S3 (a temporary one unless given)."""
        if self._warehouse is None:
            self._warehouse = Path(tempfile.mkdtemp(prefix="athena-emulator-"))
        return self._warehouse

    def cleanup(self) -> None:
        """Remove the warehouse directory if the catalog created it."""
        if self._own_dir and self._warehouse is not None:
            shutil.rmtree(self._warehouse, ignore_errors=True)
            self._warehouse = None

    def forget_files(self) -> None:
        """Remove every local file standing for an S3 object (``<warehouse>/s3``): with
        moto's S3 reset, what a table's Glue location pointed to is gone as on AWS."""
        if self._warehouse is not None:
            shutil.rmtree(self._warehouse / "s3", ignore_errors=True)

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

    def granted(self, owner: str, principal: str) -> bool:
        """Does ``owner``'s Glue resource policy allow ``principal`` (an account id, or a
        role/user ARN)? A grant names an account (everyone in it) or one principal's ARN."""
        grantees = self.grants.get(owner, set())
        return principal in grantees or principal_account(principal) in grantees

    def check_access(
        self, ref: TableRef, action: str = "glue:GetTable", caller: Optional[str] = None
    ) -> None:
        """Raise :class:`GlueAccessDenied` unless ``caller`` may read ``ref``: by default the
        execution role of the calculation on this thread (Spark reads as that role), else
        the local account."""
        caller = caller or current_principal() or self.local_account
        if ref.account == principal_account(caller) or self.granted(ref.account, caller):
            return
        raise GlueAccessDenied(
            "software.amazon.awssdk.services.glue.model.AccessDeniedException: "
            f"User: {_session_arn(caller)} "
            f"is not authorized to perform: {action} on resource: {ref.arn} "
            "because no resource-based policy allows the "
            f"{action} action (Service: Glue, Status Code: 400, Request ID: "
            f"{abs(hash((ref, time.time()))) % 10**12:012d})"
        )

    def put_object(self, uri: str, body: bytes, account: str = LOCAL_ACCOUNT) -> None:
        """Write one object to moto's S3 (the bucket is created in ``account`` if missing)."""
        match = re.match(r"s3[an]?://([^/]+)/(.+)", uri)
        if not match:
            raise ValueError(f"not an s3:// object: {uri!r}")
        bucket, key = match.groups()
        with self.lock:
            backend = self._s3_bucket_backend(bucket, account)
            backend.put_object(bucket, key, body, disable_notification=True)

    # -- the owner catalog's encryption at rest ------------------------------------------
    def set_catalog_encryption(self, account: str, mode: str, key: Optional[str] = None) -> None:
        """``account``'s Glue Data Catalog encryption (``EncryptionAtRest``), kept in its
        own moto Glue backend under its own catalog id, as PutDataCatalogEncryptionSettings
        there would: GetDataCatalogEncryptionSettings with ``CatalogId=<account>``, routed
        to the owner's Glue with its grants (``responses.route_glue_catalog_id``), reads it."""
        at_rest: Dict[str, str] = {"CatalogEncryptionMode": mode}
        if key:
            at_rest["SseAwsKmsKeyId"] = key
        with self.lock:
            glue_backend(account).put_data_catalog_encryption_settings(
                catalog_id=account, data_catalog_encryption_settings={"EncryptionAtRest": at_rest}
            )

    # -- names ---------------------------------------------------------------------
    def resolve(self, parts: Sequence[str], spark_properties: Mapping[str, str]) -> TableRef:
        """Spark's parsed multipart name -> TableRef, as Athena's Glue client resolves it."""
        parts = list(parts)
        if len(parts) == 3 and parts[0].lower() == "spark_catalog":
            parts = parts[1:]  # the session catalog, named explicitly
        if len(parts) > 2:
            raise InvalidTableName(
                "[REQUIRES_SINGLE_PART_NAMESPACE] spark_catalog requires a single-part "
                f"namespace, but got {_spark_quoted(parts[:-1])}."
            )
        if len(parts) == 1:
            namespace, table = "default", parts[0]
        else:
            namespace, table = parts
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

    def table_exists(self, ref: TableRef) -> bool:
        database = glue_backend(ref.account).databases.get(ref.database)
        return database is not None and ref.table in database.tables

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

    def hive_table(self, ref: TableRef) -> Dict[str, Any]:
        """:meth:`get_table` as the Glue Hive client sees it: a table without Hive storage
        (Iceberg's Glue entries have no InputFormat) is refused with the Glue client's error
        (awslabs/aws-glue-data-catalog-client-for-apache-hive-metastore, issue 78)."""
        table = self.get_table(ref)
        storage = table.get("StorageDescriptor") or {}
        if str(table.get("TableType", "")).upper() != "VIRTUAL_VIEW" and not storage.get(
            "InputFormat"
        ):
            raise HiveClientRefusal(
                "org.apache.hadoop.hive.ql.metadata.HiveException: Unable to fetch table "
                f"{ref.table}. StorageDescriptor#InputFormat cannot be null for table: "
                f"{ref.table} (Service: null; Status Code: 0; Error Code: null; Request ID: "
                "null; Proxy: null)"
            )
        return table

    def put_table(
        self,
        ref: TableRef,
        columns: Sequence[Tuple[str, str]],
        location: str,
        classification: str = "parquet",
        partition_keys: Sequence[Tuple[str, str]] = (),
        parameters: Optional[Mapping[str, str]] = None,
        serde: Optional[Mapping[str, str]] = None,
    ) -> None:
        """Create or replace a Glue table (EXTERNAL_TABLE) in the ref's account; ``parameters``
        are added to its Glue Parameters; ``serde`` (``serde``: the library, other keys: its
        parameters) replaces the classification's SerDe."""
        formats: Dict[str, Any] = dict(STORAGE.get(classification, PARQUET))
        if serde:
            library = serde.get("serde") or formats["SerdeInfo"]["SerializationLibrary"]
            params = {k: v for k, v in serde.items() if k != "serde"}
            formats["SerdeInfo"] = {"SerializationLibrary": library, "Parameters": params}
        table_input = {
            "Name": ref.table,
            "TableType": "EXTERNAL_TABLE",
            "Parameters": {
                "classification": classification,
                "EXTERNAL": "TRUE",
                **(parameters or {}),
            },
            "StorageDescriptor": {
                "Columns": [{"Name": n, "Type": t} for n, t in columns],
                "Location": location,
                **formats,
            },
            "PartitionKeys": [{"Name": n, "Type": t} for n, t in partition_keys],
        }
        with self.lock:
            self._upsert_table(ref, table_input)
            # a table replaced is a new table: the old one's Glue partitions are gone
            glue_backend(ref.account).databases[ref.database].tables[ref.table].partitions.clear()

    def put_view(self, ref: TableRef, columns: Sequence[Tuple[str, str]], text: str) -> None:
        """Create or replace a view as Athena SQL registers it in Glue (VIRTUAL_VIEW,
        ``presto_view``, the Presto view text)."""
        table_input = {
            "Name": ref.table,
            "TableType": "VIRTUAL_VIEW",
            "Parameters": {"presto_view": "true", "comment": "Presto View"},
            "StorageDescriptor": {
                "Columns": [{"Name": n, "Type": t} for n, t in columns],
                "Location": "",
                "SerdeInfo": {},
            },
            "PartitionKeys": [],
            "ViewOriginalText": text,
            "ViewExpandedText": "/* Presto View */",
        }
        self._upsert_table(ref, table_input)

    def set_parameters(self, ref: TableRef, parameters: Mapping[str, str]) -> None:
        """Glue UpdateTable adding ``parameters`` (``alter table ... set tblproperties``)."""
        table = self.get_table(ref)
        table_input = table_input_of(table)
        table_input["Name"] = ref.table
        table_input["Parameters"] = {**(table.get("Parameters") or {}), **parameters}
        self._upsert_table(ref, table_input)

    def set_location(self, ref: TableRef, location: str) -> None:
        """Glue UpdateTable of the table's ``StorageDescriptor.Location``."""
        table = self.get_table(ref)
        table_input = table_input_of(table)
        table_input["Name"] = ref.table
        table_input["StorageDescriptor"] = {
            **table_input["StorageDescriptor"],
            "Location": location,
        }
        self._upsert_table(ref, table_input)

    def set_columns(
        self,
        ref: TableRef,
        columns: Sequence[Tuple[str, str]],
        partition_keys: Optional[Sequence[Tuple[str, str]]] = None,
    ) -> None:
        """Glue UpdateTable of the table's columns (and partition keys): a Hive table's
        schema change (``alter table ... add / replace / change column``)."""
        table = self.get_table(ref)
        table_input = table_input_of(table)
        table_input["Name"] = ref.table
        table_input["StorageDescriptor"] = {
            **table_input["StorageDescriptor"],
            "Columns": [{"Name": n, "Type": t} for n, t in columns],
        }
        if partition_keys is not None:
            table_input["PartitionKeys"] = [{"Name": n, "Type": t} for n, t in partition_keys]
        self._upsert_table(ref, table_input)

    def _upsert_table(self, ref: TableRef, table_input: Dict[str, Any]) -> None:
        """Glue's CreateTable, or UpdateTable when the ref's table exists."""
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
        """Glue's table rename (Athena's ``alter table ... rename to``): the whole entry,
        Iceberg's parameters included, under the new name."""
        table = self.get_table(source)
        table_input = table_input_of(table)
        table_input["Name"] = target.table
        self._upsert_table(target, table_input)
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
        table_format: str = "hive",
        parameters: Optional[Mapping[str, str]] = None,
    ) -> TableRef:
        """Create ``account``'s ``database.table`` with ``rows``.

        ``columns`` maps names to Glue (Hive) types, nested ones included (``glue_types``);
        rows are sequences in column order or dicts, each value checked against its
        column's type and converted (ValueError naming the row and column otherwise).
        ``table_format`` ``hive``: JSON lines on local disk, mirrored into S3; ``iceberg``: a
        real Iceberg table written as that account through the emulator's Glue and S3
        (default location ``s3://emulator-<account>-<region>/iceberg/<db>/<table>``).
        Replaces the table (its Glue entry, and a Hive table's data) when it exists.
        ``parameters`` (Hive tables only) are added to the Glue entry's Parameters, e.g.
        ``table_type: DELTA`` for files registered as another format's table.
        """
        cols = (
            list(columns.items()) if isinstance(columns, Mapping) else [tuple(c) for c in columns]
        )
        ref = TableRef(account, glue_name(database), glue_name(table))
        if table_format not in ("hive", "iceberg"):
            raise ValueError(f"table_format is 'hive' or 'iceberg', not {table_format!r}")
        typed, values = typed_rows(ref, cols, rows, json_files=table_format == "hive")
        if table_format == "iceberg":
            if parameters:
                raise ValueError("parameters apply to hive tables; Iceberg writes its own")
            return self._create_iceberg_table(ref, typed, values, location)
        location = (
            location or f"s3://emulator-{account}-{REGION}/warehouse/{ref.database}/{ref.table}/"
        )
        path = self.local_path(location)
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True, exist_ok=True)
        names = [n for n, _ in typed]
        kinds = [k for _, k in typed]
        with open(path / "part-00000.json", "w", encoding="utf-8") as handle:
            for row in values:
                handle.write(glue_types.hive_json_row(names, kinds, row) + "\n")
        glue_columns = [(n, str(k)) for n, k in typed]
        self.put_table(ref, glue_columns, location, classification="json", parameters=parameters)
        self.sync_to_s3(location, account)
        return ref

    def _create_iceberg_table(
        self,
        ref: TableRef,
        columns: Sequence[Tuple[str, glue_types.GlueType]],
        rows: Sequence[Sequence[Any]],
        location: Optional[str],
    ) -> TableRef:
        from athena_spark_emulator.accounts import iceberg

        if self.endpoint_url is None:
            raise RuntimeError("Iceberg tables are written through a started emulator's endpoint")
        location = location or (
            f"s3://emulator-{ref.account}-{REGION}/iceberg/{ref.database}/{ref.table}"
        )
        self.ensure_database(ref.account, ref.database)
        self.drop_table(ref)
        iceberg.create_table(
            self.endpoint_url, ref.account, ref.database, ref.table, columns, rows, location
        )
        return ref

    def append_rows(self, account: str, database: str, table: str, rows: Iterable[Any]) -> None:
        """Add rows to a table created by :meth:`create_table` (a new JSON-lines file)."""
        ref = TableRef(account, glue_name(database), glue_name(table))
        meta = self.get_table(ref)
        columns = [(c["Name"], c["Type"]) for c in meta["StorageDescriptor"]["Columns"]]
        typed, values = typed_rows(ref, columns, rows, json_files=True)
        path = self.local_path(meta["StorageDescriptor"]["Location"])
        name = f"part-{len(os.listdir(path)):05d}.json"
        names, kinds = [n for n, _ in typed], [k for _, k in typed]
        with open(path / name, "w", encoding="utf-8") as handle:
            for row in values:
                handle.write(glue_types.hive_json_row(names, kinds, row) + "\n")
        self.sync_to_s3(meta["StorageDescriptor"]["Location"], account)

    # -- moto S3 mirror ---------------------------------------------------------------
    def sync_to_s3(self, location: str, account: str = LOCAL_ACCOUNT) -> int:
        """Mirror the local files under ``location`` into moto's S3 (one way: local -> S3).

        Keys under the prefix that no longer exist locally are deleted, so an overwrite
        shows as it does on S3. Hadoop's ``.crc`` checksum files are left out (S3 file
        systems write none); ``_SUCCESS`` is kept. The bucket is created in ``account``
        when it does not exist in any account. Returns the number of objects written.
        """
        match = re.match(r"s3[an]?://([^/]+)/?(.*)", location)
        if not match:
            return 0
        bucket, key = match.group(1), match.group(2).strip("/")
        prefix = f"{key}/" if key else ""
        root = self.local_path(location)
        wanted: Dict[str, Path] = {}
        if root.is_dir():
            for path in root.rglob("*"):
                if path.is_file() and not path.name.endswith(".crc"):
                    wanted[prefix + path.relative_to(root).as_posix()] = path
        with self.lock:
            backend = self._s3_bucket_backend(bucket, account)
            existing = backend.get_bucket(bucket).keys
            for stale in [k for k in list(existing.keys()) if k.startswith(prefix)]:
                if stale not in wanted:
                    backend.delete_object(bucket, stale)
            for name, path in wanted.items():
                backend.put_object(bucket, name, path.read_bytes(), disable_notification=True)
        return len(wanted)

    def sync_from_s3(self, location: str, account: str = LOCAL_ACCOUNT) -> int:
        """Copy the S3 objects under ``location`` (e.g. a CSV dbt-athena uploaded) to the
        local directory that stands for it; returns the number of objects copied."""
        from moto.s3.models import s3_backends

        match = re.match(r"s3[an]?://([^/]+)/?(.*)", location)
        if not match:
            return 0
        bucket, key = match.group(1), match.group(2).strip("/")
        prefix = f"{key}/" if key else ""
        if s3_backends.bucket_accounts.get(bucket) is None:
            return 0
        backend = self._s3_bucket_backend(bucket, account)
        root = self.local_path(location)
        copied = 0
        with self.lock:
            for name, obj in list(backend.get_bucket(bucket).keys.items()):
                if not name.startswith(prefix) or name.endswith("/"):
                    continue
                target = root / name[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(obj.value)
                copied += 1
        return copied

    def remove_local(self, bucket: str, key: str) -> None:
        """An S3 object was deleted: remove the local file standing for it, and the
        directories it leaves empty (so the warehouse holds what Glue points to)."""
        path = self.local_path(f"s3://{bucket}/{key}")
        root = self.warehouse / "s3" / bucket
        with self.lock:
            if path.is_file():
                path.unlink()
                for suffix in (".crc",):
                    sibling = path.with_name(f".{path.name}{suffix}")
                    if sibling.exists():
                        sibling.unlink()
            parent = path.parent
            while parent != root and parent.is_dir() and root in parent.parents:
                leftovers = [p for p in parent.iterdir() if not p.name.endswith(".crc")]
                if leftovers:
                    break
                shutil.rmtree(parent, ignore_errors=True)
                parent = parent.parent

    @staticmethod
    def _s3_bucket_backend(bucket: str, account: str) -> Any:
        from moto.s3.models import s3_backends

        owner = s3_backends.bucket_accounts.get(bucket)
        if owner is not None:
            return s3_backends[owner[1]][owner[0]]
        backend = s3_backend(account)
        backend.create_bucket(bucket, REGION)
        return backend


def typed_rows(
    ref: TableRef,
    columns: Sequence[Tuple[str, str]],
    rows: Iterable[Union[Sequence[Any], Mapping[str, Any]]],
    json_files: bool,
) -> Tuple[List[Tuple[str, glue_types.GlueType]], List[List[Any]]]:
    """A seed table's columns with parsed Glue types, and its rows converted to them
    (``glue_types``); ValueError naming the table, row and column of a value that does
    not fit (or that pyiceberg would not write as it is: ``iceberg_lost_null``)."""
    typed: List[Tuple[str, glue_types.GlueType]] = []
    for name, text in columns:
        try:
            kind = glue_types.parse(text)
        except glue_types.GlueTypeError as exc:
            raise ValueError(f"{ref.database}.{ref.table} column {name!r}: {exc}") from None
        typed.append((str(name), kind))
    try:
        values = glue_types.convert_rows(typed, rows)
        for i, row in enumerate(values):
            for (name, kind), value in zip(typed, row):
                lost = None if json_files else glue_types.iceberg_lost_null(value, kind)
                if lost is not None:
                    raise glue_types.ValueMismatch(lost.message, [i, name, *lost.path])
        return typed, values
    except glue_types.ValueMismatch as exc:
        where = ".".join(str(p) for p in exc.path)
        raise ValueError(
            f"{ref.database}.{ref.table} (account {ref.account}) rows.{where}: {exc.message}"
        ) from None


TABLE_INPUT_KEYS = (
    "TableType",
    "Parameters",
    "StorageDescriptor",
    "PartitionKeys",
    "Description",
    "ViewOriginalText",
    "ViewExpandedText",
)


def table_input_of(table: Mapping[str, Any]) -> Dict[str, Any]:
    """The Glue TableInput that recreates ``table`` (a GetTable entry), without its name."""
    return {k: table[k] for k in TABLE_INPUT_KEYS if table.get(k) is not None}


def columns_of(table: Mapping[str, Any]) -> List[Tuple[str, str]]:
    sd = table.get("StorageDescriptor", {})
    return [(c["Name"], c["Type"]) for c in sd.get("Columns", [])] + [
        (c["Name"], c["Type"]) for c in table.get("PartitionKeys", [])
    ]


def is_iceberg(table: Mapping[str, Any]) -> bool:
    """True for a Glue entry that Iceberg's GlueCatalog registered (``table_type=ICEBERG``)."""
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    return params.get("table_type", "").upper() == "ICEBERG"
