"""``data`` rows: can the table's S3 data be listed and read (s3:ListBucket, s3:GetObject,
and kms:Decrypt when the bucket uses SSE-KMS)?

The doctor reads what Spark would read. In each location it samples the first object that
Spark treats as data, paging past the rest: hidden files and directories (a path part
starting with ``_`` or ``.``, as Spark's ``HadoopFSUtils.shouldFilterOutPathName`` skips
them: ``_SUCCESS``, ``_temporary/``, ``.hive-staging...``), folder markers (keys ending in
``/``) and zero-byte objects. A partitioned table is read where its partitions are: one
partition location per distinct bucket of the sampled partitions. A model that sets
``spark_requester_pays`` reads with ``RequestPayer=requester``, and so does the doctor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account.doctor.aws_errors import AwsError
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.policies import s3_policies
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, Identity
from dbt_athena_cross_account.errors import FAIL, PASS, WARN

KIND = "data"
LIST_PAGE_SIZE = 1000  # keys per s3:ListObjectsV2 page (the API's maximum)
MAX_LIST_PAGES = 5  # pages the doctor lists in one location before it gives up
LIST, READ = "s3:ListBucket", "s3:GetObject"

READ_OK = "listed and read 1 byte of {locations}{payer}{partitions}"
KMS_DECRYPTS = ", SSE-KMS key {key} decrypts"
WITH_PAYER = " with RequestPayer=requester"
PARTITIONS_SAMPLED = " (one partition per bucket of {n} sampled partition(s))"
NO_LOCATION = "the table has no S3 location ({location}), so its data cannot be checked"
NO_LOCATION_FIX = "ask the owner which location the table reads; Spark reads only s3:// locations"
PARTITION_NO_LOCATION = (
    "a sampled partition has no S3 location ({location}), so its data cannot be checked"
)
NO_PARTITIONS = "the table is partitioned but has no partitions, so the read returns no rows"
NO_PARTITIONS_FIX = (
    "check with the owner that the partitions are registered (aws glue get-partitions)"
)
NO_DATA = (
    "listing {location} works but it holds no data files{skipped}, so the read returns no rows"
)
SKIPPED = " (only {n} hidden, empty or folder-marker object(s))"
ALL_EMPTY = "listing {location} works but its data files are all empty, so the read returns no rows"
TOO_MANY = (
    "no data file among the first {n} objects of {location} "
    "(only hidden files, folder markers or empty objects), so nothing was read"
)
CHECK_LOCATION_FIX = (
    "check the table's StorageDescriptor.Location with the owner (aws glue get-table)"
)
NO_BUCKET = "bucket '{bucket}' of {location} does not exist"
NO_BUCKET_FIX = (
    "ask the owner to fix the table's location (aws glue update-table) or recreate the bucket"
)
DENIED = (
    "{what} was denied ({step}, {error}) although the Glue metadata is readable: "
    "bucket '{bucket}' needs its bucket policy and your IAM policy to allow it{kms}"
)
LISTING = "listing s3://{bucket}/{prefix}"
READING = "reading s3://{bucket}/{key}"
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


def is_hidden(relative_key: str) -> bool:
    """True when Spark skips the object: a path part starts with '.', or with '_' and has
    no '=' (``_col=1/`` is a partition directory), except Parquet's ``_metadata`` and
    ``_common_metadata`` summary files."""
    for part in relative_key.split("/"):
        if part.startswith(("_metadata", "_common_metadata")):
            continue
        if part.startswith(".") or (part.startswith("_") and "=" not in part):
            return True
    return False


# ---- sampling one location --------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    """What listing and reading one location found."""

    location: str
    bucket: str
    prefix: str
    key: str = ""  # the object read; "" when none was
    empty: bool = False  # that object was a zero-byte data file
    skipped: int = 0  # hidden, empty and folder-marker objects passed over
    complete: bool = True  # False: stopped after MAX_LIST_PAGES pages
    step: str = ""  # the step that failed
    error: Optional[AwsError] = None


def _pick(contents: Sequence[Mapping[str, Any]], prefix: str) -> Tuple[str, str, int]:
    """(first data object, first zero-byte data object, objects skipped) of one page."""
    first_empty, skipped = "", 0
    for obj in contents:
        key = str(obj["Key"])
        if key.endswith("/") or is_hidden(key[len(prefix) :]):
            skipped += 1
        elif not obj.get("Size"):
            skipped += 1
            first_empty = first_empty or key
        else:
            return key, first_empty, skipped
    return "", first_empty, skipped


def _read(aws: Aws, base: Sample, key: str, empty: bool, payer: Dict[str, str]) -> Sample:
    """GetObject: one byte, or the whole of a zero-byte object (a range would be invalid)."""
    byte = {} if empty else {"Range": "bytes=0-0"}
    answer = aws.request("s3", "get_object", Bucket=base.bucket, Key=key, **byte, **payer)
    if isinstance(answer, AwsError):
        return replace(base, key=key, step=READ, error=answer)
    return replace(base, key=key, empty=empty)


def sample_location(aws: Aws, location: str, requester_pays: bool) -> Sample:
    """List ``location`` page by page until a data object turns up, then read it."""
    bucket, prefix = split_s3_uri(location) or ("", "")
    payer = {"RequestPayer": "requester"} if requester_pays else {}
    base = Sample(location, bucket, prefix)
    first_empty, skipped, token = "", 0, None
    for _ in range(MAX_LIST_PAGES):
        paging: Dict[str, str] = {"ContinuationToken": token} if token else {}
        page = aws.request(
            "s3",
            "list_objects_v2",
            Bucket=bucket,
            Prefix=prefix,
            MaxKeys=LIST_PAGE_SIZE,
            **paging,
            **payer,
        )
        if isinstance(page, AwsError):
            return Sample(location, bucket, prefix, step=LIST, error=page)
        key, empty, passed = _pick(page.get("Contents") or [], prefix)
        first_empty, skipped = first_empty or empty, skipped + passed
        if key:
            return _read(aws, base, key, False, payer)
        token = page.get("NextContinuationToken")
        if not (page.get("IsTruncated") and token):
            break
    else:
        return Sample(location, bucket, prefix, skipped=skipped, complete=False)
    base = replace(base, skipped=skipped)
    return _read(aws, base, first_empty, True, payer) if first_empty else base


def read_one_object(
    aws: Aws, ref: CheckedTable, uri: str, identity: Identity, requester_pays: bool = False
) -> Optional[Check]:
    """Read 1 byte of one object (an Iceberg metadata file); None when it can be read,
    else the FAIL row (``data`` kind) with the S3 and KMS fix."""
    match = _S3_URI.match(uri or "")
    if not match or not match.group(2):
        reason = NO_LOCATION.format(location=uri or "none")
        return Check(FAIL, KIND, ref.name, reason, NO_LOCATION_FIX)
    bucket, key = match.groups()
    prefix = key.rsplit("/", 1)[0] + "/" if "/" in key else ""
    payer = {"RequestPayer": "requester"} if requester_pays else {}
    sample = aws.once(
        ("object", uri, requester_pays),
        partial(_read, aws, Sample(uri, bucket, prefix), key, False, payer),
    )
    return None if sample.error is None else _failure_row(aws, ref, sample, identity)


# ---- rows -------------------------------------------------------------------------------
def _kms_key(aws: Aws, bucket: str) -> Tuple[Optional[str], str]:
    """(KMS key, or 'aws/s3' when the bucket defaults to SSE-KMS; a note when unreadable)."""
    answer = aws.call(("GetBucketEncryption", bucket), "s3", "get_bucket_encryption", Bucket=bucket)
    if isinstance(answer, AwsError):
        if answer.code == "ServerSideEncryptionConfigurationNotFoundError":
            return None, ""
        return None, KMS_UNKNOWN.format(code=answer.code)
    for rule in answer["ServerSideEncryptionConfiguration"]["Rules"]:
        default = rule.get("ApplyServerSideEncryptionByDefault") or {}
        if str(default.get("SSEAlgorithm", "")).startswith("aws:kms"):
            return default.get("KMSMasterKeyID") or AWS_MANAGED_KEY, ""
    return None, ""


def _failure_row(aws: Aws, ref: CheckedTable, sample: Sample, identity: Identity) -> Check:
    assert sample.error is not None
    bucket, prefix, error = sample.bucket, sample.prefix, sample.error
    if error.no_such_bucket:
        reason = NO_BUCKET.format(bucket=bucket, location=sample.location)
        return Check(FAIL, KIND, ref.name, reason, NO_BUCKET_FIX)
    if error.denied:
        kms_key, note = _kms_key(aws, bucket)
        what_template = LISTING if sample.step == LIST else READING
        what = what_template.format(bucket=bucket, prefix=prefix, key=sample.key)
        kms = KMS_NEEDED.format(key=kms_key) if kms_key else note
        reason = DENIED.format(
            what=what, step=sample.step, error=error.text, bucket=bucket, kms=kms
        )
        return Check(FAIL, KIND, ref.name, reason, s3_policies(identity, bucket, prefix, kms_key))
    reason = FAILED.format(step=sample.step, location=sample.location, error=error.text)
    return Check(FAIL, KIND, ref.name, reason, FAILED_FIX)


def _problem(aws: Aws, ref: CheckedTable, sample: Sample, identity: Identity) -> Optional[Check]:
    """The row for a sample that did not read a non-empty data object; None when it did."""
    if sample.error is not None:
        return _failure_row(aws, ref, sample, identity)
    if not sample.complete:
        reason = TOO_MANY.format(n=sample.skipped, location=sample.location)
        return Check(WARN, KIND, ref.name, reason, CHECK_LOCATION_FIX)
    if not sample.key:
        skipped = SKIPPED.format(n=sample.skipped) if sample.skipped else ""
        reason = NO_DATA.format(location=sample.location, skipped=skipped)
        return Check(WARN, KIND, ref.name, reason, CHECK_LOCATION_FIX)
    if sample.empty:
        return Check(
            WARN, KIND, ref.name, ALL_EMPTY.format(location=sample.location), CHECK_LOCATION_FIX
        )
    return None


def _locations(
    ref: CheckedTable, table: Mapping[str, Any], partitions: Optional[List[Mapping[str, Any]]]
) -> Tuple[List[str], List[Check]]:
    """The locations Spark reads (the table's, or one partition per distinct bucket), and
    WARN rows for what cannot be sampled."""
    if partitions is None:
        location = str((table.get("StorageDescriptor") or {}).get("Location") or "")
        if split_s3_uri(location):
            return [location], []
        reason = NO_LOCATION.format(location=location or "none")
        return [], [Check(WARN, KIND, ref.name, reason, NO_LOCATION_FIX)]
    if not partitions:
        return [], [Check(WARN, KIND, ref.name, NO_PARTITIONS, NO_PARTITIONS_FIX)]
    by_bucket: Dict[str, str] = {}
    unreadable: List[Check] = []
    for partition in partitions:
        location = str((partition.get("StorageDescriptor") or {}).get("Location") or "")
        parsed = split_s3_uri(location)
        if parsed:
            by_bucket.setdefault(parsed[0], location)
        elif not unreadable:
            reason = PARTITION_NO_LOCATION.format(location=location or "none")
            unreadable.append(Check(WARN, KIND, ref.name, reason, NO_LOCATION_FIX))
    return list(by_bucket.values()), unreadable


def check_data(
    aws: Aws,
    ref: CheckedTable,
    table: Mapping[str, Any],
    identity: Identity,
    partitions: Optional[List[Mapping[str, Any]]] = None,
    requester_pays: bool = False,
) -> List[Check]:
    """A PASS row naming every location read, and a row for each problem. ``partitions`` is
    None for an unpartitioned table, else the sampled partitions (possibly none)."""
    locations, rows = _locations(ref, table, partitions)
    passed = []
    for location in locations:
        sample = aws.once(
            ("sample", location, requester_pays),
            partial(sample_location, aws, location, requester_pays),
        )
        problem = _problem(aws, ref, sample, identity)
        if problem is None:
            kms_key, _ = _kms_key(aws, sample.bucket)
            passed.append(location + (KMS_DECRYPTS.format(key=kms_key) if kms_key else ""))
        else:
            rows.append(problem)
    if passed:
        reason = READ_OK.format(
            locations=" and ".join(passed),
            payer=WITH_PAYER if requester_pays else "",
            partitions=PARTITIONS_SAMPLED.format(n=len(partitions)) if partitions else "",
        )
        rows.insert(0, Check(PASS, KIND, ref.name, reason))
    return rows
