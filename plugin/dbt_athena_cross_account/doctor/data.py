"""``data`` rows: can the table's S3 data be listed and read (s3:ListBucket, s3:GetObject,
and kms:Decrypt when the bucket uses SSE-KMS)?"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional, Tuple

from dbt_athena_cross_account.doctor.aws_errors import AwsError, attempt
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.policies import s3_policies
from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN, Check, CheckedTable, Identity

KIND = "data"
READ = "listed and read 1 byte of {location}{kms}"
KMS_DECRYPTS = ", SSE-KMS key {key} decrypts"
NO_LOCATION = "the table has no S3 location ({location}), so its data cannot be checked"
NO_LOCATION_FIX = "ask the owner which location the table reads; Spark reads only s3:// locations"
EMPTY = "listing {location} works but it holds no files, so the read returns no rows"
EMPTY_FIX = "check the table's StorageDescriptor.Location with the owner (aws glue get-table)"
NO_BUCKET = "bucket '{bucket}' of {location} does not exist"
NO_BUCKET_FIX = (
    "ask the owner to fix the table's location (aws glue update-table) or recreate the bucket"
)
DENIED = (
    "{what} was denied ({step}, {error}) although the Glue metadata is readable: "
    "bucket '{bucket}' needs its bucket policy and your IAM policy to allow it{kms}"
)
KMS_NEEDED = "; the bucket uses SSE-KMS ({key}), so kms:Decrypt is needed too"
KMS_UNKNOWN = (
    "; the bucket's default encryption could not be read ({code}): "
    "if it uses SSE-KMS, kms:Decrypt on its key is needed too"
)
FAILED = "{step} on {location} failed ({error})"
FAILED_FIX = "retry; if it persists, check the bucket's region and policy"
AWS_MANAGED_KEY = "the AWS managed key aws/s3"

_S3_URI = re.compile(r"^s3[an]?://([^/]+)/?(.*)$")


def split_s3_uri(location: str) -> Optional[Tuple[str, str]]:
    """(bucket, prefix ending in '/' or empty) of an s3:// URI, else None."""
    match = _S3_URI.match(location or "")
    if not match:
        return None
    bucket, key = match.groups()
    if key and not key.endswith("/"):
        key += "/"
    return bucket, key


def _kms_key(aws: Aws, bucket: str) -> Tuple[Optional[str], str]:
    """(KMS key, or 'aws/s3' when the bucket defaults to SSE-KMS; a note when unreadable)."""
    answer = attempt(aws.s3.get_bucket_encryption, Bucket=bucket)
    if isinstance(answer, AwsError):
        if answer.code == "ServerSideEncryptionConfigurationNotFoundError":
            return None, ""
        return None, KMS_UNKNOWN.format(code=answer.code)
    for rule in answer["ServerSideEncryptionConfiguration"]["Rules"]:
        default = rule.get("ApplyServerSideEncryptionByDefault") or {}
        if str(default.get("SSEAlgorithm", "")).startswith("aws:kms"):
            return default.get("KMSMasterKeyID") or AWS_MANAGED_KEY, ""
    return None, ""


def _failure_row(
    aws: Aws,
    ref: CheckedTable,
    location: str,
    identity: Identity,
    step: str,
    key: str,
    error: AwsError,
) -> Check:
    bucket, prefix = split_s3_uri(location) or ("", "")
    if error.no_such_bucket:
        reason = NO_BUCKET.format(bucket=bucket, location=location)
        return Check(FAIL, KIND, ref.name, reason, NO_BUCKET_FIX)
    if error.denied:
        kms_key, note = _kms_key(aws, bucket)
        listing = step == "s3:ListBucket"
        what = f"listing s3://{bucket}/{prefix}" if listing else f"reading s3://{bucket}/{key}"
        kms = KMS_NEEDED.format(key=kms_key) if kms_key else note
        reason = DENIED.format(what=what, step=step, error=error.text, bucket=bucket, kms=kms)
        return Check(FAIL, KIND, ref.name, reason, s3_policies(identity, bucket, prefix, kms_key))
    reason = FAILED.format(step=step, location=location, error=error.text)
    return Check(FAIL, KIND, ref.name, reason, FAILED_FIX)


def check_data(aws: Aws, ref: CheckedTable, table: Mapping[str, Any], identity: Identity) -> Check:
    location = str((table.get("StorageDescriptor") or {}).get("Location") or "")
    parsed = split_s3_uri(location)
    if not parsed:
        reason = NO_LOCATION.format(location=location or "none")
        return Check(WARN, KIND, ref.name, reason, NO_LOCATION_FIX)
    bucket, prefix = parsed
    listing = attempt(aws.s3.list_objects_v2, Bucket=bucket, Prefix=prefix, MaxKeys=20)
    if isinstance(listing, AwsError):
        return _failure_row(aws, ref, location, identity, "s3:ListBucket", "", listing)
    keys = [o["Key"] for o in listing.get("Contents", []) if not o["Key"].endswith("/")]
    if not keys:
        return Check(WARN, KIND, ref.name, EMPTY.format(location=location), EMPTY_FIX)
    read = attempt(_read_first_byte, aws.s3, bucket, keys[0])
    if isinstance(read, AwsError):
        return _failure_row(aws, ref, location, identity, "s3:GetObject", keys[0], read)
    kms_key, _ = _kms_key(aws, bucket)
    kms = KMS_DECRYPTS.format(key=kms_key) if kms_key else ""
    return Check(PASS, KIND, ref.name, READ.format(location=location, kms=kms))


def _read_first_byte(s3: Any, bucket: str, key: str) -> bytes:
    return bytes(s3.get_object(Bucket=bucket, Key=key, Range="bytes=0-0")["Body"].read())
