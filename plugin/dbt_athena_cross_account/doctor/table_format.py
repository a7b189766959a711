"""``format`` rows: can Spark's separator path (the Hive Glue client) read this table?

What the doctor says about each table format lives in :data:`FORMATS`, one entry per
format: detection (:func:`detect`) names the format, the entry gives the verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Tuple

from dbt_athena_cross_account.doctor.rows import PASS, WARN, Check, CheckedTable

KIND = "format"
HIVE = "Hive table ({provider}), readable through the separator"


@dataclass(frozen=True)
class Verdict:
    status: str
    reason: str
    fix: str = ""


FORMATS: Dict[str, Verdict] = {
    "lake_formation": Verdict(
        WARN,
        "the table's location is governed by Lake Formation; "
        "Athena Spark (PySpark engine v3) has no Lake Formation support, "
        "so LF grants do not apply and the read fails or needs direct S3 access",
        "ask the owner to grant the Spark execution role direct (IAM + bucket policy) access, "
        "or to register the location in hybrid access mode; "
        "otherwise read it from a SQL model instead",
    ),
    "iceberg": Verdict(
        WARN,
        "Iceberg table: "
        "the '<account>/<database>' separator path goes through the Hive Glue client, "
        "which does not load Iceberg tables",
        "read it through an Iceberg catalog configured for the owner account "
        "(spark.sql.catalog.<name>.glue.id=<owner account>) instead of spark_cross_account_catalog",
    ),
    "view": Verdict(
        WARN,
        "this is an Athena/Glue view; Spark cannot expand Athena (Presto/Trino) view definitions",
        "read the view's underlying tables instead",
    ),
    "delta": Verdict(
        WARN,
        "Delta table: the Hive Glue client reads only its raw files",
        "configure the matching Spark catalog for the owner account, or read it from a SQL model",
    ),
    "hudi": Verdict(
        WARN,
        "Hudi table: the Hive Glue client reads only its raw files",
        "configure the matching Spark catalog for the owner account, or read it from a SQL model",
    ),
}


def detect(table: Mapping[str, Any]) -> Tuple[str, str]:
    """(format, provider): a key of FORMATS, or "hive" with the file format it names."""
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    table_type = params.get("table_type", "").upper()
    storage = table.get("StorageDescriptor") or {}
    serde = str((storage.get("SerdeInfo") or {}).get("SerializationLibrary", ""))
    provider = (
        params.get("spark.sql.sources.provider")
        or params.get("classification")
        or serde.rsplit(".", 1)[-1]
    )
    if table.get("IsRegisteredWithLakeFormation") or table_type == "GOVERNED":
        return "lake_formation", provider
    if table_type == "ICEBERG":
        return "iceberg", provider
    if str(table.get("TableType", "")).upper() == "VIRTUAL_VIEW":
        return "view", provider
    for name in ("delta", "hudi"):
        if name in (table_type.lower(), provider.lower()):
            return name, provider
    return "hive", provider


def is_view(table: Mapping[str, Any]) -> bool:
    """A view has no data of its own: the data check skips it."""
    return str(table.get("TableType", "")).upper() == "VIRTUAL_VIEW"


def check_format(ref: CheckedTable, table: Mapping[str, Any]) -> Check:
    kind, provider = detect(table)
    verdict = FORMATS.get(kind)
    if verdict is None:
        return Check(PASS, KIND, ref.name, HIVE.format(provider=provider or "unknown format"))
    return Check(verdict.status, KIND, ref.name, verdict.reason, verdict.fix)
