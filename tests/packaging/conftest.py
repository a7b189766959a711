"""Fixtures for the packaging tests: the project built as users get it (sdist, then the
wheel built from that sdist), clean subprocess environments, and a real interpreter
environment without dbt-athena."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import pytest

from tests.conftest import REPO_ROOT

PLUGIN_DIR = REPO_ROOT / "plugin" / "dbt_athena_cross_account"
EMULATOR_DIR = REPO_ROOT / "plugin" / "athena_spark_emulator"
EMULATOR = "athena_spark_emulator"
DIST_NAME = "dbt-athena-cross-account"
MODULE = "dbt_athena_cross_account"
METHOD = "get_spark_cross_account_catalog_map"


def source_version() -> str:
    match = re.search(r'^__version__ = "([^"]+)"', (PLUGIN_DIR / "__init__.py").read_text(), re.M)
    assert match, "plugin/dbt_athena_cross_account/__init__.py has no __version__"
    return match.group(1)


def clean_env(**extra: str) -> Dict[str, str]:
    """This process's environment without anything that adds to a child's sys.path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV")
    }
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra)
    return env


def run_python(
    python: Path,
    code: str,
    cwd: Path,
    env: Dict[str, str] | None = None,
    args: List[str] = (),
    timeout: int = 300,
) -> subprocess.CompletedProcess:
    """``python -c CODE`` in a fresh process, from ``cwd`` (never the repository root)."""
    return subprocess.run(
        [str(python), *args, "-c", code],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass
class Built:
    wheel: Path
    sdist: Path

    def wheel_names(self) -> List[str]:
        with zipfile.ZipFile(self.wheel) as zf:
            return zf.namelist()

    def wheel_text(self, name: str) -> str:
        with zipfile.ZipFile(self.wheel) as zf:
            return zf.read(name).decode("utf-8")

    def sdist_names(self) -> List[str]:
        with tarfile.open(self.sdist) as tf:
            return tf.getnames()

    def sdist_text(self, relative: str) -> str:
        with tarfile.open(self.sdist) as tf:
            root = tf.getnames()[0].split("/")[0]
            member = tf.extractfile(f"{root}/{relative}")
            assert member is not None, relative
            return member.read().decode("utf-8")


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """``python -m build``: the sdist, then the wheel built *from that sdist*, so a file the
    wheel needs but the sdist lacks fails here. No isolation: hatchling is in this venv."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO_ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
        env=clean_env(),
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return Built(wheel=wheels[0], sdist=sdists[0])


def bare_venv(root: Path) -> Path:
    """A venv with nothing installed, not even pip (fast to create); returns its python."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120
    )
    return root / "bin" / "python"


def pip_into(python: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``pip install ARGS`` into the venv of ``python`` with this venv's pip (``--python``):
    the target needs no pip of its own."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def purelib(python: Path) -> Path:
    out = run_python(
        python, "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=python.parent
    )
    assert out.returncode == 0, out.stderr
    return Path(out.stdout.strip())


def _link_tree(source: Path, target: Path, skip: Dict[str, object]) -> None:
    """Mirror ``source`` into ``target`` with symlinks, leaving out names in ``skip``; a
    name mapped to a dict is mirrored one level deeper with that dict as its skip list."""
    target.mkdir(exist_ok=True)
    for entry in source.iterdir():
        rule = skip.get(entry.name)
        if rule is True:
            continue
        if isinstance(rule, dict):
            _link_tree(entry, target / entry.name, rule)
        elif not (target / entry.name).exists():
            (target / entry.name).symlink_to(entry)


@pytest.fixture(scope="session")
def python_without_dbt_athena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real environment with this venv's dbt-core, dbt-adapters and the installed plugin,
    but without dbt-athena: a pip-less venv whose site-packages links everything except
    dbt-athena's files (dbt/adapters/athena, dbt/include/athena and its dist-info). It is
    what a user of another adapter gets after installing the plugin by mistake, and dbt's
    plugin discovery will import the plugin there on every command."""
    python = bare_venv(tmp_path_factory.mktemp("venv-no-athena"))
    ours = Path(sysconfig.get_paths()["purelib"])
    skip: Dict[str, object] = {"dbt": {"adapters": {"athena": True}, "include": {"athena": True}}}
    for entry in ours.iterdir():
        if entry.name.lower().startswith(("dbt_athena-", "dbt_athena_community")):
            skip[entry.name] = True
    _link_tree(ours, purelib(python), skip)
    probe = run_python(
        python,
        "import dbt.version, dbt_athena_cross_account\n"
        "try:\n    import dbt.adapters.athena\n"
        "except ImportError as e:\n    print('no athena:', e)\n",
        cwd=python.parent,
    )
    assert probe.returncode == 0, probe.stderr
    assert "no athena: No module named 'dbt.adapters.athena'" in probe.stdout, probe.stdout
    return python
