"""Shared fixtures: one local emulator per test run, dbt-tests-adapter's project fixtures
pointed at it, helpers to run the real dbt CLI, and an environment without the plugin."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

import pytest

from athena_spark_emulator import REGION, Emulator

pytest_plugins = ["dbt.tests.fixtures.project"]

REPO_ROOT = Path(__file__).resolve().parents[1]
SPARK_WORK_GROUP = "spark_wg"
STAGING_BUCKET = "dbt-staging"
DATA_BUCKET = "dbt-data"


def prepare_base(emulator: Emulator) -> None:
    """Work groups and buckets every dbt-athena run needs (idempotent)."""
    athena = emulator.client("athena")
    existing = {w["Name"] for w in athena.list_work_groups()["WorkGroups"]}
    if SPARK_WORK_GROUP not in existing:
        athena.create_work_group(
            Name=SPARK_WORK_GROUP,
            Configuration={"EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"}},
        )
    s3 = emulator.client("s3")
    for bucket in (STAGING_BUCKET, DATA_BUCKET):
        s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION})


def run_in_threads(target: Callable[[int], None], count: int) -> None:
    """Call ``target(i)`` for i in range(count), each in its own thread; wait for all."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def read_plan_in(code: str) -> Optional[Dict[str, Dict[str, object]]]:
    """The ``_CROSS_ACCOUNT_TABLES`` read plan injected into submitted code (None: not injected).

    Evaluates the code's top-level imports and that one assignment, whatever literal form
    the package uses for it. Values are ``{"table", "account", "empty"}``.
    """
    marker = "_CROSS_ACCOUNT_TABLES ="
    lines = [
        line
        for line in code.splitlines()
        if line.startswith(("import ", "from ")) or line.startswith(marker)
    ]
    if not any(line.startswith(marker) for line in lines):
        return None
    namespace: Dict[str, object] = {}
    exec("\n".join(lines), namespace)
    return dict(namespace["_CROSS_ACCOUNT_TABLES"])  # type: ignore[call-overload]


def tables_read(code: str) -> Optional[Dict[str, object]]:
    """``{relation string: Spark table name}`` of the read plan in submitted code."""
    plan = read_plan_in(code)
    return None if plan is None else {key: entry["table"] for key, entry in plan.items()}


def ensure_data_catalog(
    emulator: Emulator,
    name: str,
    catalog_type: str = "GLUE",
    parameters: Optional[Dict[str, str]] = None,
) -> None:
    athena = emulator.client("athena")
    if athena.get_data_catalog(Name=name).get("DataCatalog"):
        return
    kwargs = {"Name": name, "Type": catalog_type}
    if parameters is not None:
        kwargs["Parameters"] = parameters
    athena.create_data_catalog(**kwargs)


@pytest.fixture(scope="session")
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu, pytest.MonkeyPatch.context() as mp:
        for key, value in emu.env().items():
            mp.setenv(key, value)
        # dbt must never pick up a developer's real AWS profile in tests.
        mp.delenv("AWS_PROFILE", raising=False)
        mp.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        prepare_base(emu)
        yield emu


def athena_target(schema: str = "dbt_test", threads: int = 1) -> Dict[str, object]:
    return {
        "type": "athena",
        "s3_staging_dir": f"s3://{STAGING_BUCKET}/",
        "s3_data_dir": f"s3://{DATA_BUCKET}/",
        "region_name": REGION,
        "database": "awsdatacatalog",
        "schema": schema,
        "spark_work_group": SPARK_WORK_GROUP,
        "threads": threads,
        "poll_interval": 0.05,
        "num_retries": 1,
        "num_boto3_retries": 3,
    }


@pytest.fixture(scope="class")
def dbt_profile_target(emulator: Emulator) -> Dict[str, object]:
    """dbt-tests-adapter's target: dbt-athena pointed at the emulator."""
    return athena_target()


# ---- the dbt CLI as a user runs it ----------------------------------------------------
def dbt_cli(
    args: List[str],
    project_dir: Path,
    profiles_dir: Path,
    env: Dict[str, str],
    python: Optional[Path] = None,
    timeout: int = 600,
) -> subprocess.CompletedProcess:
    """Run ``dbt ARGS`` in a subprocess; ``python`` picks the environment (default: this one)."""
    if python is None:
        command = [str(Path(sys.executable).parent / "dbt")]
    else:
        command = [str(python), "-m", "dbt.cli.main"]
    full_env = {**os.environ, **env, "DBT_PROFILES_DIR": str(profiles_dir)}
    return subprocess.run(
        [*command, *args, "--project-dir", str(project_dir)],
        cwd=project_dir,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


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
