"""The run as a whole: its input, its report, and that it only reads."""

from __future__ import annotations

import re

import pytest

from dbt_athena_cross_account.doctor.calls import READ_ONLY_ACTIONS
from dbt_athena_cross_account.doctor.report import format_report, summary_line
from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN
from dbt_athena_cross_account.doctor.run import parse_tables
from tests.doctor_support import EXECUTION_ROLE, REGION
from tests.unit.doctor.helpers import CALLER, run


def test_table_names_parse_with_quotes_and_reject_bad_ones():
    refs = parse_tables(['"odd.cat".sales."a""b"', "c.s.t", "C.S.T"])
    assert [(r.catalog, r.schema, r.table) for r in refs] == [
        ("odd.cat", "sales", 'a"b'),
        ("c", "s", "t"),
    ]
    with pytest.raises(ValueError, match=r"'sales.orders' is not 'catalog.schema.table'"):
        parse_tables(["sales.orders"])


def test_report_is_a_table_ending_with_counts(aws):
    identity, rows = run(
        aws,
        tables=(
            "partner_catalog.sales.orders",
            "partner_catalog.sales.empty_orders",
            "missing_catalog.s.t",
        ),
    )
    text = format_report(rows, identity, REGION)
    lines = text.splitlines()
    assert lines[-1] == "6 PASS, 1 WARN, 1 FAIL" == summary_line(rows)
    assert f"checked as {CALLER} in {REGION}" in text and EXECUTION_ROLE in text
    assert re.search(
        r"^FAIL\s+registration\s+missing_catalog\s+'missing_catalog' is not registered", text, re.M
    )
    fail_at = next(i for i, line in enumerate(lines) if line.startswith("FAIL"))
    assert lines[fail_at + 1].startswith("        fix: register the owner's Glue catalog")
    assert not any(
        line.startswith("        fix:") and "PASS" in lines[i - 1][:4]
        for i, line in enumerate(lines)
    )


# ---- read-only -------------------------------------------------------------------------
EVERYTHING = tuple(
    f"partner_catalog.{t}"
    for t in (
        "sales.orders",
        "sales.empty_orders",
        "sales.secret_orders",
        "sales.locked_orders",
        "sales.kms_orders",
        "sales.broken_orders",
        "sales.flaky_orders",
        "sales.delta_orders",
        "sales.ghost_orders",
        "sales.nolocation_orders",
        "sales.iceberg_orders",
        "sales.governed_orders",
        "sales.orders_view",
        "hr.salaries",
        "sales.nope",
        "nodb.x",
    )
)
EVERY_CATALOG = (
    "lambda_catalog",
    "s3tables_catalog",
    "missing_catalog",
    "throttled_catalog",
    "broken_catalog",
)


def test_request_log_sees_write_calls(aws):
    """The recorder that the read-only test relies on does see a write, denied or not."""
    aws.clear_log()
    with pytest.raises(Exception, match=r"AccessDenied|not authorized"):
        aws.client("athena", "dbt").create_data_catalog(Name="x", Type="GLUE")
    assert aws.actions() == ["CreateDataCatalog"]
    assert "CreateDataCatalog" not in READ_ONLY_ACTIONS


def test_every_path_calls_read_only_apis_only(aws):
    aws.clear_log()
    statuses = set()
    for user in ("dbt", "dbt_noglue", "dbt_none"):
        for work_group in ("spark_wg", "spark_norole"):
            _, rows = run(
                aws, user=user, catalogs=EVERY_CATALOG, tables=EVERYTHING, work_group=work_group
            )
            statuses |= {r.status for r in rows}
    called = aws.requests()
    assert statuses == {PASS, WARN, FAIL}
    assert {r["action"] for r in called} <= READ_ONLY_ACTIONS, called
    assert {r["action"] for r in called} >= {
        "GetDataCatalog",
        "GetTable",
        "ListObjectsV2",
        "GetObject",
    }
    assert {r["method"] for r in called if r["service"] == "s3"} == {"GET"}
