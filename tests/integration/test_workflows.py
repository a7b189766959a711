"""The workflows real teams run, each through the `dbt` console script in a fresh process,
against the emulator with real local PySpark, checked on the ROWS WRITTEN.

The world (workflows_seed.yml): sales.orders exists in the local account (orders 1-2), the
partner's 999999999999 (101-103) and the supplier's 777777777777 (701-702), so a read from
the wrong account writes visibly wrong data. The project (workflows_project/) opts every
model in at project level and takes some catalog names from env_var().
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from tests.integration.conftest import (
    cli_suite,
    drop_local_table,
    rows,
)

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

HERE = Path(__file__).parent
PARTNER_ROWS = [101, 102, 103]
SUPPLIER_ROWS = [701, 702]
LOCAL_ROWS = [1, 2]


# the shared emulator seeded with workflows_seed.yml (Spark on), workflows_project/ copied after `dbt deps`,
# and `dbt ARGS` in a fresh process
world, project, dbt = cli_suite(
    HERE / "workflows_seed.yml", HERE / "workflows_project", WF_PARTNER_CATALOG="partner_catalog"
)


def order_ids(table: str) -> List[int]:
    return [r["order_id"] for r in rows("sales", table, order_by="order_id")]


drop = drop_local_table


def submitted_for(world: Emulator, table: str, since: int) -> list:
    return [c for c in world.submissions[since:] if f'name="sales.{table}"' in c.code]


# ---- one model, several owner accounts, first model of a fresh run ----------------------
def test_one_model_reads_two_owner_catalogs_first_in_a_one_thread_run(dbt, world, project):
    dbt("run", "--select", "two_partners", DBT_THREADS="1")
    assert order_ids("two_partners") == PARTNER_ROWS + SUPPLIER_ROWS
    # the exact code it submitted is where docs/how-it-works.md says
    path = project / "target" / "cross_account" / "workflows" / "models" / "two_partners.py"
    code = path.read_text()
    assert "`777777777777/sales`.`orders`" in code and "`999999999999/sales`.`orders`" in code
    compile(code, "two_partners.py", "exec")


def resolver_lookups(log_dir: Path) -> List[str]:
    """The catalogs the plugin looked up in one run (its debug line per lookup)."""
    log = (log_dir / "dbt.log").read_text(encoding="utf-8")
    return sorted(re.findall(r"cross-account catalog '([^']*)' -> Resolution", log))


@pytest.fixture(scope="module")
def eight_threads(dbt, world, project) -> Tuple[str, List[str], Dict[str, List[int]]]:
    """One run, 8 threads, many opted-in models at once; the partner catalog's name comes
    from env_var() with stray whitespace and mixed case.

    Returns the output, the catalogs looked up and each model's rows read RIGHT AFTER the
    run: other tests in this module rewrite two_partners and from_env (--empty, retry), and
    pytest-randomly may run them between this fixture and the tests that use it."""
    written = ("two_partners", "from_env", "typo_fallback", "lambda_fallback", "reads_versions")
    for table in written[:4]:
        drop(world, table)
    log_dir = project / "logs-eight-threads"  # this run's own dbt.log
    out = dbt(
        "--log-path",
        str(log_dir),
        "run",
        "--select",
        "two_partners",
        "from_env",
        "typo_fallback",
        "lambda_fallback",
        "+reads_versions",
        DBT_THREADS="8",
        WF_PARTNER_CATALOG=" Partner_Catalog ",
    )
    return out, resolver_lookups(log_dir), {table: order_ids(table) for table in written}


def test_eight_threads_two_owner_catalogs_in_one_model(eight_threads):
    assert eight_threads[2]["two_partners"] == PARTNER_ROWS + SUPPLIER_ROWS
    # one lookup per distinct catalog for the whole run (" Partner_Catalog " is partner_catalog;
    # the log names it as the first model to ask spelt it, which the 8 threads decide)
    assert sorted(name.lower() for name in eight_threads[1]) == sorted(
        ["lambda_catalog", "partner_catalgo", "partner_catalog", "supplier_catalog"]
    )


def test_catalog_from_env_var_with_whitespace_and_mixed_case(eight_threads):
    assert eight_threads[2]["from_env"] == PARTNER_ROWS
    assert "from catalog 'Partner_Catalog'" not in eight_threads[0]  # resolved, no warning


def test_fallback_local_warns_and_reads_local(eight_threads):
    out = eight_threads[0]
    assert (
        "model 'model.workflows.typo_fallback' reads source('typo', 'orders') from catalog "
        "'partner_catalgo', but 'partner_catalgo' is not registered"
    ) in out
    assert "spark_cross_account_fallback is 'local', so the local account's table" in out
    assert eight_threads[2]["typo_fallback"] == LOCAL_ROWS
    assert eight_threads[2]["lambda_fallback"] == LOCAL_ROWS


def test_versioned_refs(eight_threads):
    assert eight_threads[2]["reads_versions"] == PARTNER_ROWS + SUPPLIER_ROWS


# ---- fail closed ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def strict_failures(dbt, world):
    since = len(world.submissions)
    out = dbt(
        "run", "--select", "typo_strict", "lambda_strict", "reads_written_elsewhere", ok=False
    )
    return out, world.submissions[since:]


def test_typo_catalog_is_a_compile_error_and_nothing_is_read(strict_failures):
    out, submitted = strict_failures
    assert (
        "model 'model.workflows.typo_strict' reads source('typo', 'orders') from catalog "
        "'partner_catalgo', but 'partner_catalgo' is not registered as an Athena data catalog"
    ) in out
    assert "if 'partner_catalgo' is a typo, correct the database of source('typo', 'orders')" in out
    assert submitted == []


def test_lambda_catalog_is_a_compile_error(strict_failures):
    out, _ = strict_failures
    assert "'lambda_catalog' is a LAMBDA data catalog" in out
    assert "Spark would read the local account's table `sales`.`orders` instead" in out


# ---- slim CI: --defer --state --favor-state ---------------------------------------------------
@pytest.fixture(scope="module")
def prod_state(dbt, project: Path) -> Path:
    """The production manifest slim CI defers to: upstream_orders is partner_catalog.sales.orders."""
    dbt("parse", "--target", "prod", "--target-path", "prod_state")
    nodes = json.loads((project / "prod_state" / "manifest.json").read_text())["nodes"]
    assert nodes["model.workflows.upstream_orders"]["database"] == "partner_catalog"
    return project / "prod_state"


def test_without_defer_the_dev_relation_is_local(dbt, world):
    dbt("run", "--select", "deferred_reader")
    assert order_ids("deferred_reader") == LOCAL_ROWS


@pytest.mark.parametrize("command", ["run", "build"])
def test_defer_reads_the_relation_ref_renders_in_the_owner_account(dbt, world, prod_state, command):
    drop(world, "deferred_reader")
    since = len(world.submissions)
    dbt(
        command,
        "--select",
        "deferred_reader",
        "--defer",
        "--state",
        str(prod_state),
        "--favor-state",
    )
    assert order_ids("deferred_reader") == PARTNER_ROWS
    [calc] = submitted_for(world, "deferred_reader", since)
    assert "`999999999999/sales`.`orders`" in calc.code


# ---- dbt run --empty ----------------------------------------------------------------------------
def test_empty_run_writes_the_schema_and_no_rows(dbt, world):
    from athena_spark_emulator.accounts.catalog import TableRef

    models = ["from_env", "two_partners"]  # one owner catalog, and two
    for model in models:
        drop(world, model)
    dbt("run", "--select", *models, "--empty")
    for model in models:
        table = world.catalog.get_table(TableRef(LOCAL_ACCOUNT, "sales", model))
        columns = [c["Name"] for c in table["StorageDescriptor"]["Columns"]]
        assert columns == ["order_id", "customer_id", "amount"], model
        assert order_ids(model) == [], model


# ---- dbt retry -----------------------------------------------------------------------------------
def test_retry_after_a_runtime_failure_reads_the_owner(dbt, world):
    world.catalog.revoke("888888888888")
    out = dbt("run", "--select", "restricted_orders", "two_partners", ok=False)
    assert "AccessDeniedException" in out
    world.catalog.grant("888888888888")
    try:
        out = dbt("retry")
    finally:
        world.catalog.revoke("888888888888")
    assert "1 of 1 OK" in out or "Completed successfully" in out
    assert order_ids("restricted_orders") == [901]


# ---- writes agree with reads --------------------------------------------------------------------
def test_python_model_in_another_catalog_fails_before_anything_runs(dbt, world):
    since = len(world.submissions)
    out = dbt("run", "--select", "written_elsewhere", ok=False)
    assert (
        "model 'model.workflows.written_elsewhere' opts in with spark_cross_account_catalog: "
        "true and its database is catalog 'partner_catalog'"
    ) in out
    assert world.submissions[since:] == []
    partner_tables = world.client("glue").get_tables(DatabaseName="sales", CatalogId="999999999999")
    # nothing was written into the partner's catalog (other suites seed more tables there)
    assert "written_elsewhere" not in [t["Name"] for t in partner_tables["TableList"]]


def test_written_locally_on_purpose_is_read_locally(dbt, world, strict_failures):
    out = dbt("run", "--select", "written_elsewhere_local", "reads_written_elsewhere_local")
    assert "so it is written there" in out
    assert order_ids("written_elsewhere_local") == SUPPLIER_ROWS
    assert order_ids("reads_written_elsewhere_local") == SUPPLIER_ROWS
    # without the fallback, the reader is stopped: the table is not in the partner's account
    assert (
        "reads ref('written_elsewhere_local') from catalog 'partner_catalog', but Python model"
        in strict_failures[0]
    )


def test_env_world_is_as_seeded(world):
    """Guard for the suite: the three accounts really hold different rows."""
    assert order_ids_of(world, "999999999999") == PARTNER_ROWS
    assert order_ids_of(world, "777777777777") == SUPPLIER_ROWS
    assert order_ids_of(world, LOCAL_ACCOUNT) == LOCAL_ROWS


def order_ids_of(world: Emulator, account: str) -> List[int]:
    return [r["order_id"] for r in rows("sales", "orders", account, order_by="order_id")]
