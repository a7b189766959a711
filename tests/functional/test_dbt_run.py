"""A real `dbt deps` + `dbt run` (dbt-tests-adapter, in-process) against the emulator, with the
plugin installed from its wheel and this repository installed as a dbt package. The emulator
captures the code dbt-athena submits to the Calculation API; nothing runs Spark here."""

from __future__ import annotations

from typing import Dict, List

import pytest
from dbt.tests.util import run_dbt, run_dbt_and_capture

from tests.conftest import REPO_ROOT, ensure_data_catalog

PARTNER_ACCOUNT = "999999999999"

SOURCES_YML = """
version: 2
sources:
  - name: partner
    database: partner_catalog
    schema: sales
    tables: [{name: orders}]
  - name: local
    database: awsdatacatalog
    schema: sales
    tables: [{name: orders}]
  - name: federated
    database: lambda_catalog
    schema: sales
    tables: [{name: orders}]
"""

OPTED_IN = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("partner", "orders").join(dbt.source("local", "orders"), "order_id")
"""

NOT_OPTED_IN = """
def model(dbt, spark):
    dbt.config(materialized="table")
    return dbt.source("partner", "orders")
"""

READS_LAMBDA = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("federated", "orders")
"""

DISPATCH = [{"macro_namespace": "athena", "search_order": ["test", "dbt_athena_cross_account", "dbt"]}]


def submitted_code(emulator) -> Dict[str, str]:
    """Model name -> the one CodeBlock submitted for it (the table write)."""
    codes: Dict[str, str] = {}
    for calc in emulator.submissions:
        for line in calc.code.splitlines():
            if line.strip().startswith("name=\"") and "." in line:
                codes[line.split(".")[-1].rstrip('",')] = calc.code
    return codes


class _Project:
    @pytest.fixture(scope="class")
    def packages(self):
        return {"packages": [{"local": str(REPO_ROOT)}]}

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "sources.yml": SOURCES_YML,
            "opted_in.py": OPTED_IN,
            "not_opted_in.py": NOT_OPTED_IN,
        }

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {
            "dispatch": DISPATCH,
            "models": {"+s3_data_naming": "schema_table"},
        }

    @pytest.fixture(autouse=True)
    def _catalogs(self, emulator):
        ensure_data_catalog(emulator, "partner_catalog", "GLUE", {"catalog-id": PARTNER_ACCOUNT})
        ensure_data_catalog(emulator, "lambda_catalog", "LAMBDA", {"function": "arn:aws:lambda:eu-west-1:123456789012:function:f"})
        emulator.reset_counters()


class TestOptedInModelReadsCrossAccount(_Project):
    def test_run(self, project, emulator):
        run_dbt(["deps"])
        before = len(emulator.submissions)
        run_dbt(["run"])
        codes = submitted_code(type("E", (), {"submissions": emulator.submissions[before:]}))
        opted = codes["opted_in"]
        assert '_CROSS_ACCOUNT_CATALOGS = _cross_account_json.loads("{\\"partner_catalog\\": \\"999999999999\\"}")' in opted
        assert "def get_spark_df(identifier):" in opted
        assert "identifier.split(\".\")[1:]" not in opted
        assert "_CROSS_ACCOUNT_CATALOGS" not in codes["not_opted_in"]
        compile(opted, "opted_in.py", "exec")
        # one GetDataCatalog for the one referenced cross-account catalog; no listing
        assert emulator.calls["GetDataCatalog"] == 1
        assert emulator.calls["ListDataCatalogs"] == 0
        # the opted-in model's session carries the Glue separator (stock dbt-athena sets it)
        props = [c.spark_properties for c in emulator.submissions[before:] if c.code == opted]
        assert props and props[0].get("spark.hadoop.aws.glue.catalog.separator") == "/"

