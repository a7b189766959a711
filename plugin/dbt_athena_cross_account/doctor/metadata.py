"""``metadata`` rows: glue:GetDatabase and glue:GetTable in the owner's catalog
(``CatalogId=<owner>``), as Spark's Glue client reads them."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.aws_errors import AwsError
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.policies import glue_policies
from dbt_athena_cross_account.doctor.rows import FAIL, PASS, Check, CheckedTable, Identity

KIND = "metadata"
READABLE = "glue:GetDatabase and glue:GetTable work with CatalogId={owner}"
DENIED = (
    "{action} on {where} in account {owner} was denied ({error}); "
    "both the owner's Glue resource policy and your IAM policy must allow it"
)
MISSING = "{where} does not exist in the Glue catalog of account {owner} ({region})"
MISSING_FIX = "check the source's schema/identifier, or list what exists: {command}"
FAILED = "{action} on {where} failed ({error})"
FAILED_FIX = "retry; if it persists, check the region and the owner account id"

Table = Mapping[str, Any]


def _error_row(
    aws: Aws, ref: CheckedTable, owner: str, identity: Identity, action: str, error: AwsError
) -> Check:
    on_database = action == "glue:GetDatabase"
    where = f"database '{ref.schema}'" if on_database else f"table '{ref.schema}.{ref.table}'"
    if error.denied:
        reason = DENIED.format(action=action, where=where, owner=owner, error=error.text)
        return Check(
            FAIL, KIND, ref.name, reason, glue_policies(identity, owner, aws.region, ref.schema)
        )
    if error.glue_not_found:
        listing = (
            ["get-databases"] if on_database else ["get-tables", "--database-name", ref.schema]
        )
        command = fixes.shell_command(
            "aws", "glue", *listing, "--catalog-id", owner, "--region", aws.region
        )
        reason = MISSING.format(where=where, owner=owner, region=aws.region)
        return Check(FAIL, KIND, ref.name, reason, MISSING_FIX.format(command=command))
    reason = FAILED.format(action=action, where=where, error=error.text)
    return Check(FAIL, KIND, ref.name, reason, FAILED_FIX)


def check_metadata(
    aws: Aws, ref: CheckedTable, owner: str, identity: Identity
) -> Tuple[Check, Optional[Table]]:
    """(row, the Glue table or None when it cannot be read)."""
    database = aws.call(
        ("GetDatabase", owner, ref.schema.lower()),
        aws.glue.get_database,
        CatalogId=owner,
        Name=ref.schema,
    )
    if isinstance(database, AwsError):
        return _error_row(aws, ref, owner, identity, "glue:GetDatabase", database), None
    answer = aws.call(
        ("GetTable", owner, ref.schema.lower(), ref.table.lower()),
        aws.glue.get_table,
        CatalogId=owner,
        DatabaseName=ref.schema,
        Name=ref.table,
    )
    if isinstance(answer, AwsError):
        return _error_row(aws, ref, owner, identity, "glue:GetTable", answer), None
    return Check(PASS, KIND, ref.name, READABLE.format(owner=owner)), answer["Table"]
