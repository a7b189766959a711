"""Scenario 6: an incremental Python model reading a cross-account source, run twice.

Between the runs the partner account gets a new order. The second run must take
dbt-athena's incremental path (a __dbt_tmp table written by Spark, then Athena's
`insert into ... select`), read only the partner's new row and append it."""

from __future__ import annotations

import pytest
from dbt.tests.util import run_dbt

from tests.conftest import REPO_ROOT
from tests.integration.conftest import (
    DISPATCH,
    PARTNER,
    calculations_for,
    model_files,
    model_results,
    rows,
    sources_yml,
)

pytestmark = pytest.mark.spark


class TestIncrementalCrossAccount:
    @pytest.fixture(scope="class")
    def packages(self):
        return {"packages": [{"local": str(REPO_ROOT)}]}

    @pytest.fixture(scope="class")
    def models(self):
        return {"sources.yml": sources_yml(), **model_files("partner_orders_incremental")}

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"dispatch": DISPATCH}

    def test_run_twice(self, project, spark_emulator):
        schema = project.test_schema
        run_dbt(["deps"])

        first = len(spark_emulator.submissions)
        [result] = model_results(run_dbt(["run"]))
        assert result.status == "success"
        assert rows(schema, "partner_orders_incremental", order_by="order_id") == [
            {"order_id": 101, "customer_id": 1, "amount": 250.0},
            {"order_id": 102, "customer_id": 2, "amount": 75.5},
            {"order_id": 103, "customer_id": 1, "amount": 20.0},
        ]
        assert calculations_for(spark_emulator, schema, "partner_orders_incremental", first)

        # the partner account receives a new order
        spark_emulator.catalog.append_rows(PARTNER, "sales", "orders", [[104, 2, 9.5]])

        second = len(spark_emulator.submissions)
        sql = spark_emulator.backend.sql  # the Athena SQL this emulator applied to Glue
        applied, seen = len(sql.applied), len(sql.seen)
        [result] = model_results(run_dbt(["run"]))
        assert result.status == "success"
        # incremental path: Spark wrote the __dbt_tmp table, Athena SQL appended it
        [tmp] = calculations_for(
            spark_emulator, schema, "partner_orders_incremental__dbt_tmp", second
        )
        assert tmp.state == "COMPLETED"
        assert tmp.spark_properties.get("spark.hadoop.aws.glue.catalog.separator") == "/"
        assert any("insert into" in q.lower() for q in sql.applied[applied:]), sql.seen[seen:]
        assert rows(schema, "partner_orders_incremental", order_by="order_id") == [
            {"order_id": 101, "customer_id": 1, "amount": 250.0},
            {"order_id": 102, "customer_id": 2, "amount": 75.5},
            {"order_id": 103, "customer_id": 1, "amount": 20.0},
            {"order_id": 104, "customer_id": 2, "amount": 9.5},
        ]
