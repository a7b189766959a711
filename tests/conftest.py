"""The root conftest: light on purpose. It imports nothing beyond pytest and the standard
library, so the pure tests (tests/pure/) run with only the plugin's own dependencies
installed (tests/packaging/test_pure_tests_are_light.py checks it in such a venv).

The heavy fixtures (one local emulator per test run, dbt-tests-adapter's project fixtures
pointed at it, an environment without the plugin) are the plugins in ``HEAVY_PLUGINS``,
which this conftest registers unless every path pytest was given is under tests/pure/."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable, Dict, List, Optional

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
PURE_TESTS = REPO_ROOT / "tests" / "pure"
# dbt-tests-adapter's project fixtures, then ours: registered in this order, so that our
# fixtures of the same name (dbt_profile_target: dbt-athena on the emulator) win.
HEAVY_PLUGINS = ("dbt.tests.fixtures.project", "tests.stack")


def only_pure_tests(args: List[str], invoked_in: Path) -> bool:
    """True when every path pytest was given is under tests/pure/ (``path::test`` too)."""
    paths = [(invoked_in / arg.split("::", 1)[0]).resolve() for arg in args]
    return bool(paths) and all(p == PURE_TESTS or PURE_TESTS in p.parents for p in paths)


def pytest_configure(config: pytest.Config) -> None:
    if not only_pure_tests(list(config.args), config.invocation_params.dir):
        for plugin in HEAVY_PLUGINS:
            config.pluginmanager.import_plugin(plugin)


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
