"""Scenarios 1-5 of the emulator issue, end to end: real dbt (dbt-tests-adapter, in-process),
real dbt-athena, the plugin from its wheel, the package via `dbt deps`, and real local
PySpark running the submitted code. Each scenario is checked on the data written."""

from __future__ import annotations

from pathlib import Path

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture

from athena_spark_emulator import LOCAL_ACCOUNT
from tests.conftest import tables_read
from tests.integration.conftest import (
    DISPATCH,
    PARTNER,
    calculations_for,
    model_files,
    rows,
    sources_yml,
)

pytestmark = pytest.mark.spark

CALCULATION_API = {
    "StartSession",
    "GetSessionStatus",
    "ListSessions",
    "TerminateSession",
    "StartCalculationExecution",
    "GetCalculationExecution",
    "GetCalculationExecutionStatus",
    "StopCalculationExecution",
}


def stock_spark_block() -> str:
    """dbt-athena's own athena__py_get_spark_dbt_object() text, from the installed package."""
    import dbt.include.athena as include

    text = (
        Path(include.__file__).parent / "macros" / "adapters" / "python_submissions.sql"
    ).read_text()
    body = text.split("{%- macro athena__py_get_spark_dbt_object() -%}", 1)[1].split(
        "{%- endmacro -%}", 1
    )[0]
    return body.strip()


