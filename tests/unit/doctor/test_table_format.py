"""format: can the Hive Glue client behind the separator read the table?"""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.doctor.rows import PASS, WARN, CheckedTable
from dbt_athena_cross_account.doctor.table_format import check_format
from tests.unit.doctor.helpers import only, run


@pytest.mark.parametrize(
    ("table", "status", "words"),
    [
        ("orders", PASS, "Hive table (parquet)"),
        ("iceberg_orders", WARN, "Hive Glue client"),
        ("governed_orders", WARN, "no Lake Formation support"),
        ("orders_view", WARN, "view"),
        ("delta_orders", WARN, "Delta table"),
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


def test_lake_formation_flag_from_get_table_is_flagged():
    # moto cannot set IsRegisteredWithLakeFormation; real GetTable answers carry it.
    ref = CheckedTable("c", "s", "t")
    row = check_format(ref, {"IsRegisteredWithLakeFormation": True, "Parameters": {}})
    assert row.status == WARN and "Lake Formation" in row.reason
    assert check_format(ref, {"IsRegisteredWithLakeFormation": False}).status == PASS
