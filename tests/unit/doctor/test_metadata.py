"""metadata: glue:GetDatabase and glue:GetTable with CatalogId=<owner>."""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.doctor.rows import FAIL, PASS
from tests.doctor_support import EXECUTION_ROLE, OWNER_ACCOUNT, REGION
from tests.unit.doctor.helpers import CALLER, json_blocks, only, run


def test_metadata_passes_with_owner_catalog_id(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.orders",))
    row = only(rows, "metadata", "partner_catalog.sales.orders")
    assert row.status == PASS and f"CatalogId={OWNER_ACCOUNT}" in row.reason
    assert "GetDatabase" in aws.actions() and "GetTable" in aws.actions()


def test_owner_side_denial_prints_both_filled_in_policies(aws):
    _, rows = run(aws, tables=("partner_catalog.hr.salaries",))
    row = only(rows, "metadata", "partner_catalog.hr.salaries")
    assert row.status == FAIL
    assert "glue:GetDatabase on database 'hr' in account 999999999999 was denied" in row.reason
    owner_policy, consumer_policy = json_blocks(row.fix)
    statement = owner_policy["Statement"][0]
    assert statement["Principal"]["AWS"] == [CALLER, EXECUTION_ROLE]
    expected = [
        f"arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:catalog",
        f"arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:database/hr",
        f"arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:table/hr/*",
    ]
    assert statement["Resource"] == expected
    assert {"glue:GetDatabase", "glue:GetTable"} <= set(statement["Action"])
    assert consumer_policy["Statement"][0]["Resource"] == expected
    assert "Principal" not in consumer_policy["Statement"][0]
    assert "owner account 999999999999" in row.fix and "consumer account 123456789012" in row.fix
    assert "aws glue put-resource-policy --region eu-west-1" in row.fix
    # no format or data rows for a table whose metadata cannot be read
    assert {r.kind for r in rows if r.subject == "partner_catalog.hr.salaries"} == {"metadata"}


def test_identity_side_glue_denial_fails_with_policies(aws):
    _, rows = run(aws, user="dbt_noglue", tables=("partner_catalog.sales.orders",))
    row = only(rows, "metadata", "partner_catalog.sales.orders")
    assert row.status == FAIL and "was denied" in row.reason and "dbt_noglue" in row.reason
    owner_policy, _ = json_blocks(row.fix)
    assert owner_policy["Statement"][0]["Principal"]["AWS"][0].endswith("user/dbt_noglue")


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("partner_catalog.sales.nope", "table 'sales.nope' does not exist"),
        ("partner_catalog.nodb.orders", "database 'nodb' does not exist"),
    ],
)
def test_missing_database_or_table_fails(aws, table, expected):
    _, rows = run(aws, tables=(table,))
    row = only(rows, "metadata", table)
    assert row.status == FAIL and expected in row.reason and "--catalog-id 999999999999" in row.fix


def test_other_errors_fail_with_the_aws_error(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.flaky_orders",))
    row = only(rows, "metadata", "partner_catalog.sales.flaky_orders")
    assert row.status == FAIL and "glue:GetTable" in row.reason
    assert "InternalServiceException" in row.reason and "retry" in row.fix