class TestScenarios:
    """One `dbt run` of the scenario models; one test per scenario on what it wrote."""

    @pytest.fixture(scope="class")
    def packages(self):
        from tests.conftest import REPO_ROOT

        return {"packages": [{"local": str(REPO_ROOT)}]}

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "sources.yml": sources_yml(),
            **model_files(
                "local_customers",
                "partner_orders_enriched",
                "customer_revenue",
                "local_orders_stock",
                "federated_orders_fallback",
                "partner_order_lines",
            ),
        }

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"dispatch": DISPATCH}

    @pytest.fixture(scope="class")
    def run(self, project, spark_emulator):
        run_dbt(["deps"])
        spark_emulator.reset_counters()
        before = len(spark_emulator.submissions)
        results, output = run_dbt_and_capture(["run"])
        spark_emulator.wait_idle()
        return {
            "results": {r.node.name: r.status for r in results if r.node.resource_type == "model"},
            "output": output,
            "since": before,
            "calls": dict(spark_emulator.calls),
            "schema": project.test_schema,
        }

    def test_every_model_succeeded(self, run):
        assert set(run["results"].values()) == {"success"}, run["results"]
        assert len(run["results"]) == 6

    def test_1_cross_account_source_joined_with_local_ref(self, run):
        written = rows(run["schema"], "partner_orders_enriched", order_by="order_id")
        # the partner's sales.orders (account 999999999999), not the local one (ids 1, 2)
        assert written == [
            {"order_id": 101, "customer_id": 1, "name": "Acme", "country": "DE", "amount": 250.0},
            {"order_id": 102, "customer_id": 2, "name": "Globex", "country": "FR", "amount": 75.5},
            {"order_id": 103, "customer_id": 1, "name": "Acme", "country": "DE", "amount": 20.0},
        ]

    def test_1_opted_in_session_and_code(self, run, spark_emulator):
        [calc] = calculations_for(
            spark_emulator, run["schema"], "partner_orders_enriched", run["since"]
        )
        assert calc.state == "COMPLETED"
        assert calc.spark_properties.get("spark.hadoop.aws.glue.catalog.separator") == "/"
        assert tables_read(calc.code) == {
            '"partner_catalog"."sales"."orders"': f"`{PARTNER}/sales`.`orders`",
            f'"awsdatacatalog"."{run["schema"]}"."local_customers"': f"`{run['schema']}`.`local_customers`",
        }

    def test_2_python_model_refs_python_model(self, run):
        assert rows(run["schema"], "local_customers", order_by="customer_id") == [
            {"customer_id": 1, "name": "Acme", "country": "DE"},
            {"customer_id": 2, "name": "Globex", "country": "FR"},
            {"customer_id": 3, "name": "Initech", "country": "US"},
        ]
        assert rows(run["schema"], "customer_revenue", order_by="name") == [
            {"name": "Acme", "orders": 2, "revenue": 270.0},
            {"name": "Globex", "orders": 1, "revenue": 75.5},
        ]

    def test_3_non_opted_model_is_stock_and_reads_local(self, run, spark_emulator):
        assert rows(run["schema"], "local_orders_stock", order_by="order_id") == [
            {"order_id": 1, "customer_id": 1, "amount": 5.0},
            {"order_id": 2, "customer_id": 3, "amount": 6.0},
        ]
        [calc] = calculations_for(spark_emulator, run["schema"], "local_orders_stock", run["since"])
        assert stock_spark_block() in calc.code
        assert tables_read(calc.code) is None
        assert "_cross_account" not in calc.code.lower()
        assert "spark.hadoop.aws.glue.catalog.separator" not in calc.spark_properties

    def test_4_lambda_catalog_with_fallback_local_warns_and_reads_local(self, run, spark_emulator):
        output = " ".join(run["output"].split())
        assert "reads source('federated', 'orders') from catalog 'lambda_catalog'" in output
        assert "'lambda_catalog' is a LAMBDA data catalog" in output
        assert "spark_cross_account_fallback is 'local', so the local account's table" in output
        # the legacy two-part name reads the LOCAL sales.orders
        assert rows(run["schema"], "federated_orders_fallback", order_by="order_id") == [
            {"order_id": 1, "customer_id": 1, "amount": 5.0},
            {"order_id": 2, "customer_id": 3, "amount": 6.0},
        ]
        [calc] = calculations_for(
            spark_emulator, run["schema"], "federated_orders_fallback", run["since"]
        )
        assert tables_read(calc.code) == {'"lambda_catalog"."sales"."orders"': "`sales`.`orders`"}

    def test_5_hyphens_and_upper_case(self, run, spark_emulator):
        assert rows(run["schema"], "partner_order_lines", order_by="order_id") == [
            {"order_id": 101, "sku": "SKU-1", "quantity": 2},
            {"order_id": 102, "sku": "SKU-2", "quantity": 1},
        ]
        [calc] = calculations_for(
            spark_emulator, run["schema"], "partner_order_lines", run["since"]
        )
        assert tables_read(calc.code) == {
            '"Partner_Catalog"."Partner-Sales"."Order-Lines"': f"`{PARTNER}/Partner-Sales`.`Order-Lines`"
        }

    def test_local_account_tables_untouched(self, run):
        # the owner's table is still the owner's: nothing was written to account 999999999999
        assert [r["order_id"] for r in rows("sales", "orders", PARTNER, order_by="order_id")] == [
            101,
            102,
            103,
        ]
        assert [
            r["order_id"] for r in rows("sales", "orders", LOCAL_ACCOUNT, order_by="order_id")
        ] == [1, 2]

    def test_calculation_api_calls_served(self, run, spark_emulator):
        served = {action for action in run["calls"] if action in CALCULATION_API}
        # one calculation per model, polled with GetCalculationExecution. Sessions: dbt-athena
        # keeps them in a module-level list keyed by invocation id, so in one process (as
        # here, after other in-process dbt runs) it may reuse sessions and skip StartSession;
        # the demo (a fresh process) shows StartSession and GetSessionStatus as well.
        assert {"StartCalculationExecution", "GetCalculationExecution"} <= served
        assert run["calls"]["StartCalculationExecution"] >= 6  # + BUSY rejections, if any
        ran = spark_emulator.submissions[run["since"] :]
        assert [c.state for c in ran] == ["COMPLETED"] * 6
        print("Calculation API calls:", {a: run["calls"][a] for a in sorted(served)})
