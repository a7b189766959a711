"""The code opted-in models submit, run on a real Spark Connect session: Athena's Apache
Spark 3.5 engine has no Calculation API, and dbt-athena's Spark Connect path (dbt-adapters
pull request #1874) runs the same generated code in the dbt process with
``exec(code, {"spark": <Spark Connect session>})``.

One `dbt run` (and one `dbt run --empty`) of tests/connect/project/ through the real dbt
console script on the emulator's classic local Spark gives each model's submitted code and
what it did there. The same code then runs on PySpark 4's local Spark Connect server
(``connect_runner.py``, in the venv ``make venv-connect`` builds), and the two engines
must agree: the same rows, or the same CrossAccountReadError, raised from inside
get_spark_df, the read's own error mapping. On Spark Connect ``spark.table()`` is lazy, so
an error the mapping does not see there surfaces later, raw, in the model body or in
dbt-athena's materialize().
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest
import yaml

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.spark.executor import SparkExecutor
from tests.conftest import REPO_ROOT
from tests.integration.conftest import rows, seeded_with_spark
from tests.stack import dbt_cli

pytestmark = [
    pytest.mark.spark,
    pytest.mark.dbt,
]

HERE = Path(__file__).parent
SEED = HERE / "connect_seed.yml"
PARTNER, SUPPLIER = "711111111111", "722222222222"
MODELS = ("two_owners", "iceberg_by_meta", "iceberg_without_classes", "missing_table")
TWO_OWNERS = [
    {"order_id": 7101, "name": "Acme", "region": "EMEA", "amount": 71.0},
    {"order_id": 7102, "name": "Globex", "region": "APAC", "amount": 71.5},
]
SHIPMENTS = [{"order_id": 7101, "carrier": "DHL"}, {"order_id": 7102, "carrier": "UPS"}]
CLASSES_MISSING = (
    f"dbt_athena_cross_account: source('partner', 'shipments') is an Iceberg table (account "
    f"{PARTNER}, database 'sales', table 'shipments'), but the model's session has no Iceberg "
    "classes to read it with. Fix: set table_type: iceberg on the model"
)
NOT_FOUND = (
    f"dbt_athena_cross_account: source('partner', 'returns') could not be read: account "
    f"{PARTNER} has no table 'returns' in database 'sales' in its Glue catalog in this region."
)


def connect_python() -> Path:
    value = os.environ.get("SPARK_CONNECT_PYTHON")
    if not value or not Path(value).exists():
        pytest.fail(
            "SPARK_CONNECT_PYTHON is not set to the PySpark 4 venv's python "
            f"(now {value!r}). Fix: run `make test`, which builds it (`make venv-connect`) "
            "and sets it."
        )
    return Path(value).absolute()  # the runner starts in a temp dir; make passes a relative path


@pytest.fixture(scope="module")
def world(emulator: Emulator) -> Iterator[Emulator]:
    executor = SparkExecutor(catalog=emulator.catalog)
    try:
        with seeded_with_spark(emulator, executor, SEED):
            yield emulator
    finally:
        executor.close()


def submitted(world: Emulator, since: int) -> Dict[str, Any]:
    """model name -> the calculation that wrote it (its code, properties, state, reason)."""
    found = {}
    for calc in world.submissions[since:]:
        for name in MODELS:
            if f'name="connect_out.{name}"' in calc.code:
                found[name] = calc
    return found


@pytest.fixture(scope="module")
def classic(tmp_path_factory: pytest.TempPathFactory, world: Emulator) -> Dict[str, Any]:
    """`dbt deps`, `dbt run` and `dbt run --empty --select two_owners` on the emulator."""
    project = tmp_path_factory.mktemp("connect") / "project"
    shutil.copytree(HERE / "project", project)
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO_ROOT}\n", encoding="utf-8")
    env = {**world.env(), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    deps = dbt_cli(["deps"], project, project, env)
    assert deps.returncode == 0, deps.stdout + deps.stderr
    since = len(world.submissions)
    run = dbt_cli(["run"], project, project, env)
    output = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 1, output[-4000:]  # two models fail on purpose
    calcs = submitted(world, since)
    assert sorted(calcs) == sorted(MODELS), output[-4000:]
    wrote = {name: rows("connect_out", name, order_by="order_id") for name in MODELS[:2]}
    since = len(world.submissions)
    empty = dbt_cli(["run", "--empty", "--select", "two_owners"], project, project, env)
    assert empty.returncode == 0, empty.stdout[-4000:] + empty.stderr[-4000:]
    calcs["two_owners_empty"] = submitted(world, since)["two_owners"]
    wrote["two_owners_empty"] = rows("connect_out", "two_owners")
    return {"calcs": calcs, "rows": wrote, "output": output}


@pytest.fixture(scope="module")
def connect(classic: Dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    """Each model's submitted code, run once more on a real Spark Connect session."""
    python = connect_python()
    folder = tmp_path_factory.mktemp("connect-run")
    seed = yaml.safe_load(SEED.read_text(encoding="utf-8"))
    job = {
        "local": LOCAL_ACCOUNT,
        "world": seed["accounts"],
        "runs": [
            {"name": name, "code": calc.code, "spark_properties": calc.spark_properties}
            for name, calc in classic["calcs"].items()
        ],
    }
    (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
    proc = subprocess.run(
        [str(python), str(HERE / "connect_runner.py"), "job.json", "result.json"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return json.loads((folder / "result.json").read_text(encoding="utf-8"))


def by_order(found: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    return sorted(found, key=lambda row: row["order_id"])


def test_the_runner_is_a_real_spark_connect_client(connect):
    versions = connect["_versions"]
    assert versions["pyspark"].startswith("4.") and versions["server"].startswith("4."), versions


def test_two_owner_accounts_and_a_local_table_read_the_same_rows_on_both_engines(classic, connect):
    assert classic["rows"]["two_owners"] == TWO_OWNERS, classic["output"][-3000:]
    assert connect["two_owners"] == {"ok": True, "rows": TWO_OWNERS}


def test_an_owners_iceberg_table_named_by_meta_reads_on_both_engines(classic, connect):
    assert classic["rows"]["iceberg_by_meta"] == SHIPMENTS, classic["output"][-3000:]
    assert connect["iceberg_by_meta"]["ok"], connect["iceberg_by_meta"]
    assert by_order(connect["iceberg_by_meta"]["rows"]) == SHIPMENTS


@pytest.mark.parametrize(
    "model, message",
    [("iceberg_without_classes", CLASSES_MISSING), ("missing_table", NOT_FOUND)],
    ids=["missing-iceberg-classes", "missing-table"],
)
def test_a_failed_read_raises_the_packages_error_inside_get_spark_df_on_both_engines(
    classic, connect, model, message
):
    calc = classic["calcs"][model]
    assert calc.state == "FAILED" and message in calc.reason, calc.reason[-2000:]
    found = connect[model]
    assert not found["ok"], found
    assert (found["type"], found["raised_in"]) == ("CrossAccountReadError", "get_spark_df"), found
    assert found["message"].startswith(message), found["message"][:2000]


def test_dbt_run_empty_reads_the_schema_and_no_rows_on_both_engines(classic, connect):
    assert classic["rows"]["two_owners_empty"] == []
    assert connect["two_owners_empty"] == {"ok": True, "rows": []}
