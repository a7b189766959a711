"""Who the checks run as (sts:GetCallerIdentity) and who Spark runs as (the work group's
execution role, athena:GetWorkGroup). Policies the doctor prints name both."""

from __future__ import annotations

from typing import List, Optional, Tuple

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.aws_errors import AwsError
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.policies import policy_principal
from dbt_athena_cross_account.doctor.rows import Check, Identity
from dbt_athena_cross_account.errors import WARN

KIND = "identity"
CALLER_UNKNOWN = "sts:GetCallerIdentity failed ({error}); policies below use placeholders"
CALLER_FIX = "check the credentials of your dbt profile (aws_profile_name / assume_role_arn)"
NO_ROLE = "Spark work group '{work_group}' has no execution role, so Spark sessions cannot start"
WORK_GROUP_UNREADABLE = (
    "athena:GetWorkGroup on '{work_group}' failed ({error}), "
    "so the policies below name only the dbt role, not Spark's execution role"
)
WORK_GROUP_FIX = "grant athena:GetWorkGroup on workgroup/{work_group} to the dbt role"


def _execution_role(aws: Aws, work_group: str) -> Tuple[Optional[str], List[Check]]:
    answer = aws.request("athena", "get_work_group", WorkGroup=work_group)
    if isinstance(answer, AwsError):
        reason = WORK_GROUP_UNREADABLE.format(work_group=work_group, error=answer.text)
        return None, [
            Check(WARN, KIND, work_group, reason, WORK_GROUP_FIX.format(work_group=work_group))
        ]
    role = ((answer.get("WorkGroup") or {}).get("Configuration") or {}).get("ExecutionRole")
    if role:
        return role, []
    fix = fixes.shell_command(
        "aws",
        "athena",
        "update-work-group",
        "--work-group",
        work_group,
        "--configuration-updates",
        "ExecutionRole=<role arn>",
    )
    return None, [Check(WARN, KIND, work_group, NO_ROLE.format(work_group=work_group), fix)]


def find_identity(aws: Aws, work_group: Optional[str]) -> Tuple[Identity, List[Check]]:
    identity = Identity(work_group=work_group)
    rows: List[Check] = []
    caller = aws.request("sts", "get_caller_identity")
    if isinstance(caller, AwsError):
        rows.append(Check(WARN, KIND, "sts", CALLER_UNKNOWN.format(error=caller.text), CALLER_FIX))
    else:
        identity.account, identity.arn = caller.get("Account"), caller.get("Arn")
        identity.principal = policy_principal(identity.arn)
    if work_group:
        identity.execution_role, found = _execution_role(aws, work_group)
        rows += found
    return identity, rows
