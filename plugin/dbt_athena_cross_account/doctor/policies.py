"""The policy documents a fix prints, filled in with the accounts, roles and resources.

Both sides of a cross-account read need a statement: the owner (Glue resource policy,
bucket policy, KMS key policy) and the consumer (an IAM policy on the dbt role and on
Spark's execution role).
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Mapping, Optional

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.rows import Identity

GLUE_READ_ACTIONS = [
    "glue:GetDatabase",
    "glue:GetDatabases",
    "glue:GetTable",
    "glue:GetTables",
    "glue:GetPartition",
    "glue:GetPartitions",
    "glue:BatchGetPartition",
]
YOUR_ACCOUNT = "<your account>"
POLICY_FILE = "file://policy.json"

# Long templates are split only where a clause ends, so every phrase stays greppable.
GLUE_FIX = (
    "1) owner account {owner}: add to its Glue catalog resource policy ({command}):\n"
    "{owner_policy}\n"
    "2) consumer account {account}: attach to {roles}:\n"
    "{consumer_policy}"
)
S3_FIX = (
    "1) bucket owner: add to the bucket policy of s3://{bucket} ({command}):\n"
    "{bucket_policy}\n"
    "2) consumer account {account}: attach to {roles}:\n"
    "{consumer_policy}"
)
CATALOG_KEY_FIX = (
    "1) owner account {owner}: encrypt the Glue catalog with a customer managed KMS key "
    "({command}); only metadata written after the change uses the new key, "
    "and the key policy must allow kms:Decrypt for {roles}\n"
    "2) consumer account {account}: attach to {roles}:\n"
    "{consumer_policy}"
)
CUSTOMER_KEY = "<customer managed key ARN>"
KMS_FIX = (
    "\n3) the bucket uses SSE-KMS with key {key}: "
    "its key policy (in the key owner's account) must allow kms:Decrypt for {roles}."
)

_ASSUMED_ROLE = re.compile(r"^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$")
_STRING_LIST = re.compile(r'\[\s+("[^"\n]*"(?:,\s+"[^"\n]*")*)\s+\]')


def policy_principal(arn: Optional[str]) -> Optional[str]:
    """The IAM principal of a caller ARN: an assumed-role session becomes its role."""
    if not arn:
        return None
    match = _ASSUMED_ROLE.match(arn)
    if match:
        partition, account, role = match.groups()
        return f"arn:{partition}:iam::{account}:role/{role}"
    return arn


def _json(document: Mapping[str, Any]) -> str:
    """Indented JSON with lists of strings kept on one line (shorter, still valid)."""
    text = json.dumps(document, indent=2)
    return _STRING_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)


def _document(statements: List[Dict[str, Any]]) -> Dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": statements}


def catalog_arn(region: str, owner: str) -> str:
    """The ARN of ``owner``'s Glue Data Catalog in ``region``."""
    return f"arn:aws:glue:{region}:{owner}:catalog"


def glue_policies(identity: Identity, owner: str, region: str, database: str) -> str:
    """Both policy documents a cross-account Glue read needs, filled in."""
    resources = [
        catalog_arn(region, owner),
        f"arn:aws:glue:{region}:{owner}:database/{database}",
        f"arn:aws:glue:{region}:{owner}:table/{database}/*",
    ]
    owner_side = {
        "Effect": "Allow",
        "Principal": {"AWS": identity.principals()},
        "Action": GLUE_READ_ACTIONS,
        "Resource": resources,
    }
    consumer = {"Effect": "Allow", "Action": GLUE_READ_ACTIONS, "Resource": resources}
    return GLUE_FIX.format(
        owner=owner,
        command=fixes.shell_command(
            "aws",
            "glue",
            "put-resource-policy",
            "--region",
            region,
            "--policy-in-json",
            POLICY_FILE,
        ),
        owner_policy=_json(_document([owner_side])),
        account=identity.account or YOUR_ACCOUNT,
        roles=", ".join(identity.principals()),
        consumer_policy=_json(_document([consumer])),
    )


def s3_policies(identity: Identity, bucket: str, prefix: str, kms_key: Optional[str]) -> str:
    """The bucket policy and the consumer's IAM policy (plus KMS) for reading ``prefix``."""
    objects = f"arn:aws:s3:::{bucket}/{prefix}*"
    statements: List[Dict[str, Any]] = [
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{bucket}"},
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": objects},
    ]
    if prefix:
        statements[0]["Condition"] = {"StringLike": {"s3:prefix": [f"{prefix}*"]}}
    owner_side = [{**s, "Principal": {"AWS": identity.principals()}} for s in statements]
    consumer = [dict(s) for s in statements]
    if kms_key:
        consumer.append({"Effect": "Allow", "Action": "kms:Decrypt", "Resource": kms_key})
    roles = ", ".join(identity.principals())
    text = S3_FIX.format(
        bucket=bucket,
        command=fixes.shell_command("aws", "s3api", "get-bucket-policy", "--bucket", bucket),
        bucket_policy=_json(_document(owner_side)),
        account=identity.account or YOUR_ACCOUNT,
        roles=roles,
        consumer_policy=_json(_document(consumer)),
    )
    return text + (KMS_FIX.format(key=kms_key, roles=roles) if kms_key else "")


def catalog_key_policies(identity: Identity, owner: str, region: str) -> str:
    """An owner catalog on the AWS managed key: the owner's
    ``aws glue put-data-catalog-encryption-settings`` line with a customer managed key, and
    kms:Decrypt on that key for the dbt role and Spark's execution role."""
    settings = {
        "EncryptionAtRest": {"CatalogEncryptionMode": "SSE-KMS", "SseAwsKmsKeyId": CUSTOMER_KEY}
    }
    command = fixes.shell_command(
        "aws",
        "glue",
        "put-data-catalog-encryption-settings",
        "--catalog-id",
        owner,
        "--region",
        region,
        "--data-catalog-encryption-settings",
        json.dumps(settings, separators=(",", ":")),
    )
    consumer = {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": CUSTOMER_KEY}
    return CATALOG_KEY_FIX.format(
        owner=owner,
        command=command,
        roles=", ".join(identity.principals()),
        account=identity.account or YOUR_ACCOUNT,
        consumer_policy=_json(_document([consumer])),
    )
