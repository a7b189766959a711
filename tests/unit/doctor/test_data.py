"""data: list the table's S3 location and read one byte (ListBucket, GetObject, KMS)."""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.doctor import data, metadata
from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN, ModelFacts
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
        ("empty_orders", WARN, "holds no data files"),
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


# ---- objects sampled as Spark reads them ------------------------------------------------
def got_objects(aws) -> list:
    return [r["path"] for r in aws.requests() if r["action"] == "GetObject"]


def test_spark_written_table_passes_past_its_zero_byte_success_marker(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.spark_orders",))
    row = only(rows, "data", "partner_catalog.sales.spark_orders")
    assert row.status == PASS, row
    assert got_objects(aws) == [
        "/partner-data/sales/spark_orders/part-00000-5f0e2b9c-c000.snappy.parquet"
    ]


def test_location_whose_only_data_file_is_empty_warns_that_the_read_returns_no_rows(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.only_empty_orders",))
    row = only(rows, "data", "partner_catalog.sales.only_empty_orders")
    assert row.status == WARN and "empty" in row.reason and "no rows" in row.reason, row
    # the empty file is still read (without a byte range), so access is proven
    assert got_objects(aws) == [
        "/partner-data/sales/only_empty/part-00000-5f0e2b9c-c000.snappy.parquet"
    ]


def test_hidden_files_and_directories_are_never_sampled(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.hidden_first_orders",))
    assert only(rows, "data", "partner_catalog.sales.hidden_first_orders").status == PASS
    assert got_objects(aws) == ["/partner-data/sales/hidden_first/part-00000.parquet"]


@pytest.mark.parametrize("page_size", [1000, 10])
def test_folder_markers_are_paged_past(aws, monkeypatch, page_size):
    monkeypatch.setattr(data, "LIST_PAGE_SIZE", page_size)
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.marked_orders",))
    row = only(rows, "data", "partner_catalog.sales.marked_orders")
    assert row.status == PASS, row
    assert got_objects(aws) == ["/partner-data/sales/marked/dt=25/part-0.parquet"]
    # 25 markers and the data file: one page of 1000, or three of 10
    assert aws.actions().count("ListObjectsV2") == (1 if page_size == 1000 else 3)


def test_listing_stops_after_a_bounded_number_of_pages(aws, monkeypatch):
    monkeypatch.setattr(data, "LIST_PAGE_SIZE", 10)
    monkeypatch.setattr(data, "MAX_LIST_PAGES", 2)
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.marked_orders",))
    row = only(rows, "data", "partner_catalog.sales.marked_orders")
    assert row.status == WARN and "no data file among the first 20 objects" in row.reason, row
    assert aws.actions().count("ListObjectsV2") == 2 and got_objects(aws) == []


# ---- partitions -----------------------------------------------------------------------
def data_rows(rows, table):
    return [r for r in rows if r.kind == "data" and r.subject == f"partner_catalog.sales.{table}"]


def test_partitions_in_a_second_bucket_are_sampled_in_each_bucket(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.events",))
    (row,) = data_rows(rows, "events")
    assert row.status == PASS, row
    assert "s3://partner-data/sales/events/dt=2024-01-01/" in row.reason
    assert "s3://partner-archive/events/dt=2024-01-02/" in row.reason
    glue_row = only(rows, "metadata", "partner_catalog.sales.events")
    assert glue_row.status == PASS and "glue:GetPartitions" in glue_row.reason
    (call,) = [r for r in aws.requests() if r["action"] == "GetPartitions"]
    assert call["params"]["MaxResults"] == metadata.PARTITION_SAMPLE


def test_partitions_elsewhere_than_an_empty_table_location_pass(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.moved_events",))
    (row,) = data_rows(rows, "moved_events")
    assert row.status == PASS and "s3://partner-archive/events/dt=2024-01-02/" in row.reason


def test_partition_in_a_missing_bucket_fails(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.lost_events",))
    failed = [r for r in data_rows(rows, "lost_events") if r.status == FAIL]
    assert len(failed) == 1 and "bucket 'no-such-bucket'" in failed[0].reason, rows


def test_partition_in_a_bucket_that_refuses_the_read_fails(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.locked_events",))
    (row,) = data_rows(rows, "locked_events")
    assert (
        row.status == FAIL and "listing s3://partner-locked/sales/orders/ was denied" in row.reason
    )


def test_partitioned_table_without_partitions_warns(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.unfilled_events",))
    (row,) = data_rows(rows, "unfilled_events")
    assert row.status == WARN and "no partitions" in row.reason and row.fix


def test_get_partitions_refused_by_the_owner_fails_metadata(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.guarded_events",))
    row = only(rows, "metadata", "partner_catalog.sales.guarded_events")
    assert row.status == FAIL and "glue:GetPartitions on table 'sales.guarded_events'" in row.reason
    assert "glue:GetPartitions" in json_blocks(row.fix)[0]["Statement"][0]["Action"]
    assert data_rows(rows, "guarded_events") == []


# ---- requester pays ---------------------------------------------------------------------
PAYER_TABLE = {"catalog": "partner_catalog", "schema": "sales", "table": "payer_orders"}


def payer_requests(aws):
    return [r for r in aws.requests() if r["path"].startswith("/partner-payer")]


def test_requester_pays_bucket_is_read_with_request_payer_when_a_model_sets_it(aws):
    aws.clear_log()
    _, rows = run(
        aws,
        tables=({**PAYER_TABLE, "models": ["model.p.payer"]},),
        models=[ModelFacts("model.p.payer", True, {}, requester_pays=True)],
    )
    row = only(rows, "data", "partner_catalog.sales.payer_orders")
    assert row.status == PASS and "RequestPayer=requester" in row.reason, row
    assert {
        r["request_payer"] for r in payer_requests(aws) if r["action"] != "GetBucketEncryption"
    } == {"requester"}


def test_requester_pays_from_the_spark_property(aws):
    prop = {"spark.hadoop.fs.s3.useRequesterPaysHeader": "true"}
    _, rows = run(
        aws,
        tables=({**PAYER_TABLE, "models": ["model.p.payer"]},),
        models=[ModelFacts("model.p.payer", True, prop)],
    )
    assert only(rows, "data", "partner_catalog.sales.payer_orders").status == PASS


def test_without_requester_pays_the_bucket_refuses_the_read(aws):
    aws.clear_log()
    _, rows = run(aws, tables=("partner_catalog.sales.payer_orders",))
    row = only(rows, "data", "partner_catalog.sales.payer_orders")
    assert row.status == FAIL and "was denied" in row.reason
    assert {r["request_payer"] for r in payer_requests(aws)} == {""}
