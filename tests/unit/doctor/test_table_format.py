"""format: can Spark read the table cross-account, with the reader its format needs?"""

from __future__ import annotations

import dataclasses

import pytest

from dbt_athena_cross_account import formats
from dbt_athena_cross_account.doctor.report import macro_result
from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN, CheckedTable
from dbt_athena_cross_account.doctor.table_format import check_format
from tests.doctor_support import REGION
from tests.unit.doctor.helpers import only, run


# A read that will fail is a FAIL, so that CI can gate on the doctor.
@pytest.mark.parametrize(
    ("table", "status", "words"),
    [
        ("orders", PASS, "Hive table (parquet)"),
        ("iceberg_orders", PASS, "Iceberg table, read through an Iceberg catalog"),
        ("governed_orders", FAIL, "no Lake Formation support"),
        ("orders_view", FAIL, "view"),
        ("delta_orders", FAIL, "Delta table"),
    ],
)
def test_table_format(aws, table, status, words):
    name = f"partner_catalog.sales.{table}"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "format", name)
    assert row.status == status and words in row.reason
    if status != PASS:
        assert row.fix


def test_view_gets_no_data_check(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.orders_view",))
    assert [r for r in rows if r.kind == "data"] == []


def test_a_view_fails_the_gate(aws):
    identity, rows = run(aws, tables=("partner_catalog.sales.orders_view",))
    result = macro_result(rows, identity, REGION)
    assert result["fail"] == 1 and result["failed"] == ["format partner_catalog.sales.orders_view"]


LF_TABLE = {"IsRegisteredWithLakeFormation": True, "Parameters": {}}


@pytest.mark.parametrize(("data_readable", "status"), [(False, FAIL), (True, WARN)])
def test_lake_formation_registered_table(data_readable, status):
    """Engine v3 ignores Lake Formation: with only LF grants (S3 refuses the read) it fails;
    with direct S3 access it works, but look."""
    # moto cannot set IsRegisteredWithLakeFormation; real GetTable answers carry it.
    ref = CheckedTable("c", "s", "t")
    row = check_format(ref, LF_TABLE, data_readable=data_readable)
    assert row.status == status and "Lake Formation" in row.reason and row.fix
    assert check_format(ref, {"IsRegisteredWithLakeFormation": False}).status == PASS


def test_lake_formation_table_whose_data_the_doctor_cannot_read_fails(aws, monkeypatch):
    real = formats.detect
    monkeypatch.setattr(
        formats,
        "detect",
        lambda table: ("lake_formation", "") if table["Name"] == "locked_orders" else real(table),
    )
    _, rows = run(
        aws, tables=("partner_catalog.sales.locked_orders", "partner_catalog.sales.orders")
    )
    assert only(rows, "format", "partner_catalog.sales.locked_orders").status == FAIL
    assert only(rows, "format", "partner_catalog.sales.orders").status == PASS


def test_iceberg_passes_when_its_metadata_file_is_readable(aws):
    name = "partner_catalog.sales.iceberg_orders"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "format", name)
    assert row.status == PASS
    assert "glue.id=999999999999" in row.reason
    metadata = "s3://partner-data/sales/iceberg_orders/metadata/00001-5f0e.metadata.json"
    assert f"read 1 byte of its metadata file {metadata}" in row.reason
    assert only(rows, "data", name).status == PASS  # its data and metadata prefixes list


def test_iceberg_whose_metadata_file_is_refused_fails_with_the_s3_and_kms_fix(aws):
    name = "partner_catalog.sales.iceberg_kms_orders"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "format", name)
    assert row.status == FAIL
    assert "metadata file s3://partner-kms/sales/iceberg/metadata/00001-5f0e.metadata.json" in (
        row.reason
    )
    assert "was denied (s3:GetObject" in row.reason and "kms:Decrypt" in row.reason
    assert "bucket policy of s3://partner-kms" in row.fix and "kms:Decrypt" in row.fix


def test_iceberg_without_metadata_location_fails(aws):
    name = "partner_catalog.sales.iceberg_nometa_orders"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "format", name)
    assert row.status == FAIL and "no metadata_location" in row.reason and row.fix


def test_the_doctor_takes_its_verdicts_from_the_formats_module(monkeypatch):
    """formats.FORMATS is the one home: what the doctor says about a format is its entry."""
    from dbt_athena_cross_account import formats

    ref, table = CheckedTable("c", "s", "t"), {"Parameters": {"table_type": "DELTA"}}
    assert check_format(ref, table).status == FAIL
    readable = formats.Verdict(PASS, "Delta table, read through its own catalog")
    monkeypatch.setitem(
        formats.FORMATS, "delta", dataclasses.replace(formats.FORMATS["delta"], doctor=readable)
    )
    assert check_format(ref, table).reason == "Delta table, read through its own catalog"


def test_lake_formation_reasons_say_which_athena_spark_engine_they_mean():
    """PySpark engine v3 has no Lake Formation support; the Apache Spark 3.5 engine has
    full-table access, so a reason that says "no support" names the engine it means."""
    from dbt_athena_cross_account.formats import (
        FORMATS,
        GOVERNED,
        LAKE_FORMATION_ONLY,
        LAKE_FORMATION_WITH_IAM,
    )

    for verdict in (FORMATS[GOVERNED].doctor, LAKE_FORMATION_ONLY, LAKE_FORMATION_WITH_IAM):
        assert "PySpark engine v3" in verdict.reason
        assert "Apache Spark 3.5 engine has full-table access" in verdict.reason
