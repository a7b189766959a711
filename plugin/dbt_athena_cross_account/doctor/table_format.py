"""``format`` rows: can Spark's separator path (the Hive Glue client) read this table?

What the doctor says about each table format lives in :data:`FORMATS`, one entry per
format: :func:`detect` names the format, its entry gives the verdict. A read that will
fail is a FAIL, so that CI can gate on the doctor; a WARN means the read works, but look.

Iceberg reads go through the Hive Glue client today, which does not load them: FAIL.
When the generated code reads Iceberg tables through an Iceberg catalog, its entry here
becomes a PASS, and nothing else in the doctor changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Tuple

from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN, Check, CheckedTable

KIND = "format"
HIVE = "Hive table ({provider}), readable through the separator"
OTHER_ENGINE_FIX = (
    "configure the matching Spark catalog for the owner account, or read it from a SQL model"
)


@dataclass(frozen=True)
class Verdict:
    status: str
    reason: str
    fix: str = ""


FORMATS: Dict[str, Verdict] = {
    "iceberg": Verdict(
        FAIL,
        "Iceberg table: "
        "the '<account>/<database>' separator path goes through the Hive Glue client, "
        "which does not load Iceberg tables",
        "read it through an Iceberg catalog configured for the owner account "
        "(spark.sql.catalog.<name>.glue.id=<owner account>) instead of spark_cross_account_catalog",
    ),
    "view": Verdict(
        FAIL,
        "this is an Athena/Glue view; Spark cannot expand Athena (Presto/Trino) view definitions",
        "read the view's underlying tables instead",
    ),
    "delta": Verdict(
        FAIL, "Delta table: the Hive Glue client reads only its raw files", OTHER_ENGINE_FIX
    ),
    "hudi": Verdict(
        FAIL, "Hudi table: the Hive Glue client reads only its raw files", OTHER_ENGINE_FIX
    ),
    # A governed table needs Lake Formation transactions, which engine v3 does not have.
    "governed": Verdict(
        FAIL,
        "the table is a Lake Formation governed table; "
        "Athena Spark (PySpark engine v3) has no Lake Formation support, so the read fails",
        "read it from a SQL model instead",
    ),
}

# A table whose location is registered with Lake Formation: engine v3 ignores LF grants and
# reads S3 with IAM. Whether that works is what the data check just proved (or not).
LAKE_FORMATION_FIX = (
    "ask the owner to grant the Spark execution role direct (IAM + bucket policy) access, "
    "or to register the location in hybrid access mode; "
    "otherwise read it from a SQL model instead"
)
LAKE_FORMATION_ONLY = Verdict(
    FAIL,
    "the table's location is governed by Lake Formation and S3 refused the direct read; "
    "Athena Spark (PySpark engine v3) has no Lake Formation support, "
    "so LF grants do not apply and the read fails",
    LAKE_FORMATION_FIX,
)
LAKE_FORMATION_WITH_IAM = Verdict(
    WARN,
    "the table's location is governed by Lake Formation; "
    "Athena Spark (PySpark engine v3) has no Lake Formation support, "
    "so it reads through IAM and the bucket policy, which allowed the doctor's read: "
    "make sure Spark's execution role has the same access",
    LAKE_FORMATION_FIX,
)


def detect(table: Mapping[str, Any]) -> Tuple[str, str]:
    """(format, provider): a key of FORMATS, "lake_formation", or "hive" with the file
    format it names (parquet, csv, ...)."""
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    table_type = params.get("table_type", "").upper()
    storage = table.get("StorageDescriptor") or {}
    serde = str((storage.get("SerdeInfo") or {}).get("SerializationLibrary", ""))
    provider = (
        params.get("spark.sql.sources.provider")
        or params.get("classification")
        or serde.rsplit(".", 1)[-1]
    )
    if table_type == "GOVERNED":
        return "governed", provider
    if table.get("IsRegisteredWithLakeFormation"):
        return "lake_formation", provider
    if table_type == "ICEBERG":
        return "iceberg", provider
    if is_view(table):
        return "view", provider
    for name in ("delta", "hudi"):
        if name in (table_type.lower(), provider.lower()):
            return name, provider
    return "hive", provider


def is_view(table: Mapping[str, Any]) -> bool:
    """A view has no data of its own: the data check skips it."""
    return str(table.get("TableType", "")).upper() == "VIRTUAL_VIEW"


def check_format(
    ref: CheckedTable, table: Mapping[str, Any], data_readable: Optional[bool] = None
) -> Check:
    """The table's verdict; ``data_readable`` is the data check's outcome (Lake Formation
    tables: False means only LF grants let anyone read it, so Spark cannot)."""
    kind, provider = detect(table)
    if kind == "lake_formation":
        verdict = LAKE_FORMATION_ONLY if data_readable is False else LAKE_FORMATION_WITH_IAM
    elif kind in FORMATS:
        verdict = FORMATS[kind]
    else:
        return Check(PASS, KIND, ref.name, HIVE.format(provider=provider or "unknown format"))
    return Check(verdict.status, KIND, ref.name, verdict.reason, verdict.fix)
