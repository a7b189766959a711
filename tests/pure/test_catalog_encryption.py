"""doctor/catalog_encryption.py: the owner catalog's encryption mode and key -> the verdict,
and the fix a catalog on the AWS managed key gets."""

from __future__ import annotations

import json
import shlex

import pytest

from dbt_athena_cross_account.doctor.catalog_encryption import CatalogKey, judge
from dbt_athena_cross_account.doctor.policies import catalog_key_policies
from dbt_athena_cross_account.doctor.rows import Identity

OWNER = "999999999999"
CMK = "arn:aws:kms:eu-west-1:999999999999:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def settings(mode=None, key=None):
    at_rest = {}
    if mode is not None:
        at_rest["CatalogEncryptionMode"] = mode
    if key is not None:
        at_rest["SseAwsKmsKeyId"] = key
    return {"DataCatalogEncryptionSettings": {"EncryptionAtRest": at_rest}}


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (settings("DISABLED"), CatalogKey("DISABLED")),
        (settings("DISABLED", "alias/aws/glue"), CatalogKey("DISABLED")),  # key unused
        ({}, CatalogKey("DISABLED")),  # nothing set: Glue's default is not encrypted
        (settings("SSE-KMS", "alias/aws/glue"), CatalogKey("SSE-KMS", "alias/aws/glue", True)),
        (
            settings("SSE-KMS", "arn:aws:kms:eu-west-1:999999999999:alias/aws/glue"),
            CatalogKey("SSE-KMS", "arn:aws:kms:eu-west-1:999999999999:alias/aws/glue", True),
        ),
        (settings("SSE-KMS"), CatalogKey("SSE-KMS", "", True)),  # no key: the AWS managed key
        (settings("SSE-KMS", "  "), CatalogKey("SSE-KMS", "", True)),
        (
            settings("SSE-KMS-WITH-SERVICE-ROLE", "alias/aws/glue"),
            CatalogKey("SSE-KMS-WITH-SERVICE-ROLE", "alias/aws/glue", True),
        ),
        (settings("SSE-KMS", CMK), CatalogKey("SSE-KMS", CMK, False)),
        (settings("sse-kms", "alias/team-glue"), CatalogKey("SSE-KMS", "alias/team-glue", False)),
        # an alias that merely ends in aws/glue is the customer's own
        (
            settings("SSE-KMS", "alias/my-aws/glue"),
            CatalogKey("SSE-KMS", "alias/my-aws/glue", False),
        ),
    ],
)
def test_mode_and_key_give_the_verdict(answer, expected):
    assert judge(answer) == expected


def test_the_fix_is_the_owner_command_and_kms_decrypt_for_both_roles():
    identity = Identity(
        account="123456789012",
        principal="arn:aws:iam::123456789012:role/dbt",
        execution_role="arn:aws:iam::123456789012:role/spark-exec",
    )
    fix = catalog_key_policies(identity, OWNER, "eu-west-1")
    command = next(
        line for line in fix.splitlines() if "put-data-catalog-encryption-settings" in line
    )
    words = shlex.split(command[command.index("aws glue") : command.rindex(")")])
    assert words[:8] == [
        "aws",
        "glue",
        "put-data-catalog-encryption-settings",
        "--catalog-id",
        OWNER,
        "--region",
        "eu-west-1",
        "--data-catalog-encryption-settings",
    ]
    assert json.loads(words[8]) == {
        "EncryptionAtRest": {
            "CatalogEncryptionMode": "SSE-KMS",
            "SseAwsKmsKeyId": "<customer managed key ARN>",
        }
    }
    roles = "arn:aws:iam::123456789012:role/dbt, arn:aws:iam::123456789012:role/spark-exec"
    assert f"key policy must allow kms:Decrypt for {roles}" in fix
    assert f"2) consumer account 123456789012: attach to {roles}:" in fix
    policy = json.loads(fix[fix.index("{", fix.index("2) consumer")) :])
    assert policy["Statement"] == [
        {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": "<customer managed key ARN>"}
    ]
