"""The distribution as users get it: what the wheel holds, what its metadata declares,
that the sdist builds (the wheel is built from it), and that the wheel installs into an
empty venv where importing the plugin is a silent no-op."""

from __future__ import annotations

import ast
import json
import sys
from email.parser import Parser
from importlib import metadata, util
from pathlib import Path
from typing import Dict, Set

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.conftest import REPO_ROOT
from tests.packaging.conftest import (
    DIST_NAME,
    EMULATOR,
    EMULATOR_DIR,
    MODULE,
    PLUGIN_DIR,
    Built,
    bare_venv,
    pip_into,
    purelib,
    run_python,
    source_version,
)

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def dist_info(built: Built) -> str:
    return f"{MODULE}-{source_version()}.dist-info/"


def wheel_metadata(built: Built):
    return Parser().parsestr(built.wheel_text(dist_info(built) + "METADATA"))


def runtime_requirements(built: Built) -> Dict[str, Requirement]:
    reqs = [Requirement(r) for r in wheel_metadata(built).get_all("Requires-Dist") or []]
    return {canonicalize_name(r.name): r for r in reqs if r.marker is None}


# ---- contents ----------------------------------------------------------------------------
def test_wheel_holds_only_the_plugin_the_emulator_and_dist_info(built: Built) -> None:
    names = built.wheel_names()
    info = dist_info(built)
    package = sorted(n for n in names if not n.startswith(info))
    expected = sorted(
        f"{root.name}/{p.relative_to(root).as_posix()}"
        for root in (PLUGIN_DIR, EMULATOR_DIR)
        for p in root.rglob("*")
        if p.is_file()
        and (p.suffix in (".py", ".json", ".properties") or p.name == "py.typed")
        and "__pycache__" not in p.parts
    )
    assert package == expected
    assert f"{EMULATOR}/accounts/seed_schema.json" in package
    assert f"{MODULE}/py.typed" in package
    assert f"{MODULE}/__init__.py" in package
    extra = sorted(
        n
        for n in names
        if n.startswith(info) and n[len(info) :] not in ("METADATA", "WHEEL", "RECORD")
    )
    assert all(
        n[len(info) :].startswith("licenses/") or n[len(info) :] == "entry_points.txt"
        for n in extra
    ), extra
    entry_points = built.wheel_text(info + "entry_points.txt")
    assert "athena-spark-emulator = athena_spark_emulator.cli:main" in entry_points
    # opt-in (pytest_plugins in a conftest.py), never loaded into every pytest run
    assert "pytest11" not in entry_points and "pytest_plugin" not in entry_points


def test_sdist_is_a_complete_source_of_plugin_and_dbt_package(built: Built) -> None:
    root = built.sdist_names()[0].split("/")[0]
    relative = {n[len(root) + 1 :] for n in built.sdist_names() if n.startswith(root + "/")}
    for needed in (
        "pyproject.toml",
        "README.md",
        "dbt_project.yml",
        f"plugin/{MODULE}/__init__.py",
        f"plugin/{MODULE}/py.typed",
    ):
        assert needed in relative, needed
    macros = {p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "macros").glob("*.sql")}
    assert macros and macros <= relative, sorted(macros - relative)
    junk = sorted(
        n
        for n in relative
        if "__pycache__" in n or "/target/" in n or "dbt_packages/" in n or n.startswith(".venv")
    )
    assert not junk, junk


def test_the_apache_license_is_in_the_repository_the_sdist_and_the_wheel(built: Built) -> None:
    """GitHub and dbt Hub detect the license from the LICENSE file; pyproject declares it."""
    text = (REPO_ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    assert built.sdist_text("LICENSE") == text
    assert built.wheel_text(dist_info(built) + "licenses/LICENSE") == text
    meta = wheel_metadata(built)
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]


# ---- metadata ----------------------------------------------------------------------------
def test_metadata_names_version_readme_and_python(built: Built) -> None:
    meta = wheel_metadata(built)
    assert meta["Name"] == DIST_NAME
    assert meta["Version"] == source_version()
    assert meta["Requires-Python"], "no Requires-Python"
    declared = SpecifierSet(PYPROJECT["project"]["requires-python"])
    assert SpecifierSet(meta["Requires-Python"]) == declared
    running = ".".join(map(str, sys.version_info[:2]))
    assert declared.contains(running), f"the tested Python {running} is outside {declared}"
    # the README is the long description, exactly as shipped in the sdist the wheel came from
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload().strip() == built.sdist_text("README.md").strip()
    assert meta.get_payload().lstrip().startswith("# dbt-athena-cross-account")


