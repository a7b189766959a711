"""One home for table formats: how each is recognised, how Spark reads it from another
account, and what the doctor says about it. Pure; nothing here imports dbt.

Each :class:`TableFormat` in :data:`FORMATS` says

* how it is **recognised**: the Glue ``Parameters["table_type"]`` values and the
  provider/classification values that mean it (:func:`detect`, used by the doctor on the
  GetTable answer, and :func:`runtime_detection`, the one metadata lookup the generated code
  makes inside Spark, as the execution role);
* how Spark **reads** it cross-account (:attr:`TableFormat.reader`): through the Glue
  separator (``spark.table("`<account>/<db>`.`<table>`")``, the Hive Glue client), through
  a per-owner Iceberg ``SparkCatalog`` with ``glue.id=<owner>`` registered at run time, or
  not at all (:func:`spark_reads` builds what the generated code needs for each reader);
* what the **doctor** says (:attr:`TableFormat.doctor`), and which Glue parameter names the
  file its reader opens first (Iceberg's ``metadata_location``), which the doctor reads.

The read plan (``plan.py``) and the doctor (``doctor/table_format.py``) both take every
answer from here, so supporting another format (Delta, Hudi) is one entry plus its reader.
The local emulator keeps its own, independent model of how AWS stores each format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

from dbt_athena_cross_account.errors import FAIL, PASS, WARN, CrossAccountCatalogError
from dbt_athena_cross_account.names import (
    iceberg_catalog_name,
    iceberg_table_name,
    separator_table_name,
    table_part,
    table_property_statement,
)

HIVE = "hive"
ICEBERG = "iceberg"
DELTA = "delta"
HUDI = "hudi"
VIEW = "view"
GOVERNED = "governed"
LAKE_FORMATION = "lake_formation"  # any format, its location registered with Lake Formation

# Readers: how the generated code reads a format from another account.
SEPARATOR = "separator"  # the Hive Glue client: spark.table("`<account>/<db>`.`<table>`")
ICEBERG_CATALOG = "iceberg_catalog"  # an Iceberg SparkCatalog with glue.id=<owner>

#: The source ``meta`` key that names a table's format and skips the runtime lookup.
OVERRIDE_KEY = "spark_table_format"
#: The table property the runtime lookup reads (Glue's ``Parameters["table_type"]``).
TABLE_TYPE = "table_type"
#: What the AWS Glue Hive client raises for a Glue table without Hive storage (no
#: ``StorageDescriptor.InputFormat``), as Iceberg's GlueCatalog, Athena and Glue register
#: Iceberg tables: the table is not Hive, so the lookup's refusal names the format.
#: (awslabs/aws-glue-data-catalog-client-for-apache-hive-metastore issue 78.)
NO_HIVE_STORAGE = "StorageDescriptor#InputFormat cannot be null"


@dataclass(frozen=True)
class Verdict:
    """What the doctor's ``format`` row says: status, reason (may use ``{provider}``), fix."""

    status: str
    reason: str
    fix: str = ""


@dataclass(frozen=True)
class TableFormat:
    name: str
    reader: Optional[str]  # SEPARATOR, ICEBERG_CATALOG, or None: Spark cannot read it
    doctor: Verdict
    table_types: Tuple[str, ...] = ()  # Glue Parameters["table_type"] values (upper case)
    providers: Tuple[str, ...] = ()  # spark.sql.sources.provider / classification values
    metadata_parameter: Optional[str] = None  # Glue parameter naming the file read first
    without_hive_storage: bool = False  # its Glue entries carry no InputFormat


OTHER_ENGINE_FIX = (
    "configure the matching Spark catalog for the owner account, or read it from a SQL model"
)
HIVE_READABLE = "Hive table ({provider}), readable through the separator"
ICEBERG_READABLE = "Iceberg table, read through an Iceberg catalog for the owner (glue.id={owner})"

