"""``metadata`` rows: glue:GetDatabase, glue:GetTable and, for a partitioned table, a
bounded sample of glue:GetPartitions, in the owner's catalog (``CatalogId=<owner>``), as
Spark's Glue client reads them; and the owner catalog's encryption (once per owner,
``catalog_encryption.py``): a catalog on the AWS managed key FAILs, settings the doctor may
not read are named in the reason without changing the row's status."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, List, Mapping, Optional, Tuple

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.aws_errors import AwsError
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.catalog_encryption import (
    CatalogKey,
    aws_managed_reason,
    owner_catalog_key,
    reason_suffix,
)
from dbt_athena_cross_account.doctor.policies import catalog_key_policies, glue_policies
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, Identity
from dbt_athena_cross_account.errors import FAIL, PASS

KIND = "metadata"
PARTITION_SAMPLE = 100  # partitions asked for in one glue:GetPartitions call

READABLE = "glue:GetDatabase and glue:GetTable work with CatalogId={owner}"
READABLE_PARTITIONED = (
    "glue:GetDatabase, glue:GetTable and glue:GetPartitions work with CatalogId={owner}"
)
DENIED = (
    "{action} on {where} in account {owner} was denied ({error}); "
    "both the owner's Glue resource policy and your IAM policy must allow it"
)
MISSING = "{where} does not exist in the Glue catalog of account {owner} ({region})"
MISSING_FIX = "check the source's schema/identifier, or list what exists: {command}"
FAILED = "{action} on {where} failed ({error})"
FAILED_FIX = "retry; if it persists, check the region and the owner account id"
DATABASE = "database '{schema}'"
TABLE = "table '{schema}.{table}'"


@dataclass(frozen=True)
class TableFacts:
    """The Glue table, and a sample of its partitions (None: the table is not partitioned)."""

    table: Mapping[str, Any]
    partitions: Optional[List[Mapping[str, Any]]] = None


def _error_row(
    aws: Aws, ref: CheckedTable, owner: str, identity: Identity, action: str, error: AwsError
) -> Check:
    on_database = action == "glue:GetDatabase"
    where = (DATABASE if on_database else TABLE).format(
        schema=ref.glue_schema, table=ref.glue_table
    )
    if error.denied:
        reason = DENIED.format(action=action, where=where, owner=owner, error=error.text)
        fix = glue_policies(identity, owner, aws.region, ref.glue_schema)
        return Check(FAIL, KIND, ref.name, reason, fix)
    if error.glue_not_found:
        listing = (
            ["get-databases"] if on_database else ["get-tables", "--database-name", ref.glue_schema]
        )
        command = fixes.shell_command(
            "aws", "glue", *listing, "--catalog-id", owner, "--region", aws.region
        )
        reason = MISSING.format(where=where, owner=owner, region=aws.region)
        return Check(FAIL, KIND, ref.name, reason, MISSING_FIX.format(command=command))
    reason = FAILED.format(action=action, where=where, error=error.text)
    return Check(FAIL, KIND, ref.name, reason, FAILED_FIX)


def _glue_calls(aws: Aws, ref: CheckedTable, owner: str) -> Tuple[str, Any]:
    """(the last action tried, its answer): the table facts, or the AwsError that stopped."""
    schema, table = ref.glue_schema, ref.glue_table  # names.glue_name, as the read plan
    database = aws.call(
        ("GetDatabase", owner, schema), "glue", "get_database", CatalogId=owner, Name=schema
    )
    if isinstance(database, AwsError):
        return "glue:GetDatabase", database
    answer = aws.call(
        ("GetTable", owner, schema, table),
        "glue",
        "get_table",
        CatalogId=owner,
        DatabaseName=schema,
        Name=table,
    )
    if isinstance(answer, AwsError) or not answer["Table"].get("PartitionKeys"):
        return "glue:GetTable", answer if isinstance(answer, AwsError) else TableFacts(
            answer["Table"]
        )
    sample = aws.call(
        ("GetPartitions", owner, schema, table),
        "glue",
        "get_partitions",
        CatalogId=owner,
        DatabaseName=schema,
        TableName=table,
        MaxResults=PARTITION_SAMPLE,
        ExcludeColumnSchema=True,
    )
    if isinstance(sample, AwsError):
        return "glue:GetPartitions", sample
    partitions = list(sample.get("Partitions") or [])[:PARTITION_SAMPLE]
    return "glue:GetPartitions", TableFacts(answer["Table"], partitions)


def _with_catalog_key(aws: Aws, row: Check, owner: str, identity: Identity) -> Check:
    """``row`` judged with the owner catalog's encryption too."""
    found = owner_catalog_key(aws, owner)
    if not (isinstance(found, CatalogKey) and found.aws_managed):
        return replace(row, reason=row.reason + reason_suffix(found, identity, aws.region, owner))
    reason = aws_managed_reason(found, owner)
    fix = catalog_key_policies(identity, owner, aws.region)
    if row.status == FAIL:  # both problems: the Glue one as found, then the key
        reason, fix = f"{row.reason}; {reason}", f"{row.fix}\n{fix}"
    return Check(FAIL, KIND, row.subject, reason, fix)


def check_metadata(
    aws: Aws, ref: CheckedTable, owner: str, identity: Identity
) -> Tuple[Check, Optional[TableFacts]]:
    """(row, the table facts, or None when the table cannot be read)."""
    action, answer = _glue_calls(aws, ref, owner)
    if isinstance(answer, AwsError):
        row = _error_row(aws, ref, owner, identity, action, answer)
        return _with_catalog_key(aws, row, owner, identity), None
    template = READABLE if answer.partitions is None else READABLE_PARTITIONED
    row = Check(PASS, KIND, ref.name, template.format(owner=owner))
    return _with_catalog_key(aws, row, owner, identity), answer