def test_metadata_declares_runtime_dependencies_without_tight_upper_pins(built: Built) -> None:
    reqs = runtime_requirements(built)
    for name in ("dbt-core", "dbt-athena", "boto3"):
        assert name in reqs, f"{name} missing from Requires-Dist: {sorted(reqs)}"
    for name in ("dbt-core", "dbt-athena"):
        lower = [Version(s.version) for s in reqs[name].specifier if s.operator == ">="]
        assert lower == [Version("1.9")], (
            f"{name}: lowest tested version is 1.9, declared {reqs[name]}"
        )
    for req in reqs.values():
        for spec in req.specifier:
            assert spec.operator not in ("==", "===", "~="), f"pinned: {req}"
            if spec.operator in ("<", "<="):
                assert Version(spec.version) >= Version("2"), f"tight upper pin: {req}"


def _imported_modules(path: Path) -> Set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def _distribution_of(module: str) -> str:
    """The installed distribution whose RECORD lists the file ``module`` is loaded from."""
    spec = util.find_spec(module)
    assert spec is not None and spec.origin, module
    origin = Path(spec.origin).resolve()
    top = module.split(".")[0]
    for name in metadata.packages_distributions().get(top, []):
        dist = metadata.distribution(name)
        for f in dist.files or ():
            if (
                f.parts[0] == top
                and f.name == origin.name
                and Path(str(dist.locate_file(f))).resolve() == origin
            ):
                return canonicalize_name(name)
    raise AssertionError(f"no installed distribution owns {origin}")


def test_every_third_party_import_of_the_plugin_is_a_declared_dependency(built: Built) -> None:
    modules = set()
    for path in PLUGIN_DIR.rglob("*.py"):
        modules |= _imported_modules(path)
    modules = {
        m
        for m in modules
        if m.split(".")[0] not in sys.stdlib_module_names and m.split(".")[0] != MODULE
    }
    assert any(m.startswith("dbt.adapters.athena") for m in modules)  # the scan sees imports
    used = {m: _distribution_of(m) for m in sorted(modules)}
    declared = set(runtime_requirements(built))
    undeclared = {m: d for m, d in used.items() if d not in declared}
    assert not undeclared, f"imported but not in Requires-Dist: {undeclared}"


def extra_requirements(built: Built, extra: str) -> Dict[str, Requirement]:
    reqs = [Requirement(r) for r in wheel_metadata(built).get_all("Requires-Dist") or []]
    return {
        canonicalize_name(r.name): r
        for r in reqs
        if r.marker is not None and r.marker.evaluate({"extra": extra})
    }


def test_every_third_party_import_of_the_emulator_is_in_its_extra(built: Built) -> None:
    modules = set()
    for path in EMULATOR_DIR.rglob("*.py"):
        modules |= _imported_modules(path)
    modules = {
        m
        for m in modules
        if m.split(".")[0] not in sys.stdlib_module_names
        and m.split(".")[0] not in (EMULATOR, MODULE, "pytest")  # pytest loads the plugin
    }
    assert {"pyspark.sql", "yaml", "jsonschema"} <= modules  # the scan sees imports
    assert any(m.startswith("moto.") for m in modules)
    used = {m: _distribution_of(m) for m in sorted(modules)}
    declared = set(runtime_requirements(built)) | set(extra_requirements(built, "emulator"))
    undeclared = {m: d for m, d in used.items() if d not in declared}
    assert not undeclared, f"imported but in neither Requires-Dist nor [emulator]: {undeclared}"
    for name in ("moto", "pyspark", "pandas", "pyarrow"):
        assert name in extra_requirements(built, "emulator"), name


# ---- smoke test in an empty venv ---------------------------------------------------------------
SMOKE = f"""
import json, sys, warnings
from importlib import metadata
import {MODULE} as m
print(json.dumps({{
    "version": m.__version__,
    "dist_version": metadata.version("{DIST_NAME}"),
    "file": m.__file__,
    "installed": m.installed(),
    "dbt_loaded": sorted(k for k in sys.modules if k == "dbt" or k.startswith("dbt.")),
}}))
"""


def test_wheel_installs_into_an_empty_venv_and_import_is_a_silent_no_op(
    built: Built, tmp_path: Path
) -> None:
    python = bare_venv(tmp_path / "venv")
    # this venv's pip installs into the empty one, which has no pip and no dbt of its own
    install = pip_into(python, "--no-deps", "--no-index", "-q", str(built.wheel), cwd=tmp_path)
    assert install.returncode == 0, install.stderr
    assert not (python.parent / "pip").exists()

    plain = run_python(python, f"import {MODULE}", cwd=tmp_path, args=["-W", "error"])
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, "", "")

    probe = run_python(python, SMOKE, cwd=tmp_path, args=["-W", "error"])
    assert probe.returncode == 0, probe.stderr
    assert probe.stderr == ""
    seen = json.loads(probe.stdout)
    assert seen["version"] == seen["dist_version"] == source_version()
    site = purelib(python)
    assert (
        Path(seen["file"]).resolve().parent == (site / MODULE).resolve()
    )  # the wheel, not the repo
    assert seen["installed"] is False
    assert seen["dbt_loaded"] == []  # not even dbt-core was there to import
