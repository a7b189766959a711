"""``dbt run-operation cross_account_doctor --args '{spark: true}'``: the Spark probe, through
the real dbt CLI on the emulator with local Spark. One session per distinct session
configuration, one calculation each that reads every cross-account table through the
models' read plans and generated read code as the work group's execution role; every
session terminated; read-only. Without ``spark: true`` no session starts.

One world for the module, three owners:
* 111111111111 (``cat_a``): Hive ``sales.orders`` and Iceberg ``sales.shipments``,
  ``sales.returns``, granted to the whole local account;
* 222222222222 (``cat_b``): Hive ``hr.staff`` and ``hr.payroll``, granted to the whole local
  account;
* 333333333333 (``cat_c``): Hive ``sales.orders``, granted to the dbt identity only, not to
  the execution role (planted).
Healthy models: a Hive model (``cat_a.sales.orders``, ``cat_b.hr.staff``) and an Iceberg
model (``cat_a.sales.shipments``). Planted (``--vars '{planted: true}'``): a Hive model reading
``cat_c`` and the Iceberg ``cat_a.sales.returns`` (no Iceberg classes in its session), a
model whose engine_config overrides the ``/`` separator (``cat_b.hr.payroll``), and a model
with its own engine_config whose calculation never finishes (the timeout): four sessions.
"""

from __future__ import annotations

import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.core.constants import EXECUTION_ROLE_ARN
from athena_spark_emulator.profile import dbt_env, dbt_executable, profiles_yml
from tests.emulator.doctor_project import fix_of, line, write_planted_project

pytestmark = pytest.mark.dbt

PROJECT = "doctor_spark_probe"
DBT_PRINCIPAL = f"arn:aws:sts::{LOCAL_ACCOUNT}:user/moto"  # who the emulator's dummy keys are
ROWS = {"columns": {"order_id": "int", "item": "string"}, "rows": [[1, "a"], [2, "b"]]}
HANG_MARKER = "slow_catalog"  # a calculation whose code reads this catalog never finishes
TIMEOUT = 25

SEED = {
    "data_catalogs": [
        {"name": name, "type": "GLUE", "parameters": {"catalog-id": owner}}
        for name, owner in [
            ("cat_a", "111111111111"),
            ("cat_b", "222222222222"),
            ("cat_c", "333333333333"),
            (HANG_MARKER, "111111111111"),
        ]
    ],
    "accounts": {
        "111111111111": {
            "grants": [LOCAL_ACCOUNT],
            "databases": {
                "sales": {
                    "orders": ROWS,
                    "shipments": {**ROWS, "format": "iceberg"},
                    "returns": {**ROWS, "format": "iceberg"},
                }
            },
        },
        "222222222222": {
            "grants": [LOCAL_ACCOUNT],
            "databases": {"hr": {"staff": ROWS, "payroll": ROWS}},
        },
        "333333333333": {"grants": [DBT_PRINCIPAL], "databases": {"sales": {"orders": ROWS}}},
    },
}

SOURCES = [
    {
        "name": "a",
        "database": "cat_a",
        "schema": "sales",
        "tables": [{"name": "orders"}, {"name": "shipments"}, {"name": "returns"}],
    },
    {
        "name": "b",
        "database": "cat_b",
        "schema": "hr",
        "tables": [{"name": "staff"}, {"name": "payroll"}],
    },
    {"name": "c", "database": "cat_c", "schema": "sales", "tables": [{"name": "orders"}]},
    {"name": "slow", "database": HANG_MARKER, "schema": "sales", "tables": [{"name": "orders"}]},
]


def source_model(reads: str, config: str = "") -> str:
    """A Python model returning ``reads`` (an expression of dbt.source calls)."""
    return (
        f'def model(dbt, spark):\n    dbt.config(materialized="table"{config})\n'
        f"    return {reads}\n"
    )


COLON = ', engine_config={"SparkProperties": {"spark.hadoop.aws.glue.catalog.separator": ":"}}'
SHUFFLE = ', engine_config={"SparkProperties": {"spark.sql.shuffle.partitions": "3"}}'
MODELS = {
    "hive_model.py": source_model(
        'dbt.source("a", "orders").join(dbt.source("b", "staff"), "order_id")'
    ),
    "iceberg_model.py": source_model('dbt.source("a", "shipments")', ', table_type="iceberg"'),
    "planted/dbt_role_only.py": source_model('dbt.source("c", "orders")'),
    "planted/no_iceberg_classes.py": source_model('dbt.source("a", "returns")'),
    "planted/slow.py": source_model('dbt.source("slow", "orders")', SHUFFLE),
    "planted/colon_separator.py": source_model('dbt.source("b", "payroll")', COLON),
}

