"""data: list the table's S3 location and read one byte (ListBucket, GetObject, KMS)."""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN
from tests.doctor_support import EXECUTION_ROLE, KMS_KEY
from tests.unit.doctor.helpers import CALLER, json_blocks, only, run


def test_data_passes_when_listing_and_reading_work(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.orders",))
    row = only(rows, "data", "partner_catalog.sales.orders")
    assert row.status == PASS and "s3://partner-data/sales/orders/" in row.reason
    assert "GetObject" in aws.actions() and "ListObjectsV2" in aws.actions()


def test_listing_denied_names_bucket_and_bucket_policy(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.locked_orders",))
    assert only(rows, "metadata", "partner_catalog.sales.locked_orders").status == PASS
    row = only(rows, "data", "partner_catalog.sales.locked_orders")
    assert row.status == FAIL
    assert "listing s3://partner-locked/sales/orders/ was denied" in row.reason
    assert "bucket 'partner-locked'" in row.reason and "bucket policy" in row.reason
    # its encryption is unreadable too, so KMS is mentioned as a possibility
    assert "default encryption could not be read" in row.reason and "SSE-KMS" in row.reason
    bucket_policy, consumer = json_blocks(row.fix)
    assert bucket_policy["Statement"][0]["Resource"] == "arn:aws:s3:::partner-locked"
    assert bucket_policy["Statement"][0]["Principal"]["AWS"] == [CALLER, EXECUTION_ROLE]
    assert consumer["Statement"][1] == {
        "Effect": "Allow",
        "Action": "s3:GetObject",
        "Resource": "arn:aws:s3:::partner-locked/sales/orders/*",
    }
    assert "aws s3api get-bucket-policy --bucket partner-locked" in row.fix


def test_read_denied_on_sse_kms_bucket_names_the_key(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.kms_orders",))
    row = only(rows, "data", "partner_catalog.sales.kms_orders")
    assert row.status == FAIL
    assert "reading s3://partner-kms/sales/orders/part-0.parquet" in row.reason
    assert f"the bucket uses SSE-KMS ({KMS_KEY}), so kms:Decrypt is needed too" in row.reason
    _, consumer = json_blocks(row.fix)
    assert {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": KMS_KEY} in consumer[
        "Statement"
    ]
    assert f"SSE-KMS with key {KMS_KEY}: its key policy" in row.fix


def test_read_denied_after_listing_fails_on_get_object(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.secret_orders",))
    row = only(rows, "data", "partner_catalog.sales.secret_orders")
    assert row.status == FAIL and "s3:GetObject" in row.reason
    assert "s3://partner-data/sales/secret/part-0.parquet" in row.reason
    assert "SSE-KMS" not in row.reason
    assert "arn:aws:s3:::partner-data/sales/secret/*" in row.fix


@pytest.mark.parametrize(
    ("table", "status", "words"),
    [
        ("ghost_orders", FAIL, "bucket 'no-such-bucket'"),
        ("empty_orders", WARN, "holds no files"),
        ("nolocation_orders", WARN, "no S3 location"),
    ],
)
def test_data_edge_cases(aws, table, status, words):
    name = f"partner_catalog.sales.{table}"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "data", name)
    assert row.status == status and words in row.reason and row.fix


def test_other_errors_fail_with_the_aws_error(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.broken_orders",))
    row = only(rows, "data", "partner_catalog.sales.broken_orders")
    assert row.status == FAIL and "InternalError" in row.reason and "retry" in row.fix
