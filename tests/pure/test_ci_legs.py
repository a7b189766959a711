"""The table of suites CI runs in one leg only (tests/conftest.py ONE_LEG_SUITES) agrees
with the repository and with the legs CI runs (.ci/legs, which .ci/run and
.github/workflows/ci.yml both run): a renamed suite would otherwise run in every leg (CI
time) or a leg name nobody runs would drop it from CI altogether."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CONNECT_LEG, LEGS, ONE_LEG_SUITES, REPO_ROOT, one_leg_of

CI_LEGS = (REPO_ROOT / ".ci" / "legs").read_text(encoding="utf-8")


@pytest.mark.parametrize("prefix", sorted(ONE_LEG_SUITES))
def test_every_listed_suite_exists(prefix: str) -> None:
    path, _, test = prefix.partition("::")
    target = REPO_ROOT / path
    assert target.is_dir() if path.endswith("/") else target.is_file(), prefix
    if test:  # a test id: its first part is a class or function of that module
        name = test.split("::", 1)[0].split("[", 1)[0]
        assert re.search(rf"^(class|def) {name}\b", target.read_text(), re.M), prefix


def test_every_leg_named_is_a_leg_of_ci() -> None:
    ci_legs = re.findall(r'^\s+"(\w+)\|\.venv-', CI_LEGS, re.M)
    assert sorted(ci_legs) == sorted(LEGS)
    assert set(ONE_LEG_SUITES.values()) <= set(LEGS)


def test_ci_builds_the_connect_venv_in_the_leg_that_runs_tests_connect() -> None:
    assert re.search(rf"^CONNECT_LEG={CONNECT_LEG}$", CI_LEGS, re.M)


def test_the_longest_prefix_decides() -> None:
    assert one_leg_of("tests/functional/test_dbt_run.py::TestOneLookupPerRun::test_calls[1]") == (
        "min"
    )
    assert one_leg_of("tests/functional/test_dbt_run.py::TestOneLookupPerRun::test_calls[8]") is (
        None
    )
    assert one_leg_of("tests/emulator/test_cli.py::test_x") == "mid"
    assert one_leg_of("tests/pure/test_plan.py::test_x") is None
