"""The venv `make` builds for tests holds every package the extras declare, at the same
specifiers: what CI tests is what `pip install "dbt-athena-cross-account[emulator]"` gets."""

from __future__ import annotations

import re
import shlex
from typing import Dict

from packaging.requirements import Requirement

from tests.conftest import REPO_ROOT

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


def makefile_test_deps() -> Dict[str, Requirement]:
    text = (REPO_ROOT / "Makefile").read_text()
    block = re.search(r"^TEST_DEPS := (.*?)(?<!\\)\n", text, re.S | re.M)
    assert block, "TEST_DEPS not found in the Makefile"
    words = shlex.split(block.group(1).replace("\\\n", " "))
    return {Requirement(w).name: Requirement(w) for w in words}


def test_make_installs_every_package_of_the_emulator_and_test_extras() -> None:
    extras = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    installed = makefile_test_deps()
    for extra in ("emulator", "test"):
        for line in extras[extra]:
            wanted = Requirement(line)
            assert wanted.name in installed, f"[{extra}] {line} is not in the Makefile's TEST_DEPS"
            have = installed[wanted.name]
            assert (have.specifier, have.extras) == (wanted.specifier, wanted.extras), (
                f"[{extra}] {line} != Makefile {have}"
            )
