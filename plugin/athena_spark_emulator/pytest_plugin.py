"""pytest fixtures for testing a dbt-athena project on the local emulator.

Opt-in, like dbt-tests-adapter's fixtures: enable it in the project's ``conftest.py``::

    pytest_plugins = ["athena_spark_emulator.pytest_plugin"]

It imports nothing heavy: the fixtures import the emulator (moto, PySpark) when a test
first uses them, and fail with the install line when the extra is missing.

    def test_partner_orders(athena_emulator):
        athena_emulator.seed("seed.yml")
        result = athena_emulator.dbt(["build"], project_dir=".")
        assert result.returncode == 0, result.stdout
        assert athena_emulator.rows("analytics", "partner_orders")

Fixtures:

* ``athena_emulator`` (session): a started emulator with the buckets and Spark work group
  that ``athena-spark-emulator profile`` expects, Glue owner routing and Athena's session
  life cycle on. Calculations run in local PySpark (Spark starts on the first one) unless
  ``--athena-emulator-executor=instant`` or the ini option ``athena_emulator_executor``
  says otherwise. State persists across tests; call ``athena_emulator.reset()`` to forget it.
* ``athena_emulator_env``: the environment variables that point dbt and boto3 at it, also
  set in ``os.environ`` for the test (for dbt run in-process).
"""

from __future__ import annotations

from typing import Any, Dict, Iterator

import pytest

EXECUTORS = ("spark", "instant")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("athena-spark-emulator")
    group.addoption(
        "--athena-emulator-executor",
        choices=EXECUTORS,
        default=None,
        help="how the athena_emulator fixture runs Spark calculations "
        "(default: the ini option athena_emulator_executor, else spark)",
    )
    parser.addini(
        "athena_emulator_executor",
        "athena_emulator fixture: 'spark' (local PySpark, needs Java) or 'instant'",
        default="spark",
    )


def _executor(config: pytest.Config) -> str:
    chosen = config.getoption("--athena-emulator-executor") or config.getini(
        "athena_emulator_executor"
    )
    if chosen not in EXECUTORS:
        raise pytest.UsageError(f"athena_emulator_executor must be one of {EXECUTORS}: {chosen!r}")
    return str(chosen)


@pytest.fixture(scope="session")
def athena_emulator(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A started, prepared emulator for the whole test session (see the module doc)."""
    from athena_spark_emulator.core.errors import EmulatorError, require_extra, require_java

    executor = _executor(request.config)
    try:
        require_extra("moto")
        if executor == "spark":
            require_extra("pyspark")
            require_java()
    except EmulatorError as exc:
        pytest.fail(f"athena_emulator: {exc}", pytrace=False)
    from athena_spark_emulator.emulator import Emulator

    with Emulator(executor=executor) as emulator:
        emulator.glue_owner_routing = emulator.session_lifecycle = True
        emulator.prepare()
        yield emulator


@pytest.fixture
def athena_emulator_env(athena_emulator: Any, monkeypatch: pytest.MonkeyPatch) -> Dict[str, str]:
    """``athena_emulator.env()``, also set in ``os.environ`` for this test."""
    env = athena_emulator.env()
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    return env
