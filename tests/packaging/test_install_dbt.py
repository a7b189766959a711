"""scripts/install_dbt.py, the install recipe every test venv (and docs/compatibility.md's dbt-core 1.12
install) uses, run with the real pip against a local, offline package index.

The index holds stand-ins with the real names: a ``dbt-core`` 1.12.0 that requires
``dbt-core-experimental-parser``, whose only release is an sdist that fails to build (as the
real one does without internet access), a ``dbt-core`` 1.11.0 that does not, and a
``dbt-athena`` 1.11.0 that requires ``dbt-core``. Each test gets a fresh venv."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Sequence

import pip
import pytest

from tests.conftest import REPO_ROOT
from tests.packaging.conftest import bare_venv, clean_env, purelib, run_python

SCRIPT = REPO_ROOT / "scripts" / "install_dbt.py"
PARSER = "dbt-core-experimental-parser"
PARSER_ERROR = "stand-in build: downloads a wheel from GitHub"


def wheel(index: Path, name: str, version: str, requires: Sequence[str] = ()) -> None:
    """A minimal pure-Python wheel with one module, so the install can be imported."""
    module = name.replace("-", "_")
    info = f"{module}-{version}.dist-info"
    files = {
        f"{module}_standin.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\n"
        f"Name: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{path},,\n" for path in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(index / f"{module}-{version}-py3-none-any.whl", "w") as zf:
        for path, text in {**files, f"{info}/RECORD": record}.items():
            zf.writestr(path, text)


def failing_sdist(index: Path, name: str, version: str) -> None:
    """An sdist whose in-tree build backend fails, needing nothing from an index."""
    root = f"{name.replace('-', '_')}-{version}"
    files = {
        "pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "backend"\n'
        'backend-path = ["."]\n',
        "backend.py": "def _fail(*args, **kwargs):\n"
        f"    raise RuntimeError({PARSER_ERROR!r})\n"
        "get_requires_for_build_wheel = prepare_metadata_for_build_wheel = _fail\n"
        "build_wheel = build_sdist = get_requires_for_build_sdist = _fail\n",
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
    }
    with tarfile.open(index / f"{root}.tar.gz", "w:gz") as tf:
        for path, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"{root}/{path}")
            member.size = len(data)
            tf.addfile(member, io.BytesIO(data))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index = tmp_path_factory.mktemp("index")
    core_deps = ["core-dep>=1", "never-on-this-python>=1; python_version < '3'"]
    wheel(index, "dbt-core", "1.11.0", core_deps)
    wheel(index, "dbt-core", "1.12.0", [*core_deps, f"{PARSER}<3,>=2.0.0b1"])
    wheel(index, "dbt-athena", "1.11.0", ["dbt-core>=1.8.0rc1", "athena-dep<2,>=1"])
    for name in ("core-dep", "athena-dep", "extra-tool"):
        wheel(index, name, "1.0")
    wheel(index, "athena-dep", "2.0")  # excluded by dbt-athena's own pin
    wheel(index, "needs-core", "1.0", ["dbt-core"])
    failing_sdist(index, PARSER, "2.0.8")
    return index


@pytest.fixture()
def venv(tmp_path: Path) -> Path:
    """A fresh venv whose pip is this environment's pip (linked, not installed: fast)."""
    python = bare_venv(tmp_path / "venv")
    (purelib(python) / "pip").symlink_to(Path(pip.__file__).parent)
    return python


def pip_env(index: Path) -> Dict[str, str]:
    env = {k: v for k, v in clean_env().items() if not k.startswith("PIP_")}
    env.update(
        PIP_CONFIG_FILE=os.devnull,  # no index, constraints or find-links from pip.conf
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(index),
        PIP_NO_CACHE_DIR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def run(python: Path, args: List[str], index: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), *args],
        cwd=python.parent,
        env=pip_env(index),
        capture_output=True,
        text=True,
        timeout=300,
    )


def installed(python: Path) -> Dict[str, str]:
    probe = run_python(
        python,
        "from importlib import metadata\n"
        "for d in metadata.distributions(): print(d.metadata['Name'], d.version)\n",
        cwd=python.parent,
    )
    assert probe.returncode == 0, probe.stderr
    return dict(line.split() for line in probe.stdout.splitlines())


def test_plain_pip_cannot_install_the_stand_in_dbt_core_1_12(venv: Path, index: Path) -> None:
    """The stand-ins reproduce the real failure, so the next test is meaningful."""
    proc = run(venv, ["-m", "pip", "install", "dbt-core==1.12.0"], index)
    assert proc.returncode != 0
    assert PARSER_ERROR in proc.stdout + proc.stderr, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_dbt_core_1_12_is_installed_without_the_parser(venv: Path, index: Path) -> None:
    args = [str(SCRIPT), "dbt-core~=1.12.0", "dbt-athena~=1.11.0", "extra-tool"]
    proc = run(venv, args, index)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert f"dbt-core 1.12.0 requires {PARSER}, which is left out" in proc.stdout
    assert "installed dbt-core 1.12.0, dbt-athena 1.11.0" in proc.stdout
    have = installed(venv)
    assert have["dbt-core"] == "1.12.0" and have["dbt-athena"] == "1.11.0"
    assert have["core-dep"] == have["extra-tool"] == have["athena-dep"] == "1.0"
    assert PARSER not in have
    assert "never-on-this-python" not in have
    # what pip check still reports is exactly the left-out package
    check = run(venv, ["-m", "pip", "check"], index)
    assert check.stdout.strip() == f"dbt-core 1.12.0 requires {PARSER}, which is not installed."
    imported = run_python(venv, "import dbt_core_standin as m; print(m.VERSION)", venv.parent)
    assert imported.stdout.strip() == "1.12.0", imported.stderr


def test_other_dbt_core_releases_take_the_plain_pip_path(venv: Path, index: Path) -> None:
    proc = run(venv, [str(SCRIPT), "dbt-core>=1.9,<1.12", "dbt-athena>=1.9"], index)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "dbt-core 1.11.0, dbt-athena 1.11.0: plain pip" in proc.stdout
    assert "left out" not in proc.stdout
    have = installed(venv)
    assert have["dbt-core"] == "1.11.0" and have["core-dep"] == "1.0"
    check = run(venv, ["-m", "pip", "check"], index)
    assert check.returncode == 0, check.stdout


def test_an_extra_requirement_on_dbt_core_1_12_fails_loudly(venv: Path, index: Path) -> None:
    """Documented limit: the other requirements must not depend on dbt-core."""
    proc = run(venv, [str(SCRIPT), "dbt-core~=1.12.0", "dbt-athena~=1.11.0", "needs-core"], index)
    assert proc.returncode != 0
    assert "install_dbt: pip failed" in proc.stderr, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "dbt-core" not in installed(venv)


def test_usage_without_arguments() -> None:
    proc = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "CORE_SPEC ATHENA_SPEC" in proc.stderr
