"""The pure tests (tests/pure/) run with only the plugin's own dependencies installed.

A new venv (no system site-packages, no pip) gets exactly the distributions that the
plugin's declared runtime requirements pull in, plus pytest's: each of their installed
files is linked from this venv, file by file (so a shared namespace such as ``dbt`` gets
dbt-core's and dbt-athena's modules but not dbt-tests-adapter's ``dbt.tests``). No moto,
PySpark, pandas, pyiceberg, hypothesis or dbt-tests-adapter. tests/pure/ then runs there:
a heavy import added to the root conftest or to a pure test fails this test.
"""

from __future__ import annotations

import re
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Set, Tuple

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO_ROOT
from tests.packaging.conftest import DIST_NAME, bare_venv, clean_env, purelib

# dbt-core 1.12 requires it, and scripts/install_dbt.py leaves it out (it cannot be built
# without GitHub; dbt-core 1.12 never imports it): not installed in this venv either.
LEFT_OUT = {"dbt-core-experimental-parser"}
# the emulator's and the test tools' packages (dbt.tests.adapter: dbt-tests-adapter)
HEAVY = ["moto", "pyspark", "pandas", "pyiceberg", "hypothesis", "dbt.tests.adapter"]


def requirement_closure(roots: List[str]) -> Dict[str, metadata.Distribution]:
    """The installed distributions ``roots`` need at run time, by name: requirements whose
    marker holds, with the extras a requirement asks for (``boto3-stubs[athena]``)."""
    found: Dict[str, metadata.Distribution] = {}
    asked: Set[Tuple[str, str]] = set()
    todo: List[Tuple[str, str]] = [(canonicalize_name(r), "") for r in roots]
    while todo:
        name, extra = todo.pop()
        if name in LEFT_OUT or (name, extra) in asked:
            continue
        asked.add((name, extra))
        dist = found.setdefault(name, metadata.distribution(name))
        for line in dist.requires or []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is None or marker.evaluate(dict(default_environment(), extra=extra)):
                child = canonicalize_name(requirement.name)
                todo += [(child, "")] + [(child, e) for e in sorted(requirement.extras)]
    return found


def recorded(dist: metadata.Distribution) -> List[str]:
    """The paths a distribution's RECORD lists (relative to site-packages), read as text:
    ``dist.files`` builds a path object per file, far too slow for every installed one."""
    record = dist.read_text("RECORD") or ""
    return [line.rsplit(",", 2)[0] for line in record.splitlines() if line.strip()]


def top_level(path: str) -> str:
    return path.split("/", 1)[0]


def link_distributions(dists: Dict[str, metadata.Distribution], target: Path) -> int:
    """Link the installed files of ``dists`` (as their RECORDs list them) into ``target``: a
    top-level entry that no other installed distribution shares as one link, the entries
    of a shared one (the ``dbt`` namespace) file by file."""
    owners: Dict[str, Set[str]] = {}
    for dist in metadata.distributions():
        owner = canonicalize_name(dist.metadata["Name"])
        for path in recorded(dist):
            owners.setdefault(top_level(path), set()).add(owner)
    linked = 0
    for name, dist in dists.items():
        done: Set[str] = set()
        for path in recorded(dist):
            top = top_level(path)
            if top == ".." or "__pycache__" in path or top in done:
                continue  # console scripts, byte code, a top-level entry already linked
            whole = owners[top] == {name}
            relative = top if whole else path
            if whole:
                done.add(top)
            source = Path(str(dist.locate_file(relative)))
            destination = target / relative
            if destination.is_symlink() or destination.exists() or not source.exists():
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.symlink_to(source)
            linked += 1
    return linked


def test_the_closure_is_the_plugins_own_dependencies() -> None:
    """What the light venv gets: dbt-core and dbt-athena come in, the test stack does not."""
    names: Set[str] = set(requirement_closure([DIST_NAME, "pytest"]))
    assert {"dbt-core", "dbt-athena", "boto3", "pytest", canonicalize_name(DIST_NAME)} <= names
    assert not names & {"moto", "pyspark", "pandas", "pyiceberg", "hypothesis", "dbt-tests-adapter"}


def test_pure_tests_pass_with_only_the_plugins_dependencies(tmp_path: Path) -> None:
    started = time.monotonic()
    python = bare_venv(tmp_path / "light")
    linked = link_distributions(requirement_closure([DIST_NAME, "pytest"]), purelib(python))
    assert linked > 50, linked
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util as u, sys\n"
            f"for name in {HEAVY!r}:\n"
            "    try:\n"
            "        spec = u.find_spec(name)\n"
            "    except ImportError:\n"
            "        spec = None\n"
            "    print(name, spec is not None)\n"
            "import dbt.adapters.athena, dbt_athena_cross_account\n",
        ],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr[-3000:]
    assert probe.stdout.split() == [w for name in HEAVY for w in (name, "False")], probe.stdout
    run = subprocess.run(
        [str(python), "-m", "pytest", "tests/pure", "-q", "-p", "no:cacheprovider"],
        cwd=REPO_ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.search(r"(\d+) passed", run.stdout)
    assert passed and int(passed.group(1)) >= 150, run.stdout[-2000:]
    print(f"light venv built and tests/pure run in {time.monotonic() - started:.0f}s")
