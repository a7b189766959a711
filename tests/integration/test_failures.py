"""Scenario 7: failures reach the user clearly.

* Spark side (dbt-tests-adapter, real PySpark): an owner that has not granted the local
  account -> the Glue AccessDeniedException and the Python traceback in dbt's output;
  the Glue separator overridden through engine_config -> `<account>/<db>` is a literal,
  missing database, and the run fails.
* Setup side (the real `dbt` console script in a subprocess, on a copy of
  integration_tests/): a missing dispatch entry or a missing plugin -> the package's
  compile-time errors, before any Spark session starts.
"""

from __future__ import annotations

import re

import pytest
from dbt.tests.util import run_dbt_and_capture

from tests.conftest import REPO_ROOT, tables_read
from tests.integration.conftest import (
    DISPATCH,
    PARTNER,
    RESTRICTED,
    calculations_for,
    model_files,
    model_results,
    sources_yml,
)
from tests.stack import dbt_cli


@pytest.mark.spark
class TestSparkFailures:
    @pytest.fixture(scope="class")
    def packages(self):
        return {"packages": [{"local": str(REPO_ROOT)}]}

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "sources.yml": sources_yml(),
            **model_files("restricted_orders", "orders_without_separator", subdir="failures"),
        }

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"dispatch": DISPATCH}

    @pytest.fixture(scope="class")
    def deps(self, project):
        from dbt.tests.util import run_dbt

        run_dbt(["deps"])

    def test_missing_grant_shows_access_denied(self, project, deps, spark_emulator):
        since = len(spark_emulator.submissions)
        results, output = run_dbt_and_capture(
            ["run", "--select", "restricted_orders"], expect_pass=False
        )
        assert [r.status for r in model_results(results)] == ["error"]
        text = " ".join(output.split())
        assert "Status: FAILED" in text
        assert "Traceback (most recent call last)" in text
        assert "software.amazon.awssdk.services.glue.model.AccessDeniedException" in text
        assert re.search(
            r"User: arn:aws:sts::123456789012:assumed-role/\S+ is not authorized to perform: "
            r"glue:GetTable "
            rf"on resource: arn:aws:glue:eu-west-1:{RESTRICTED}:table/sales/orders",
            text,
        ), text[-3000:]
        [calc] = calculations_for(spark_emulator, project.test_schema, "restricted_orders", since)
        assert calc.state == "FAILED" and "AccessDeniedException" in calc.reason
        # the generated code did ask for the owner's database; the grant is what is missing
        assert tables_read(calc.code) == {
            '"restricted_catalog"."sales"."orders"': f"`{RESTRICTED}/sales`.`orders`"
        }

    def test_separator_removed_through_engine_config(self, project, deps, spark_emulator):
        since = len(spark_emulator.submissions)
        results, output = run_dbt_and_capture(
            ["run", "--select", "orders_without_separator"], expect_pass=False
        )
        assert [r.status for r in model_results(results)] == ["error"]
        [calc] = calculations_for(
            spark_emulator, project.test_schema, "orders_without_separator", since
        )
        assert calc.spark_properties.get("spark.hadoop.aws.glue.catalog.separator") == ""
        assert calc.state == "FAILED"
        text = " ".join(output.split())
        # Glue looked the namespace up literally, in the local account
        assert f"The schema `{PARTNER}/sales` cannot be found" in text
        assert "Glue catalog of account 123456789012" in text


@pytest.mark.dbt
def test_missing_dispatch_entry_fails_at_compile_time(cli_project, emulator):
    project_yml = cli_project / "dbt_project.yml"
    original = project_yml.read_text()
    without = re.sub(r"\ndispatch:\n(?:  .*\n|    .*\n)+", "\n", original)
    assert "dispatch" not in without.split("models:")[0].replace("dispatch entry", "")
    project_yml.write_text(without)
    try:
        emulator.reset_counters()
        result = dbt_cli(
            ["run", "--select", "partner_orders_enriched"], cli_project, cli_project, emulator.env()
        )
    finally:
        project_yml.write_text(original)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0
    assert "create_table_as dispatches to package 'dbt_athena'" in output, output[-3000:]
    assert (
        "search_order: ['dbt_athena_cross_account_integration_tests', "
        "'dbt_athena_cross_account', 'dbt']" in output
    )
    assert emulator.calls["StartSession"] == 0  # failed before any Spark session


@pytest.mark.dbt
def test_missing_plugin_fails_at_compile_time(cli_project, emulator, python_without_plugin):
    emulator.reset_counters()
    result = dbt_cli(
        ["run", "--select", "partner_orders_enriched"],
        cli_project,
        cli_project,
        emulator.env(),
        python=python_without_plugin,
    )
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0
    assert "the dbt-athena-cross-account Python plugin is not installed" in output
    assert "pip install dbt-athena-cross-account" in output
    assert emulator.calls["StartSession"] == 0
