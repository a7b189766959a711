"""The emulator's STS AssumeRole (sts_roles.py): what AWS refuses, with STS's texts."""

from __future__ import annotations

import pytest

from athena_spark_emulator.accounts.sts_roles import Roles, StsRefusal

EXECUTION_ROLE = "arn:aws:iam::123456789012:role/AthenaSparkExecutionRole"
READER = "arn:aws:iam::321321321321:role/dbt-reader"


@pytest.fixture
def roles() -> Roles:
    found = Roles()
    found.add("321321321321", "dbt-reader", [EXECUTION_ROLE])
    found.add("321321321321", "with-id", ["123456789012"], external_id="partner-42")
    found.add("321321321321", "root-trust", ["arn:aws:iam::123456789012:root"])
    return found


def test_a_trusted_caller_assumes_the_role(roles):
    assert roles.assume(EXECUTION_ROLE, READER).account == "321321321321"
    # an account id or the account's root in the trust: anyone in that account
    other = "arn:aws:iam::123456789012:role/Other"
    assert roles.assume(other, "arn:aws:iam::321321321321:role/root-trust")
    assert roles.assume(other, "arn:aws:iam::321321321321:role/with-id", "partner-42")


@pytest.mark.parametrize(
    "caller, role, external_id",
    [
        ("arn:aws:iam::999999999999:role/Someone", READER, None),  # not in the trust
        (EXECUTION_ROLE, "arn:aws:iam::321321321321:role/with-id", None),  # id missing
        (EXECUTION_ROLE, "arn:aws:iam::321321321321:role/with-id", "wrong"),  # wrong id
        (EXECUTION_ROLE, "arn:aws:iam::321321321321:role/nope", None),  # no such role
    ],
)
def test_refusals_all_read_alike_as_sts_says_them(roles, caller, role, external_id):
    with pytest.raises(StsRefusal) as caught:
        roles.assume(caller, role, external_id)
    text = str(caught.value)
    assert text.startswith("software.amazon.awssdk.services.sts.model.StsException: User: ")
    assert f"is not authorized to perform: sts:AssumeRole on resource: {role}" in text


def test_role_chaining_is_limited_to_an_hour(roles):
    assert roles.assume(EXECUTION_ROLE, READER, duration_seconds=3600)
    with pytest.raises(
        StsRefusal, match="exceeds the 1 hour session limit for roles assumed by role chaining"
    ):
        roles.assume(EXECUTION_ROLE, READER, duration_seconds=3601)
    assert roles.assume(EXECUTION_ROLE, READER, duration_seconds=7200, chained=False)
    with pytest.raises(StsRefusal, match="greater than or equal to 900"):
        roles.assume(EXECUTION_ROLE, READER, duration_seconds=600)