FORMATS: Dict[str, TableFormat] = {
    HIVE: TableFormat(HIVE, SEPARATOR, Verdict(PASS, HIVE_READABLE)),
    ICEBERG: TableFormat(
        ICEBERG,
        ICEBERG_CATALOG,
        Verdict(PASS, ICEBERG_READABLE),
        table_types=("ICEBERG",),
        metadata_parameter="metadata_location",
        without_hive_storage=True,
    ),
    VIEW: TableFormat(
        VIEW,
        None,
        Verdict(
            FAIL,
            "this is an Athena/Glue view; Spark cannot expand Athena (Presto/Trino) view definitions",
            "read the view's underlying tables instead",
        ),
    ),
    DELTA: TableFormat(
        DELTA,
        None,
        Verdict(
            FAIL, "Delta table: the Hive Glue client reads only its raw files", OTHER_ENGINE_FIX
        ),
        table_types=("DELTA",),
        providers=("delta",),
    ),
    HUDI: TableFormat(
        HUDI,
        None,
        Verdict(
            FAIL, "Hudi table: the Hive Glue client reads only its raw files", OTHER_ENGINE_FIX
        ),
        table_types=("HUDI",),
        providers=("hudi",),
    ),
    # A governed table needs Lake Formation transactions, which engine v3 does not have.
    GOVERNED: TableFormat(
        GOVERNED,
        None,
        Verdict(
            FAIL,
            "the table is a Lake Formation governed table; "
            "Athena Spark's PySpark engine v3 (the one dbt-athena runs Python models on) has no "
            "Lake Formation support (the Apache Spark 3.5 engine has full-table access), so the read fails",
            "read it from a SQL model instead",
        ),
        table_types=("GOVERNED",),
    ),
}

# A table whose location is registered with Lake Formation: engine v3 ignores LF grants and
# reads S3 with IAM. Whether that works is what the doctor's data check proved (or not).
LAKE_FORMATION_FIX = (
    "ask the owner to grant the Spark execution role direct (IAM + bucket policy) access, "
    "or to register the location in hybrid access mode; "
    "otherwise read it from a SQL model instead"
)
LAKE_FORMATION_ONLY = Verdict(
    FAIL,
    "the table's location is governed by Lake Formation and S3 refused the direct read; "
    "Athena Spark's PySpark engine v3 (the one dbt-athena runs Python models on) has no "
    "Lake Formation support (the Apache Spark 3.5 engine has full-table access), "
    "so LF grants do not apply and the read fails",
    LAKE_FORMATION_FIX,
)
LAKE_FORMATION_WITH_IAM = Verdict(
    WARN,
    "the table's location is governed by Lake Formation; "
    "Athena Spark's PySpark engine v3 (the one dbt-athena runs Python models on) has no "
    "Lake Formation support (the Apache Spark 3.5 engine has full-table access), "
    "so it reads through IAM and the bucket policy, which allowed the doctor's read: "
    "make sure Spark's execution role has the same access",
    LAKE_FORMATION_FIX,
)


# ---- recognising a format from its Glue entry --------------------------------------------
def is_view(table: Mapping[str, Any]) -> bool:
    """A view has no data of its own."""
    return str(table.get("TableType", "")).upper() == "VIRTUAL_VIEW"


def detect(table: Mapping[str, Any]) -> Tuple[str, str]:
    """(format, provider) of a Glue GetTable answer: a key of FORMATS or ``lake_formation``,
    and the file format the entry names (parquet, csv, ...)."""
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    table_type = params.get(TABLE_TYPE, "").upper()
    storage = table.get("StorageDescriptor") or {}
    serde = str((storage.get("SerdeInfo") or {}).get("SerializationLibrary", ""))
    provider = (
        params.get("spark.sql.sources.provider")
        or params.get("classification")
        or serde.rsplit(".", 1)[-1]
    )
    if table_type in FORMATS[GOVERNED].table_types:
        return GOVERNED, provider
    if table.get("IsRegisteredWithLakeFormation"):
        return LAKE_FORMATION, provider
    for name, fmt in FORMATS.items():
        if table_type and table_type in fmt.table_types:
            return name, provider
    if is_view(table):
        return VIEW, provider
    for name, fmt in FORMATS.items():
        if provider.lower() in fmt.providers:
            return name, provider
    return HIVE, provider


def readable() -> List[str]:
    """The formats Spark reads cross-account, in FORMATS order (``hive`` first)."""
    return [name for name, fmt in FORMATS.items() if fmt.reader is not None]


# ---- the per-source override -------------------------------------------------------------
BAD_OVERRIDE = "dbt_athena_cross_account: model '{model}' reads {label}, whose meta spark_table_format is {value}, which is not one of {allowed}. Fix: set it to one of them, or remove it to detect the format when the model runs."


