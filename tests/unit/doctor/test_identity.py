"""identity: who the checks run as, and the Spark work group's execution role."""

from __future__ import annotations

from dbt_athena_cross_account.doctor.policies import policy_principal
from dbt_athena_cross_account.doctor.rows import WARN
from tests.doctor_support import EXECUTION_ROLE
from tests.unit.doctor.helpers import CALLER, only, run


def test_identity_names_caller_and_execution_role(aws):
    identity, rows = run(aws, catalogs=("partner_catalog",))
    assert identity.arn == CALLER and identity.account == "123456789012"
    assert identity.execution_role == EXECUTION_ROLE
    assert [r for r in rows if r.kind == "identity"] == []


def test_work_group_without_execution_role_warns(aws):
    _, rows = run(aws, catalogs=("partner_catalog",), work_group="spark_norole")
    row = only(rows, "identity", "spark_norole")
    assert row.status == WARN and "no execution role" in row.reason
    assert "update-work-group --work-group spark_norole" in row.fix


def test_unreadable_identity_warns_and_policies_use_placeholders(aws):
    identity, rows = run(aws, user="dbt_none", catalogs=("partner_catalog",))
    sts_row = only(rows, "identity", "sts")
    assert sts_row.status == WARN and "sts:GetCallerIdentity failed" in sts_row.reason
    wg_row = only(rows, "identity", "spark_wg")
    assert wg_row.status == WARN and "athena:GetWorkGroup" in wg_row.reason
    assert identity.principals() == ["arn:aws:iam::<your account>:role/<your dbt role>"]


def test_assumed_role_session_becomes_role_principal():
    arn = "arn:aws:sts::123456789012:assumed-role/dbt-runner/botocore-session-1"
    assert policy_principal(arn) == "arn:aws:iam::123456789012:role/dbt-runner"
    assert policy_principal(CALLER) == CALLER
