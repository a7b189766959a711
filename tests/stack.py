"""The heavy test fixtures, a pytest plugin that tests/conftest.py registers (after
dbt-tests-adapter's project fixtures, so ours win) for every run that is not only
tests/pure/: one local emulator per test run, dbt-tests-adapter's project fixtures pointed
at it, and an environment without the plugin. Also the dbt target/profile
helpers of the emulator package (bench/ and users need them too), for the tests that import
them from here."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

import athena_spark_emulator.profile as emulator_profile
from athena_spark_emulator import Emulator
from athena_spark_emulator.core.constants import DATA_BUCKET, SPARK_WORK_GROUP, STAGING_BUCKET
from athena_spark_emulator.profile import athena_target, ensure_data_catalog
from athena_spark_emulator.profile import prepare as prepare_base
from tests import forked_dbt

__all__ = [
    "DATA_BUCKET",
    "SESSION_EMULATOR",
    "SPARK_WORK_GROUP",
    "STAGING_BUCKET",
    "athena_target",
    "dbt_cli",
    "ensure_data_catalog",
    "prepare_base",
]


_subprocess_dbt_cli = emulator_profile.dbt_cli
# dbt-tests-adapter's classes run dbt in this process, and dbt-athena makes a botocore
# session (and so decodes the service models again) for most AWS calls: share the loader.
forked_dbt.share_botocore_loader()


def athena_rows(
    emulator: Emulator, sql: str, database: Optional[str] = None
) -> List[Dict[str, Any]]:
    """Rows of an Athena SQL query run on the emulator's primary work group, as pyathena
    reads them (text); ``database`` is the query's default database. The query must succeed."""
    athena = emulator.client("athena")
    context = {"QueryExecutionContext": {"Database": database}} if database else {}
    started = athena.start_query_execution(QueryString=sql, WorkGroup="primary", **context)
    exec_id = started["QueryExecutionId"]
    status = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]["Status"]
    assert status["State"] == "SUCCEEDED", status
    result = athena.get_query_results(QueryExecutionId=exec_id)["ResultSet"]
    names = [c["Name"] for c in result["ResultSetMetadata"]["ColumnInfo"]]
    return [
        dict(zip(names, [d.get("VarCharValue") for d in row["Data"]])) for row in result["Rows"][1:]
    ]


def dbt_cli(
    args: List[str],
    project_dir: Path,
    profiles_dir: Path,
    env: Dict[str, str],
    python: Optional[Path] = None,
    timeout: int = 600,
) -> subprocess.CompletedProcess:
    """The emulator package's ``dbt_cli`` (``dbt ARGS`` in a new process), with the process
    forked from a warm one that has imported dbt (tests/forked_dbt.py) when it is this
    environment's dbt; another ``python``, or ``DBT_CLI_FORK=0``, runs a plain subprocess."""
    if python is not None or not forked_dbt.enabled():
        return _subprocess_dbt_cli(args, project_dir, profiles_dir, env, python, timeout)
    [script] = emulator_profile.dbt_executable()
    return forked_dbt.run(
        [*args, "--project-dir", str(project_dir)],
        project_dir,
        emulator_profile.dbt_env(env, profiles_dir),
        script,
        timeout,
    )


SESSION_EMULATOR: List[Emulator] = []  # the `emulator` fixture's, for helpers without it


@pytest.fixture(scope="session")
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu, pytest.MonkeyPatch.context() as mp:
        SESSION_EMULATOR[:] = [emu]
        mp.setattr(emulator_profile, "dbt_cli", dbt_cli)  # Emulator.dbt() forks too
        for key, value in emu.env().items():
            mp.setenv(key, value)
        # dbt must never pick up a developer's real AWS profile in tests.
        mp.delenv("AWS_PROFILE", raising=False)
        mp.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        emu.prepare()
        yield emu
        SESSION_EMULATOR.clear()


@pytest.fixture(scope="module", autouse=True)
def fresh_emulator_per_module() -> Iterator[None]:
    """Every test module starts from an empty session emulator (no AWS state, files,
    grants, faults, counters or calculations; the buckets and work groups of ``prepare``
    again), so no module leans on what another left behind: CI runs one leg in random order
    (pytest-randomly) to prove it. Autouse, so it runs before the module's own fixtures
    seed their world; it starts no emulator.

    dbt run in this process (dbt-tests-adapter's ``run_dbt``) keeps the Spark sessions it
    started in dbt-athena's module-level ``spark_session_list`` across invocations, which a
    fresh dbt process never does. After the reset those sessions are TERMINATED, and
    dbt-athena 1.9 retries StartCalculationExecution on them forever (it only drops a
    session after a "BUSY" answer). So the reset also empties that list, as a new process
    would have it."""
    if SESSION_EMULATOR:
        SESSION_EMULATOR[0].reset()
        forget_dbt_athena_sessions()
    yield


def forget_dbt_athena_sessions() -> None:
    """Empty dbt-athena's in-process registry of Spark sessions (and their load)."""
    from dbt.adapters.athena import session

    session.spark_session_list.clear()
    session.spark_session_load.clear()


@pytest.fixture(scope="class")
def dbt_profile_target(emulator: Emulator) -> Dict[str, object]:
    """dbt-tests-adapter's target: dbt-athena pointed at the emulator."""
    return athena_target()


@pytest.fixture(scope="session")
def python_without_plugin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real environment with dbt-core and dbt-athena but without the plugin.

    A pip-less venv whose site-packages links every entry of this one except
    dbt_athena_cross_account and its dist-info.
    """
    root = tmp_path_factory.mktemp("venv-noplugin")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    ours = Path(sysconfig.get_paths()["purelib"])
    theirs = Path(
        subprocess.run(
            [
                str(root / "bin" / "python"),
                "-c",
                "import sysconfig;print(sysconfig.get_paths()['purelib'])",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    for entry in ours.iterdir():
        name = entry.name.lower()
        if name.startswith("dbt_athena_cross_account"):
            continue
        target = theirs / entry.name
        if not target.exists():
            target.symlink_to(entry)
    probe = subprocess.run(
        [
            str(root / "bin" / "python"),
            "-c",
            "import dbt.adapters.athena, dbt_athena_cross_account",
        ],
        capture_output=True,
        text=True,
    )
    assert "No module named 'dbt_athena_cross_account'" in probe.stderr, probe.stderr
    return root / "bin" / "python"