def check_override(model: str, label: str, value: Any) -> Optional[str]:
    """The format a source's ``meta: {spark_table_format: ...}`` names (None: detect it)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    name = value.strip().lower() if isinstance(value, str) else None
    if name in readable():
        return name
    allowed = ", ".join(repr(n) for n in readable())
    raise CrossAccountCatalogError(
        BAD_OVERRIDE.format(model=model, label=label, value=repr(value), allowed=allowed)
    )


# ---- what the generated code does inside Spark --------------------------------------------
SPARK_CATALOG = "org.apache.iceberg.spark.SparkCatalog"
GLUE_CATALOG = "org.apache.iceberg.aws.glue.GlueCatalog"
S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO"
SESSION_CATALOG = "spark.sql.catalog.spark_catalog"
#: The Spark properties dbt-athena sets for ``table_type: iceberg`` models
#: (``DEFAULT_SPARK_PROPERTIES["iceberg"]``): they put Iceberg's classes in the session.
ICEBERG_SESSION_PROPERTIES = {
    SESSION_CATALOG: "org.apache.iceberg.spark.SparkSessionCatalog",
    SESSION_CATALOG + ".catalog-impl": GLUE_CATALOG,
    SESSION_CATALOG + ".io-impl": S3_FILE_IO,
    "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
}


def iceberg_catalog_conf(
    account_id: str, region: Optional[str], catalog: Optional[str] = None
) -> List[List[Optional[str]]]:
    """``[key, value, inherit]`` rows that register the owner's Iceberg catalog.

    ``inherit`` names a session property whose value, when the session has it, replaces
    ``value``: the owner's catalog uses the session catalog's ``io-impl`` and region (what
    a ``table_type: iceberg`` model's ``spark_catalog`` has), else S3FileIO and the profile's
    region. ``glue.skip-name-validation`` lets Glue names with ``-`` through (Iceberg's own
    check allows only ``[a-z0-9_]``). ``catalog``: another name than the owner's default
    (a catalog that reads through a role, ``roles.py``).
    """
    prefix = "spark.sql.catalog." + (catalog or iceberg_catalog_name(account_id))
    rows: List[List[Optional[str]]] = [
        [prefix, SPARK_CATALOG, None],
        [prefix + ".catalog-impl", GLUE_CATALOG, None],
        [prefix + ".glue.id", str(account_id), None],
        [prefix + ".glue.skip-name-validation", "true", None],
        [prefix + ".io-impl", S3_FILE_IO, SESSION_CATALOG + ".io-impl"],
    ]
    if region:
        rows.append([prefix + ".client.region", region, SESSION_CATALOG + ".client.region"])
    return rows


def spark_reads(
    account_id: str, schema: str, table: str, region: Optional[str]
) -> Dict[str, Dict[str, Any]]:
    """For each format Spark reads cross-account: the table name to read and the Spark
    properties to set first (``{"table", "conf"}``)."""
    reads: Dict[str, Dict[str, Any]] = {}
    for name in readable():
        reader = FORMATS[name].reader
        if reader == SEPARATOR:
            reads[name] = {"table": separator_table_name(account_id, schema, table), "conf": []}
        elif reader == ICEBERG_CATALOG:
            reads[name] = {
                "table": iceberg_table_name(account_id, schema, table),
                "conf": iceberg_catalog_conf(account_id, region),
            }
    return reads


def runtime_detection(account_id: str, schema: str, table: str) -> Dict[str, Any]:
    """The one metadata lookup that names a table's format inside Spark, and how to read
    its answer: ``sql`` (``SHOW TBLPROPERTIES`` through the separator, which Spark 3.2 has),
    ``formats`` (table_type value -> format, unreadable formats included: see
    :func:`unreadable_errors`), ``refusals`` (text of a refused lookup -> format) and
    ``default`` (no table_type: Hive)."""
    formats = {value: name for name, fmt in FORMATS.items() for value in fmt.table_types}
    without = [n for n in readable() if FORMATS[n].without_hive_storage]
    return {
        "sql": table_property_statement(
            separator_table_name(account_id, schema, table), TABLE_TYPE
        ),
        "formats": formats,
        "refusals": {NO_HIVE_STORAGE: without[0]} if len(without) == 1 else {},
        "default": HIVE,
    }


def _message_names(label: str, account_id: str, schema: str, table: str) -> Dict[str, str]:
    """What the read messages below name: the ref/source, the owner, the database, the table."""
    return dict(
        label=label, account=account_id, database=table_part(schema), table=table_part(table)
    )


# ---- formats Spark cannot read: refused before the read ---------------------------------
UNREADABLE = "dbt_athena_cross_account: {label} (account {account}, database '{database}', table '{table}') cannot be read cross-account: {reason}. Fix: {fix}. Run `dbt run-operation cross_account_doctor` to check every table the project reads."


def unreadable_errors(label: str, account_id: str, schema: str, table: str) -> Dict[str, str]:
    """{format: message} for the formats the runtime lookup can name but Spark cannot read
    (Delta, Hudi, governed): the generated code raises the message instead of reading
    through the separator, which would return the raw files (or fail without a reason)."""
    names = _message_names(label, account_id, schema, table)
    return {
        name: UNREADABLE.format(reason=fmt.doctor.reason, fix=fmt.doctor.fix, **names)
        for name, fmt in FORMATS.items()
        if fmt.reader is None and fmt.table_types
    }


# ---- errors raised inside Spark, re-raised with what to do --------------------------------
READ_DENIED = "dbt_athena_cross_account: {label} could not be read: Glue denied the work group's execution role access to account {account}, database '{database}', table '{table}'. The owner's Glue resource policy and the execution role's IAM policy must both allow glue:GetTable (and the S3 reads of the table's files). Run `dbt run-operation cross_account_doctor` to check both; it prints the policies filled in."
READ_NOT_FOUND = "dbt_athena_cross_account: {label} could not be read: account {account} has no table '{table}' in database '{database}' in its Glue catalog in this region. Check the source's schema and identifier with the owner, and that the model keeps spark.hadoop.aws.glue.catalog.separator: '/'. Run `dbt run-operation cross_account_doctor` to check them."
ICEBERG_NOT_FOUND = "dbt_athena_cross_account: {label} could not be read through the Iceberg catalog of account {account}: no Iceberg table '{table}' in database '{database}' (a Glue table that is not Iceberg is not found either; if the source sets meta {key}: iceberg, check it). Run `dbt run-operation cross_account_doctor` to check the table."
ICEBERG_CLASSES_MISSING = "dbt_athena_cross_account: {label} is an Iceberg table (account {account}, database '{database}', table '{table}'), but the model's session has no Iceberg classes to read it with. Fix: set table_type: iceberg on the model, or add Iceberg's Spark properties to its engine_config: {properties}."

DENIED_MARKERS = ("AccessDeniedException", "is not authorized to perform: glue:")
NOT_FOUND_MARKERS = (
    "EntityNotFoundException",
    "TABLE_OR_VIEW_NOT_FOUND",
    "SCHEMA_NOT_FOUND",
    "Table or view not found",
    "NoSuchTableException",
    "NoSuchDatabaseException",
    "NoSuchNamespaceException",
)
CLASSES_MISSING_MARKERS = (
    "Cannot find catalog plugin class",
    "CATALOG_PLUGIN_CLASS_NOT_FOUND",
    "ClassNotFoundException: org.apache.iceberg",
    "NoClassDefFoundError: org/apache/iceberg",
)


def read_errors(label: str, account_id: str, schema: str, table: str) -> List[Dict[str, Any]]:
    """Rules the generated code applies to an exception of a cross-account read: the first
    rule whose ``format`` is None or the format read, and one of whose ``markers`` is in the
    exception's text, replaces it with ``message`` (the original stays chained)."""
    names = _message_names(label, account_id, schema, table)
    properties = json.dumps({"SparkProperties": ICEBERG_SESSION_PROPERTIES})
    return [
        {
            "format": ICEBERG,
            "markers": list(CLASSES_MISSING_MARKERS),
            "message": ICEBERG_CLASSES_MISSING.format(properties=properties, **names),
        },
        {"format": None, "markers": list(DENIED_MARKERS), "message": READ_DENIED.format(**names)},
        {
            "format": ICEBERG,
            "markers": list(NOT_FOUND_MARKERS),
            "message": ICEBERG_NOT_FOUND.format(key=OVERRIDE_KEY, **names),
        },
        {
            "format": None,
            "markers": list(NOT_FOUND_MARKERS),
            "message": READ_NOT_FOUND.format(**names),
        },
    ]
