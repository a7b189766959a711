"""format: can the Hive Glue client behind the separator read the table?"""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.doctor import table_format
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
        ("iceberg_orders", FAIL, "Hive Glue client"),
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
    real = table_format.detect
    monkeypatch.setattr(
        table_format,
        "detect",
        lambda table: ("lake_formation", "") if table["Name"] == "locked_orders" else real(table),
    )
    _, rows = run(
        aws, tables=("partner_catalog.sales.locked_orders", "partner_catalog.sales.orders")
    )
    assert only(rows, "format", "partner_catalog.sales.locked_orders").status == FAIL
    assert only(rows, "format", "partner_catalog.sales.orders").status == PASS


def test_the_iceberg_verdict_has_one_home(monkeypatch):
    """Iceberg reads fail today; when the generated code reads them through an Iceberg
    catalog, flipping its FORMATS entry is all the doctor needs."""
    ref, table = CheckedTable("c", "s", "t"), {"Parameters": {"table_type": "ICEBERG"}}
    assert check_format(ref, table).status == FAIL
    monkeypatch.setitem(
        table_format.FORMATS,
        "iceberg",
        table_format.Verdict(PASS, "Iceberg table, read through its own catalog"),
    )
    assert check_format(ref, table).status == PASS
