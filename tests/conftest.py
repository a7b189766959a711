"""Shared fixtures: one local emulator per test run, dbt-tests-adapter's project fixtures
pointed at it, helpers to run the real dbt CLI, and an environment without the plugin."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator

# The dbt target/profile helpers live in the emulator package (bench/ and users need them
# too); re-exported here for the tests that import them from tests.conftest.
from athena_spark_emulator.constants import DATA_BUCKET, SPARK_WORK_GROUP, STAGING_BUCKET
from athena_spark_emulator.profile import athena_target, dbt_cli, ensure_data_catalog
from athena_spark_emulator.profile import prepare as prepare_base

pytest_plugins = ["dbt.tests.fixtures.project"]

REPO_ROOT = Path(__file__).resolve().parents[1]

__all__ = [
    "DATA_BUCKET",
    "REPO_ROOT",
    "SPARK_WORK_GROUP",
    "STAGING_BUCKET",
    "athena_target",
    "dbt_cli",
    "dbt_core_version",
    "ensure_data_catalog",
    "newest_leg_only",
    "one_ci_leg",
    "prepare_base",
    "read_plan_in",
    "run_in_threads",
    "tables_read",
]


def dbt_core_version() -> tuple:
    """The installed dbt-core's (major, minor)."""
    from importlib.metadata import version

    return tuple(int(p) for p in version("dbt-core").split(".")[:2])


def newest_leg_only(what: str) -> pytest.MarkDecorator:
    """Skip below dbt-core 1.12: CI runs ``what`` once, in the leg with the newest dbt-core
    (the three legs share two cores). The reason says "version-gated", which CI's summary
    accepts for a test skipped in the other legs."""
    return pytest.mark.skipif(
        dbt_core_version() < (1, 12), reason=f"version-gated: {what} runs in the dbt-core 1.12 leg"
    )


LEGS = {"min": "dbt-core 1.9", "mid": "dbt-core 1.11", "max": "dbt-core 1.12"}


def one_ci_leg(what: str, leg: str) -> pytest.MarkDecorator:
    """In CI (``.ci/run`` sets ``CI_LEG``), run ``what`` in ``leg`` only, so that the slow
    end-to-end suites are spread over the three legs that share two cores; outside CI it
    always runs. The reason names dbt-core, which CI's summary accepts as version-gated."""
    import os

    if leg not in LEGS:
        raise ValueError(f"leg is one of {sorted(LEGS)}, not {leg!r}")
    current = os.environ.get("CI_LEG")
    return pytest.mark.skipif(
        current is not None and current != leg,
        reason=f"version-gated: CI runs {what} in its {leg} leg ({LEGS[leg]}) only",
    )


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


SESSION_EMULATOR: List[Emulator] = []  # the `emulator` fixture's, for helpers without it


@pytest.fixture(scope="module", autouse=True)
def fresh_emulator_per_module() -> Iterator[None]:
    """Every test module starts from an empty session emulator (no AWS state, files,
    grants, faults, counters or calculations; the buckets and work groups of ``prepare``
    again), so no module leans on what another left behind: CI runs one leg in random
    order (pytest-randomly) to prove it. Autouse, so it runs before the module's own
    fixtures seed their world; it starts no emulator."""
    if SESSION_EMULATOR:
        SESSION_EMULATOR[0].reset()
    yield


@pytest.fixture(scope="session")
def emulator() -> Iterator[Emulator]:
    with Emulator() as emu, pytest.MonkeyPatch.context() as mp:
        SESSION_EMULATOR[:] = [emu]
        for key, value in emu.env().items():
            mp.setenv(key, value)
        # dbt must never pick up a developer's real AWS profile in tests.
        mp.delenv("AWS_PROFILE", raising=False)
        mp.setenv("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        emu.prepare()
        yield emu
        SESSION_EMULATOR.clear()


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
