"""Which editable installs dbt-core's plugin discovery finds (checked in every CI leg: dbt-core
1.9, 1.11 and 1.12).

dbt imports every top-level module named ``dbt_*`` that ``pkgutil.iter_modules()`` lists
(``dbt.plugins.manager._get_dbt_modules``, run on every command that has a project). That
lists the directories on ``sys.path``, and not modules served by an import hook:

* this project's own ``pip install -e <clone>``: hatchling writes a ``.pth`` that puts
  ``plugin/`` on ``sys.path``, so dbt finds the plugin;
* a setuptools project in flat layout installed with ``pip install -e``: setuptools' PEP 660
  editable install serves it through an import finder (``__editable___*_finder``), so it
  imports, but dbt never sees it.

Each case is a fresh pip-less venv whose site-packages links this venv's (dbt-core,
dbt-athena, hatchling, setuptools) without the installed plugin wheel.
"""

from __future__ import annotations

import sysconfig
import textwrap
from pathlib import Path
from typing import Dict

from tests.conftest import REPO_ROOT
from tests.packaging.conftest import (
    EMULATOR,
    METHOD,
    MODULE,
    _link_tree,
    bare_venv,
    pip_into,
    purelib,
    run_python,
)

DISCOVERY = f"""
import json
from dbt.plugins.manager import _get_dbt_modules
from dbt.adapters.athena.impl import AthenaAdapter
found = _get_dbt_modules()
print("REPORT=" + json.dumps({{
    "discovered": sorted(n for n in found if n in ("{MODULE}", "dbt_setuptools_probe")),
    "registered": "{METHOD}" in AthenaAdapter._available_,
}}))
"""


def venv_without_the_plugin(root: Path) -> Path:
    python = bare_venv(root)
    ours = Path(sysconfig.get_paths()["purelib"])
    skip: Dict[str, object] = {MODULE: True, EMULATOR: True}
    for entry in ours.iterdir():
        if entry.name.startswith(("dbt_athena_cross_account-", "__editable__")):
            skip[entry.name] = True
    _link_tree(ours, purelib(python), skip)
    return python


def pip_install_editable(python: Path, project: Path) -> None:
    # with build isolation, as a user's `pip install -e` runs
    proc = pip_into(python, "-q", "--no-deps", "-e", str(project))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def discovery(python: Path) -> Dict[str, object]:
    import json

    proc = run_python(python, DISCOVERY, cwd=python.parent)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("REPORT=")]
    return json.loads(line[len("REPORT=") :])


def test_pip_install_editable_of_a_clone_is_discovered_by_dbt(tmp_path: Path) -> None:
    python = venv_without_the_plugin(tmp_path / "venv")
    assert discovery(python) == {"discovered": [], "registered": False}  # nothing yet
    pip_install_editable(python, REPO_ROOT)
    pth = [p.name for p in purelib(python).glob("*.pth") if "cross_account" in p.name]
    assert pth, "hatchling's editable install writes a .pth"
    assert discovery(python) == {"discovered": [MODULE], "registered": True}


def test_a_setuptools_editable_install_is_hidden_from_dbt(tmp_path: Path) -> None:
    """The design note's warning, exactly: an import-hook editable install imports, but
    dbt's discovery does not list it (so it would never be loaded as a plugin)."""
    project = tmp_path / "probe"
    (project / "dbt_setuptools_probe").mkdir(parents=True)
    (project / "dbt_setuptools_probe" / "__init__.py").write_text("plugins = []\n")
    (project / "README.md").write_text("a flat layout: the package sits beside other files\n")
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [build-system]
            requires = ["setuptools>=64"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "dbt-setuptools-probe"
            version = "0.0.1"

            [tool.setuptools]
            packages = ["dbt_setuptools_probe"]
            """
        )
    )
    python = venv_without_the_plugin(tmp_path / "venv")
    pip_install_editable(python, project)
    imported = run_python(python, "import dbt_setuptools_probe", cwd=python.parent)
    assert imported.returncode == 0, imported.stderr
    assert discovery(python)["discovered"] == []


def test_the_docs_say_which_installs_dbt_discovers() -> None:
    """docs/compatibility.md (linked from the Quick start) says it; the Quick start asks for
    no non-editable install."""
    text = " ".join((REPO_ROOT / "docs" / "compatibility.md").read_text(encoding="utf-8").split())
    assert "`pip install -e /path/to/clone`" in text
    assert "setuptools' PEP 660 finder for a flat-layout project" in text
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/compatibility.md" in readme.split("## How it works")[0]
    assert "non-editable install" not in " ".join(readme.split("## How it works")[0].split())
