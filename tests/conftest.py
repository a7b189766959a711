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


LEGS = {"min": "dbt-core 1.9", "mid": "dbt-core 1.11", "max": "dbt-core 1.12"}

# CI's legs share two cores, so a suite whose outcome does not depend on the dbt-core or
# dbt-athena version runs in one leg only: this table says which. A path, a module or a
# test id (a prefix of pytest's node id) -> the leg. Everything not listed is the
# version-sensitive core (plugin discovery, the package's macros and generated code on each
# dbt, the CLI workflows, the doctor's run-operation) and runs in every leg. The table
# applies only when CI (``.ci/leg``) sets ``CI_LEG``: outside CI, everything runs.
ONE_LEG_SUITES: Dict[str, str] = {
    # The legs' times are kept even (CI's wall time is its longest leg; .ci/run prints each
    # leg's, and the junit files have each suite's): move a suite to balance them.
    # max: the newest dbt, what a new user installs
    # needs the PySpark 4 venv, which .ci/leg builds in this leg only; the code it runs comes
    # from dbt-athena's python_submissions template, byte-identical from 1.9.0 to 1.11.1
    "tests/connect/": "max",
    "tests/integration/test_adapter_base.py": "max",
    "tests/integration/test_realistic_project.py": "max",
    "tests/conformance/": "max",  # Trino's documented examples on the emulator's Athena SQL
    # a fixed sample of the Trino corpus against its ledger (1,500 entries)
    "tests/conformance/test_trino_ledger.py": "max",
    # a fixed sample of the column forms (60 docs entries x 4 forms, and their tables)
    "tests/conformance/test_column_forms_on_emulator.py": "max",
    # --data-dir durability: kill -9 of real emulator processes, whatever the dbt
    "tests/emulator/test_data_dir.py": "max",
    # min
    "tests/e2e/": "min",  # its own new venv installs dbt as the docs say, whatever the leg
    "tests/integration/test_emulator.py": "min",
    # spark_cross_account_roles end to end: the plan, the emulator's STS and the doctor do
    # not depend on dbt; its dict config (project, folder, dbt.config) is read as in 1.9
    "tests/integration/test_assume_role.py": "min",
    "tests/unit/doctor/": "min",  # run_doctor with boto3 clients: no dbt
    "tests/unit/test_resolver.py": "min",
    # Athena statements (partitions, schema changes): the emulator's, whatever the dbt
    "tests/integration/test_partitions_on_emulator.py": "min",
    "tests/integration/test_schema_changes_on_emulator.py": "min",
    "tests/unit/test_athena_sql.py": "min",
    "tests/unit/test_handler_table.py": "min",
    "tests/packaging/test_install_dbt.py": "min",
    "tests/packaging/test_pure_tests_are_light.py": "min",
    "tests/packaging/test_editable_install.py": "min",
    "tests/packaging/test_wheel.py": "min",
    "tests/functional/test_dbt_run.py::TestOneLookupPerRun::test_calls[1]": "min",
    "tests/functional/test_doctor_spark_probe.py::test_sigterm_during_the_probe_terminates_every_session": "min",
    # emulator modules moved from mid (which has the rest of tests/emulator/) to even the legs
    "tests/emulator/test_aggregate_result_types.py": "min",  # 855 tests, about 3 minutes
    "tests/emulator/test_trino_strings_json.py": "min",
    "tests/emulator/test_trino_query_family.py": "min",
    # the mid leg was the longest (1,868 s on 3642080, next to min's 1,305 s)
    "tests/emulator/test_more_functions.py": "min",
    "tests/emulator/test_time_values.py": "min",
    "tests/emulator/test_zoned_values.py": "min",
    # a failure's reason through the dbt CLI: the emulator's text, whatever the dbt
    "tests/integration/test_failure_reasons_cli.py": "min",
    # mid
    "tests/integration/test_guards.py": "mid",
    # spark_cross_account_roles settings as users write them (merged levels, missing opt-in,
    # the doctor): the package's macros and the plugin, through the dbt of the leg's family
    "tests/integration/test_roles_settings.py": "mid",
    # dbt's cross-database macros as each dbt renders them are the same SQL from 1.9 on
    "tests/integration/test_athena_sql_semantics.py": "mid",
    "tests/bench/": "mid",
    "tests/emulator/": "mid",
    "tests/integration/test_typed_seeds.py": "mid",
    "tests/unit/test_glue_types.py": "mid",
    "tests/packaging/test_dbt_package.py::test_dbt_deps_from_local_path": "mid",
    "tests/packaging/test_dbt_package.py::test_dbt_deps_from_git_url": "mid",
}
# The leg whose venv has the Spark Connect client (.ci/leg builds it there only).
CONNECT_LEG = ONE_LEG_SUITES["tests/connect/"]


def one_leg_of(nodeid: str) -> Optional[str]:
    """The leg that runs the test ``nodeid`` (None: every leg); the longest prefix wins."""
    found = [prefix for prefix in ONE_LEG_SUITES if nodeid.startswith(prefix)]
    return ONE_LEG_SUITES[max(found, key=len)] if found else None


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    import os

    current = os.environ.get("CI_LEG")
    if current is None:
        return
    if current not in LEGS:
        raise pytest.UsageError(f"CI_LEG is one of {sorted(LEGS)}, not {current!r}")
    for item in items:
        leg = one_leg_of(item.nodeid)
        if leg is not None and leg != current:
            # "version-gated" (with dbt-core named): CI's summary accepts the skip
            reason = f"version-gated: CI runs it in its {leg} leg ({LEGS[leg]}) only"
            item.add_marker(pytest.mark.skip(reason=reason))


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
