"""The report's rows, and the plain facts the checks take (nothing here calls AWS)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from dbt_athena_cross_account.errors import FAIL, PASS, WARN
from dbt_athena_cross_account.names import catalog_key, glue_name

PLACEHOLDER_PRINCIPAL = "arn:aws:iam::<your account>:role/<your dbt role>"
# What dbt-athena's `spark_requester_pays: true` adds to a model's Spark session.
REQUESTER_PAYS_PROPERTY = "spark.hadoop.fs.s3.useRequesterPaysHeader"


@dataclass(frozen=True)
class Check:
    """One row of the report: ``kind`` is the check family (registration, data, ...)."""

    status: str
    kind: str
    subject: str
    reason: str
    fix: str = ""
    #: a ``role`` row's role, as the Spark probe's rows name it after "through" (the ARN, and
    #: the external id when one is set): those rows settle the row's status
    through: str = ""

    def as_dict(self) -> Dict[str, str]:
        return {
            "status": self.status,
            "kind": self.kind,
            "subject": self.subject,
            "reason": self.reason,
            "fix": self.fix,
        }


@dataclass
class CheckedTable:
    """A table the doctor checks: ``catalog.schema.table``, the models that read it,
    whether its S3 data is read with ``RequestPayer=requester``, and the format each model's
    source names in its meta (``spark_table_format``; absent or None: none named)."""

    catalog: str
    schema: str
    table: str
    models: Tuple[str, ...] = ()
    requester_pays: bool = False
    #: (model, the format its source's meta names): what a read through a role needs
    formats: Tuple[Tuple[str, Any], ...] = ()

    @property
    def name(self) -> str:
        """As the user wrote it (the report's rows name it so)."""
        return f"{self.catalog}.{self.schema}.{self.table}"

    @property
    def glue_schema(self) -> str:
        """The database as Glue stores it, normalised as the read plan does (names.glue_name)."""
        return glue_name(self.schema)

    @property
    def glue_table(self) -> str:
        """The table as Glue stores it, normalised as the read plan does (names.glue_name)."""
        return glue_name(self.table)

    @property
    def key(self) -> str:
        """One key per table Glue holds: the same table written two ways is checked once."""
        return f"{catalog_key(self.catalog)}.{self.glue_schema}.{self.glue_table}"


@dataclass
class ModelFacts:
    """What the graph says about one Python model."""

    unique_id: str
    opted_in: bool
    spark_properties: Mapping[str, Any]
    catalogs: Tuple[str, ...] = ()
    requester_pays: bool = False  # the model's spark_requester_pays config
    roles: Any = None  # the model's spark_cross_account_roles (roles.py), as configured

    @property
    def pays_requester(self) -> bool:
        """True when Spark sends RequestPayer: the config, or the property it sets."""
        flag = str((self.spark_properties or {}).get(REQUESTER_PAYS_PROPERTY, "")).lower()
        return self.requester_pays or flag == "true"


@dataclass
class Identity:
    """Who the checks run as, and who Spark runs as."""

    account: Optional[str] = None
    arn: Optional[str] = None
    principal: Optional[str] = None  # an IAM role/user ARN usable in a policy
    execution_role: Optional[str] = None
    work_group: Optional[str] = None

    def principals(self) -> List[str]:
        found = [p for p in (self.principal, self.execution_role) if p]
        return list(dict.fromkeys(found)) or [PLACEHOLDER_PRINCIPAL]


def counts(rows: Iterable[Check]) -> Dict[str, int]:
    result = {PASS: 0, WARN: 0, FAIL: 0}
    for row in rows:
        result[row.status] += 1
    return result
