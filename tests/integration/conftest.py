"""Fixtures for the end-to-end tests: the shared emulator switched to the real local PySpark
executor (one SparkSession per test run), seeded with two accounts, and dbt-tests-adapter
projects built from the models of the integration_tests/ dbt project."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef
from athena_spark_emulator.spark.executor import SparkExecutor, read_rows
from tests.conftest import REPO_ROOT
from tests.stack import SESSION_EMULATOR, athena_target, dbt_cli

INTEGRATION_PROJECT = REPO_ROOT / "integration_tests"
SEED_FILE = INTEGRATION_PROJECT / "fixtures" / "two_accounts.yml"
PARTNER = "999999999999"
RESTRICTED = "888888888888"
DISPATCH = [
    {"macro_namespace": "athena", "search_order": ["test", "dbt_athena_cross_account", "dbt"]}
]


def model_files(*names: str, subdir: Optional[str] = None) -> Dict[str, str]:
    """integration_tests/models/<subdir>/<name>.py contents, for dbt-tests-adapter's ``models``."""
    folder = INTEGRATION_PROJECT / "models" / (subdir or "")
    return {f"{name}.py": (folder / f"{name}.py").read_text(encoding="utf-8") for name in names}


def sources_yml() -> str:
    return (INTEGRATION_PROJECT / "models" / "sources.yml").read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def spark_executor(emulator: Emulator) -> Iterator[SparkExecutor]:
    """One executor (and so one local SparkSession, started lazily) for the whole run, on
    the session emulator's catalog; closing it at the end stops Spark."""
    executor = SparkExecutor(catalog=emulator.catalog)
    yield executor
    executor.close()


@pytest.fixture(scope="class")
def spark_emulator(emulator: Emulator, spark_executor: SparkExecutor) -> Iterator[Emulator]:
    """The shared emulator with the Spark executor for this class, freshly seeded.

    Glue API calls with an owner's CatalogId are routed to the owner's Glue for the class.
    The instant executor (the default other tests rely on) is restored afterwards.
    """
    with seeded_with_spark(emulator, spark_executor, SEED_FILE):
        yield emulator


@contextlib.contextmanager
def seeded_with_spark(
    emulator: Emulator, spark_executor: SparkExecutor, seed: Path
) -> Iterator[Emulator]:
    """The shared emulator seeded with ``seed``, running calculations in local Spark, with
    Glue calls routed by CatalogId to the owner's Glue and Spark sessions' lifecycle on;
    the instant executor and both switches are restored afterwards."""
    routing, lifecycle = emulator.glue_owner_routing, emulator.session_lifecycle
    emulator.glue_owner_routing = emulator.session_lifecycle = True
    try:
        with emulator.using_executor(spark_executor):
            emulator.seed(seed)
            yield emulator
    finally:
        emulator.glue_owner_routing, emulator.session_lifecycle = routing, lifecycle


@pytest.fixture(scope="class")
def dbt_profile_target(spark_emulator: Emulator) -> Dict[str, object]:
    """dbt-tests-adapter's target; depends on spark_emulator so the schema is created in Glue."""
    return athena_target()


def rows(
    schema: str, table: str, account: str = LOCAL_ACCOUNT, order_by: Optional[str] = None
) -> List[dict]:
    """What a model wrote, read back from the session emulator's storage through its Glue
    entry."""
    catalog = SESSION_EMULATOR[0].catalog
    return read_rows(TableRef(account, schema.lower(), table.lower()), catalog, order_by)


def calculations_for(emulator: Emulator, schema: str, table: str, since: int = 0) -> list:
    """Calculations whose code writes ``schema.table`` (the stock writer's saveAsTable)."""
    marker = f'name="{schema}.{table}"'
    return [c for c in emulator.submissions[since:] if marker in c.code]


def model_results(results) -> list:
    """run_dbt's results without the on-run-start hook."""
    return [r for r in results if r.node.resource_type == "model"]


def copy_project(target: Path) -> Path:
    """A copy of integration_tests/ whose packages.yml points at this repository."""
    shutil.copytree(
        INTEGRATION_PROJECT,
        target,
        ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "__pycache__"),
    )
    (target / "packages.yml").write_text(f"packages:\n  - local: {REPO_ROOT}\n", encoding="utf-8")
    return target


@pytest.fixture(scope="session")
def cli_project(tmp_path_factory: pytest.TempPathFactory, emulator: Emulator) -> Path:
    """integration_tests/ copied, with `dbt deps` already run by the real console script."""
    project = copy_project(tmp_path_factory.mktemp("cli") / "integration_tests")
    deps = dbt_cli(["deps"], project, project, emulator.env())
    assert deps.returncode == 0, deps.stdout + deps.stderr
    return project


class Dbt:
    """`dbt ARGS` in a fresh process, with the emulator's environment (and ``base_env``);
    asserts the exit status (``ok``) and returns the output with dbt's line wrapping undone."""

    def __init__(self, project: Path, world: Emulator, **base_env: str) -> None:
        self.project, self.world, self.base_env = project, world, base_env

    def __call__(self, *args: str, ok: bool = True, **env: str) -> str:
        full_env = {
            **self.world.env(),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            **self.base_env,
            **env,
        }
        result = dbt_cli(list(args), self.project, self.project, full_env)
        output = result.stdout + result.stderr
        assert (result.returncode == 0) is ok, output[-6000:]
        return " ".join(output.split())  # dbt wraps long lines


def project_with_deps(
    tmp_path_factory: pytest.TempPathFactory, world: Emulator, source: Path
) -> Path:
    """``source`` (a dbt project folder) copied, with this repository as its package, after
    `dbt deps` by the real console script."""
    project = tmp_path_factory.mktemp(source.name) / "project"
    shutil.copytree(source, project)
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO_ROOT}\n", encoding="utf-8")
    result = dbt_cli(["deps"], project, project, world.env())
    assert result.returncode == 0, result.stdout + result.stderr
    return project


def drop_local_table(world: Emulator, table: str, schema: str = "sales") -> None:
    """Remove a model's table from the local Glue, so a run that writes nothing shows."""
    glue = world.client("glue")
    with contextlib.suppress(glue.exceptions.EntityNotFoundException):
        glue.delete_table(DatabaseName=schema, Name=table)


def cli_suite(seed: Path, source: Path, **env: str) -> Tuple[Any, Any, Any]:
    """The module fixtures of a suite that drives the real `dbt` CLI: ``world`` (the shared
    emulator seeded with ``seed``, Spark on), ``project`` (``source`` copied, after `dbt
    deps`) and ``dbt`` (a :class:`Dbt` with ``env``). Use as
    ``world, project, dbt = cli_suite(seed, source)``."""

    @pytest.fixture(scope="module")
    def world(emulator: Emulator, spark_executor: SparkExecutor) -> Iterator[Emulator]:
        with seeded_with_spark(emulator, spark_executor, seed):
            yield emulator

    @pytest.fixture(scope="module")
    def project(tmp_path_factory: pytest.TempPathFactory, world: Emulator) -> Path:
        return project_with_deps(tmp_path_factory, world, source)

    @pytest.fixture(scope="module")
    def dbt(project: Path, world: Emulator) -> Dbt:
        return Dbt(project, world, **env)

    return world, project, dbt
