"""The owner's Glue Data Catalog encryption: can another account read its metadata at all?

The ``metadata`` row reads the owner catalog's settings once per owner account per run
(``glue:GetDataCatalogEncryptionSettings`` with ``CatalogId=<owner>``) and judges them with
:func:`judge`, a pure rule:

* ``EncryptionAtRest.CatalogEncryptionMode`` is ``DISABLED``, ``SSE-KMS`` or
  ``SSE-KMS-WITH-SERVICE-ROLE`` (Glue API reference, EncryptionAtRest:
  https://docs.aws.amazon.com/glue/latest/webapi/API_EncryptionAtRest.html).
  ``DISABLED`` (or no setting at all): nothing to decrypt, the metadata is readable.
* Athena documents that "catalogs that are encrypted with an AWS managed key cannot be
  queried across accounts; for catalogs that you want to query across accounts, use a
  customer managed key (KMS_CMK) instead" (Configure cross-account access to AWS Glue data
  catalogs, Considerations and limitations:
  https://docs.aws.amazon.com/athena/latest/ug/security-iam-cross-account-glue-catalog-access.html).
  An AWS managed key's policy cannot be changed, so no other account can be let in
  (https://docs.aws.amazon.com/glue/latest/dg/encrypt-glue-data-catalog.html, "AWS managed
  keys"). So the AWS managed key is a FAIL, with the fix: a customer managed key.
* ``SseAwsKmsKeyId`` names the key. The AWS managed key of Glue has the alias
  ``aws/glue``: ``alias/aws/glue``, or its alias ARN ``arn:aws:kms:<region>:<owner>:alias/
  aws/glue``. With SSE-KMS and no key id, Glue encrypts with that AWS managed key (the
  same page: "Encryption at rest automatically integrates with AWS KMS for managing the AWS
  managed key for AWS Glue ... If the AWS managed key doesn't exist when you turn on
  metadata encryption, AWS KMS automatically creates a new key for you").
* Any other key id (a key ARN, key id, or another alias) is taken as customer managed: a
  ``key/<uuid>`` ARN alone does not say who manages the key, and ``kms:DescribeKey``, which
  would, is refused to other accounts by an AWS managed key's policy. Reading a customer
  managed key's catalog needs ``kms:Decrypt`` on it for every role that reads
  (https://docs.aws.amazon.com/athena/latest/ug/access-encrypted-data-glue-data-catalog.html).

Nothing here calls AWS except :func:`owner_catalog_key` (one memoized call per owner).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Union

from dbt_athena_cross_account.doctor.aws_errors import AwsError
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.policies import catalog_arn
from dbt_athena_cross_account.doctor.rows import Identity

DISABLED = "DISABLED"
AWS_MANAGED_ALIAS = "alias/aws/glue"
ACTION = "glue:GetDataCatalogEncryptionSettings"

NOT_ENCRYPTED = "; the owner's catalog is not encrypted at rest"
CUSTOMER_MANAGED = (
    "; the owner's catalog is encrypted with {key} (taken as a customer managed key: "
    "kms:Decrypt on it is needed for {roles})"
)
AWS_MANAGED = (
    "the Glue catalog of account {owner} is encrypted at rest with the AWS managed key "
    "aws/glue ({setting}), and a catalog encrypted with an AWS managed key cannot be read "
    "from another account"
)
UNREADABLE = (
    "; the owner's catalog encryption settings could not be read ({error}): "
    "to check them, allow {action} on {catalog} "
    "in the owner's Glue resource policy and your IAM policy"
)


@dataclass(frozen=True)
class CatalogKey:
    """How the owner's catalog is encrypted: ``mode`` as Glue says, ``key`` the key id
    (``""``: none given), and whether that is the AWS managed key."""

    mode: str
    key: str = ""
    aws_managed: bool = False

    @property
    def encrypted(self) -> bool:
        return self.mode != DISABLED


def is_aws_managed_key(key: str) -> bool:
    """``alias/aws/glue`` or its alias ARN (``arn:aws:kms:<region>:<account>:alias/aws/glue``)."""
    key = key.strip()
    return key == AWS_MANAGED_ALIAS or (
        key.startswith("arn:") and key.endswith(":" + AWS_MANAGED_ALIAS)
    )


def judge(settings: Mapping[str, Any]) -> CatalogKey:
    """The verdict on a GetDataCatalogEncryptionSettings answer (the module docstring)."""
    at_rest = (settings.get("DataCatalogEncryptionSettings") or {}).get("EncryptionAtRest") or {}
    mode = str(at_rest.get("CatalogEncryptionMode") or DISABLED).upper()
    if mode == DISABLED:
        return CatalogKey(DISABLED)
    key = str(at_rest.get("SseAwsKmsKeyId") or "").strip()
    return CatalogKey(mode, key, not key or is_aws_managed_key(key))


def owner_catalog_key(aws: Aws, owner: str) -> Union[CatalogKey, AwsError]:
    """The owner's catalog encryption, read once per owner for the whole run."""
    answer = aws.call(
        ("GetDataCatalogEncryptionSettings", owner),
        "glue",
        "get_data_catalog_encryption_settings",
        CatalogId=owner,
    )
    return answer if isinstance(answer, AwsError) else judge(answer)


def reason_suffix(
    found: Union[CatalogKey, AwsError], identity: Identity, region: str, owner: str
) -> str:
    """What a readable verdict or an unreadable setting adds to the row's reason."""
    if isinstance(found, AwsError):
        return UNREADABLE.format(
            error=found.text, action=ACTION, catalog=catalog_arn(region, owner)
        )
    if not found.encrypted:
        return NOT_ENCRYPTED
    return CUSTOMER_MANAGED.format(key=found.key, roles=", ".join(identity.principals()))


def aws_managed_reason(found: CatalogKey, owner: str) -> str:
    setting = f"{found.mode}, " + (
        f"SseAwsKmsKeyId {found.key}" if found.key else "no SseAwsKmsKeyId"
    )
    return AWS_MANAGED.format(owner=owner, setting=setting)