PROBE_ACTIONS = {"StartSession", "StartCalculationExecution", "TerminateSession"}
WRITE_PREFIXES = (
    "Create",
    "Put",
    "Delete",
    "Update",
    "BatchCreate",
    "BatchDelete",
    "Batch",
    "Copy",
    "Start",
    "Stop",
)


def write_project(root: Path) -> Path:
    sources = {"version": 2, "sources": SOURCES}
    project = write_planted_project(root, PROJECT, sources, MODELS)
    (project / "profiles.yml").write_text(profiles_yml(PROJECT))
    return project


def files_of(root: Path) -> Dict[str, Tuple[int, int]]:
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in root.rglob("*")
        if p.is_file()
    }


@pytest.fixture(scope="module")
def world(emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, Any]]:
    release = threading.Event()

    with emulator.using_executor("spark") as spark:

        def hanging(code: str, props: Dict[str, str]) -> Any:
            if HANG_MARKER in code:
                release.wait(300)
                return False, "released by the test"
            return spark(code, props)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(emulator, "glue_owner_routing", True)
            mp.setattr(emulator, "session_lifecycle", True)
            emulator.seed(SEED)
            project = write_project(tmp_path_factory.mktemp("doctor-spark-probe"))
            deps = emulator.dbt(["deps"], project)
            assert deps.returncode == 0, deps.stdout + deps.stderr
            runs: Dict[str, Any] = {}

            def doctor(name: str, *args: str) -> Dict[str, Any]:
                emulator.clear_requests()
                before = files_of(emulator.catalog.warehouse)
                begun = time.monotonic()
                done = emulator.dbt(["run-operation", "cross_account_doctor", *args], project)
                runs[name] = {
                    "code": done.returncode,
                    "out": done.stdout + done.stderr,
                    "seconds": time.monotonic() - begun,
                    "requests": emulator.requests,
                    "files_changed": before != files_of(emulator.catalog.warehouse),
                    "sessions": dict(emulator.backend.calculations.sessions),
                }
                return runs[name]

            doctor("plain")
            doctor("healthy", "--args", "{spark: true}")
            previous = emulator.set_executor(hanging)
            try:
                doctor(
                    "planted",
                    "--vars",
                    "{planted: true}",
                    "--args",
                    f"{{spark: true, spark_timeout: {TIMEOUT}}}",
                )
            finally:
                release.set()
                emulator.backend.executor = previous
            # run only by the test that needs it (one CI leg: tests/conftest.py ONE_LEG_SUITES)
            runs["cancel"] = lambda: doctor_cancelled(emulator, project, spark)
            yield runs


