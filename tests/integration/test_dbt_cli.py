"""The `dbt` console script, run in a subprocess the way a user runs it, on a copy of the
integration_tests/ project (its own profiles.yml, reading only env_var()), against the
emulator with real local PySpark. Checked on the rows the cross-account model wrote.

Both ways the suites start dbt: a plain subprocess (a new interpreter) and a process forked
from the warm one that has imported dbt (tests/forked_dbt.py, what most suites use); they
must give the same result."""

from __future__ import annotations

import pytest

from tests.integration.conftest import calculations_for, rows
from tests.stack import dbt_cli

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


@pytest.mark.parametrize("started", ["plain subprocess", "forked from a warm dbt"])
def test_console_script_writes_cross_account_rows(
    cli_project, spark_emulator, monkeypatch, started
):
    monkeypatch.setenv("DBT_CLI_FORK", "0" if started == "plain subprocess" else "1")
    schema = "cli_console_script_" + started.split()[0]
    env = {**spark_emulator.env(), "DBT_SCHEMA": schema, "DBT_THREADS": "2"}
    since = len(spark_emulator.submissions)
    result = dbt_cli(["run", "--select", "+partner_orders_enriched"], cli_project, cli_project, env)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Completed successfully" in result.stdout
    assert rows(schema, "partner_orders_enriched", order_by="order_id") == [
        {"order_id": 101, "customer_id": 1, "name": "Acme", "country": "DE", "amount": 250.0},
        {"order_id": 102, "customer_id": 2, "name": "Globex", "country": "FR", "amount": 75.5},
        {"order_id": 103, "customer_id": 1, "name": "Acme", "country": "DE", "amount": 20.0},
    ]
    [calc] = calculations_for(spark_emulator, schema, "partner_orders_enriched", since)
    assert calc.state == "COMPLETED"
