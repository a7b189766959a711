"""STS AssumeRole over the emulator's endpoint into a seeded role (``accounts.<id>.roles``)
is decided as STS decides it (trust, external id, the hour of a chained session), with STS's
error code and text; moto alone grants every AssumeRole."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from athena_spark_emulator import Emulator

OWNER = "321321321321"


@pytest.fixture
def sts(emulator: Emulator):
    identity = emulator.client("sts").get_caller_identity()
    caller, account = identity["Arn"], identity["Account"]
    emulator.seed(
        {
            "accounts": {
                OWNER: {
                    "roles": {
                        "trusts-me": {"trusts": [account]},
                        "with-id": {"trusts": [account], "external_id": "partner-42"},
                        "someone-elses": {"trusts": ["arn:aws:iam::111111111111:role/Other"]},
                    }
                }
            }
        }
    )
    return emulator.client("sts"), caller


def refusal(call) -> ClientError:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value


def test_a_trusted_caller_assumes_the_role_and_acts_as_it(sts):
    client, _ = sts
    arn = f"arn:aws:iam::{OWNER}:role/trusts-me"
    answer = client.assume_role(RoleArn=arn, RoleSessionName="dbt")
    assert answer["AssumedRoleUser"]["Arn"] == f"arn:aws:sts::{OWNER}:assumed-role/trusts-me/dbt"


def test_a_role_that_trusts_someone_else_is_access_denied_naming_caller_and_role(sts):
    client, caller = sts
    arn = f"arn:aws:iam::{OWNER}:role/someone-elses"
    error = refusal(lambda: client.assume_role(RoleArn=arn, RoleSessionName="dbt"))
    assert error.response["Error"]["Code"] == "AccessDenied"
    assert error.response["Error"]["Message"] == (
        f"User: {caller} is not authorized to perform: sts:AssumeRole on resource: {arn}"
    )


def test_the_external_id_must_be_the_one_the_role_trusts(sts):
    client, _ = sts
    arn = f"arn:aws:iam::{OWNER}:role/with-id"
    for kwargs in ({}, {"ExternalId": "not-partner-42"}):
        error = refusal(
            lambda kw=kwargs: client.assume_role(RoleArn=arn, RoleSessionName="dbt", **kw)
        )
        assert error.response["Error"]["Code"] == "AccessDenied"
    client.assume_role(RoleArn=arn, RoleSessionName="dbt", ExternalId="partner-42")