def doctor_cancelled(emulator: Emulator, project: Path, spark: Any) -> Dict[str, Any]:
    """The doctor with `spark: true` in a `dbt` process of its own, sent SIGTERM (what CI
    systems send on cancel) once both probe sessions are running their calculation."""
    release, running = threading.Event(), []

    def hanging(code: str, props: Dict[str, str]) -> Any:
        running.append(1)
        release.wait(300)
        return False, "released by the test"

    previous = emulator.set_executor(hanging)
    emulator.clear_requests()
    begun = time.time()
    args = ["run-operation", "cross_account_doctor", "--args", "{spark: true}"]
    process = subprocess.Popen(
        [*dbt_executable(), *args, "--project-dir", str(project)],
        cwd=project,
        env=dbt_env(emulator.env(), project),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while len(running) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
        release.set()
        emulator.backend.executor = previous
    return {
        "code": process.returncode,
        "out": out,
        "running": len(running),
        "requests": emulator.requests,
        "sessions": {
            i: s for i, s in emulator.backend.calculations.sessions.items() if s.created >= begun
        },
    }


def actions(run: Dict[str, Any]) -> List[str]:
    return [r["action"] for r in run["requests"]]


def test_without_spark_no_session_starts(world):
    run = world["plain"]
    assert run["code"] == 0, run["out"]
    assert "StartSession" not in actions(run) and "StartCalculationExecution" not in actions(run)
    assert not re.search(r"^\S+\s+spark\s", run["out"], re.M), run["out"]


def test_healthy_world_all_pass_in_two_sessions_both_terminated(world):
    run = world["healthy"]
    out = run["out"]
    assert run["code"] == 0, out
    assert re.search(r"^\d+ PASS, 0 WARN, 0 FAIL$", out, re.M), out
    for subject, fmt in [
        ("cat_a.sales.orders", "hive"),
        ("cat_b.hr.staff", "hive"),
        ("cat_a.sales.shipments", "iceberg"),
    ]:
        reason = line(out, "PASS", "spark", subject)
        assert reason == (
            f"read as the execution role {EXECUTION_ROLE_ARN}: {fmt} table, 2 column(s), "
            "1 row(s) read (limit 1)"
        ), reason
    started = [r for r in run["requests"] if r["action"] == "StartSession"]
    assert len(started) == 2, actions(run)
    assert actions(run).count("StartCalculationExecution") == 2, actions(run)
    assert actions(run).count("TerminateSession") == 2, actions(run)
    assert all(s.state == "TERMINATED" for s in run["sessions"].values()), run["sessions"]
    assert "Spark probe: 2 session(s) started in work group 'spark_wg'" in out, out
    assert "; all terminated" in out and "DPU-seconds (Athena's DpuExecutionInMillis)" in out, out


def test_the_probe_is_read_only(world):
    for name in ("healthy", "planted"):
        run = world[name]
        assert actions(run).count("StartCalculationExecution") >= 2, (name, run["out"])
        written = [
            a for a in actions(run) if a.startswith(WRITE_PREFIXES) and a not in PROBE_ACTIONS
        ]
        assert written == [], (name, written)
        assert not run["files_changed"], name


def test_a_grant_to_the_dbt_role_only_fails_the_spark_row_naming_the_execution_role(world):
    out = world["planted"]["out"]
    subject = "cat_c.sales.orders"
    line(out, "PASS", "metadata", subject)  # as the dbt role, Glue answers
    line(out, "PASS", "data", subject)
    reason = line(out, "FAIL", "spark", subject)
    assert reason.startswith(
        f"Spark, as the execution role {EXECUTION_ROLE_ARN}: source('c', 'orders') could not be "
        "read: Glue denied the work group's execution role access to account 333333333333"
    ), reason
    fix = fix_of(out, "spark", subject)
    assert "1) owner account 333333333333: add to its Glue catalog resource policy" in fix, fix
    assert EXECUTION_ROLE_ARN in fix and DBT_PRINCIPAL not in fix, fix


def test_a_session_without_iceberg_classes_fails_on_the_iceberg_table(world):
    out = world["planted"]["out"]
    subject = "cat_a.sales.returns"
    line(out, "PASS", "metadata", subject)
    line(out, "PASS", "format", subject)
    reason = line(out, "FAIL", "spark", subject)
    assert (
        "is an Iceberg table (account 111111111111, database 'sales', table 'returns'), but "
        "the model's session has no Iceberg classes to read it with" in reason
    ), reason
    fix = fix_of(out, "spark", subject)
    assert fix.startswith("set table_type: iceberg on the model"), fix


def test_a_calculation_that_never_finishes_fails_within_the_timeout_and_is_terminated(world):
    run = world["planted"]
    reason = line(run["out"], "FAIL", "spark", f"{HANG_MARKER}.sales.orders")
    assert (
        reason
        == f"the probe session did not finish within {TIMEOUT} s (spark_timeout) and was terminated"
    )
    slow = [
        s
        for s in run["sessions"].values()
        if "spark.sql.shuffle.partitions" in str(s.engine_configuration)
    ]
    assert len(slow) == 1 and slow[0].state == "TERMINATED", run["sessions"]
    terminated = [r for r in run["requests"] if r["action"] == "TerminateSession"]
    assert slow[0].session_id in [r["params"].get("SessionId") for r in terminated]
    assert run["seconds"] < TIMEOUT + 60, run["seconds"]
    assert run["code"] != 0  # a FAIL fails the command


def test_an_engine_config_that_overrides_the_separator_fails_the_spark_row(world):
    out = world["planted"]["out"]
    subject = "cat_b.hr.payroll"
    line(out, "PASS", "metadata", subject)
    line(out, "WARN", "session", "model.doctor_spark_probe.colon_separator")
    reason = line(out, "FAIL", "spark", subject)
    assert reason == (
        f"Spark, as the execution role {EXECUTION_ROLE_ARN}: source('b', 'payroll') could not be "
        "read: account 222222222222 has no table 'payroll' in database 'hr' in its Glue catalog "
        "in this region. Check the source's schema and identifier with the owner, and that the "
        "model keeps spark.hadoop.aws.glue.catalog.separator: '/'."
    ), reason
    assert "4 session(s) started" in out, out


def test_sigterm_during_the_probe_terminates_every_session(world):
    """SIGTERM (a CI cancel) used to end dbt with -15 and sent no TerminateSession: both
    sessions stayed IDLE, accruing DPU time."""
    run = world["cancel"]()
    assert run["running"] == 2, run["out"][-3000:]
    started = [r for r in run["requests"] if r["action"] == "StartSession"]
    terminated = {
        r["params"].get("SessionId") for r in run["requests"] if r["action"] == "TerminateSession"
    }
    assert len(started) == 2 and len(run["sessions"]) == 2, run["sessions"]
    for session_id, session in run["sessions"].items():
        assert session.state == "TERMINATED" and session_id in terminated, run["sessions"]
    assert run["code"] == -signal.SIGTERM  # the signal went on to dbt after the sessions ended
