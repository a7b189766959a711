"""A SQL model that fails inside Spark's job tells dbt's user why, in Athena's words: `dbt
run` prints ``DIVISION_BY_ZERO: Division by zero``, not ``Py4JJavaError: An error occurred
while calling o123.save`` and a Java stack trace (what it printed before: the reason was read
from the first line of Spark's error only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.conftest import cli_suite

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

HERE = Path(__file__).parent
world, project, dbt = cli_suite(HERE / "failure_reasons_seed.yml", HERE / "failure_reasons_project")


def test_the_reason_of_a_failing_model_reaches_dbts_output(dbt) -> None:
    output: str = dbt("run", ok=False)
    assert "OK created sql table model failure_reasons_cli.numbers" in output, output[-6000:]
    assert "DIVISION_BY_ZERO: Division by zero" in output, output[-6000:]
    assert "Py4JJavaError" not in output and "org.apache.spark" not in output, output[-6000:]
