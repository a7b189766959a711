"""This repository as a dbt package: its require-dbt-version covers the tested matrix,
`dbt deps` installs it from `local:` and from a `git:` URL (a local bare clone, over
file://), and the compile-time guard fires, naming the installed dbt-athena version, when
the stock generated block it rewrites has changed."""

from __future__ import annotations

import json
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import yaml
from dbt_common.semver import VersionSpecifier, versions_compatible
from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import REPO_ROOT
from tests.stack import athena_target, dbt_cli

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

PACKAGE = "dbt_athena_cross_account"
MACROS = {
    f"macro.{PACKAGE}.athena__create_table_as",
    f"macro.{PACKAGE}._cross_account_swap_spark_block",
}


def require_dbt_version() -> List[str]:
    spec = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())["require-dbt-version"]
    return [spec] if isinstance(spec, str) else list(spec)


def compatible(version: str) -> bool:
    """dbt's own check (dbt.config.project uses the same call)."""
    specs = [VersionSpecifier.from_version_string(v) for v in require_dbt_version()]
    return versions_compatible(VersionSpecifier.from_version_string(version), *specs)


def ci_legs() -> List[Tuple[str, Requirement, Requirement]]:
    legs = re.findall(
        r'"(\w+)\|[^|]+\|(dbt-core[^|]+)\|(dbt-athena[^|"]+)(?:\|[^"]*)?"',
        (REPO_ROOT / ".ci" / "legs").read_text(),
    )
    assert len(legs) >= 3, "no matrix legs found in .ci/legs"
    return [(name, Requirement(core), Requirement(athena)) for name, core, athena in legs]


def lowest(req: Requirement) -> Version:
    return min(Version(s.version) for s in req.specifier if s.operator in (">=", "~=", "=="))


def test_require_dbt_version_covers_exactly_the_tested_range() -> None:
    assert len(require_dbt_version()) == 2  # a lower bound and the next major as the upper
    legs = ci_legs()
    # the lowest leg starts at the declared lower bound, and so does pyproject's dbt-core
    floor = min(lowest(core) for _name, core, _athena in legs)
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    declared = {Requirement(r).name: Requirement(r) for r in pyproject["project"]["dependencies"]}
    assert lowest(declared["dbt-core"]) == floor == lowest(declared["dbt-athena"]) == Version("1.9")
    assert compatible(f"{floor.major}.{floor.minor}.{floor.micro}")
    below = Version(f"{floor.major}.{floor.minor - 1}.99")
    assert not compatible(str(below)), f"require-dbt-version admits untested {below}"
    for name, core, _athena in legs:
        first = lowest(core)
        last = f"{first.major}.{first.minor}.99"
        assert compatible(f"{first.major}.{first.minor}.0") and compatible(last), (
            f"leg {name}: {core}"
        )
    # the newest leg is dbt-core 1.12 (installed by scripts/install_dbt.py)
    assert max(lowest(core) for _name, core, _athena in legs) >= Version("1.12")
    assert not compatible("2.0.0")
    # and the dbt-core running this test is inside it (dbt itself would refuse otherwise)
    assert compatible(metadata.version("dbt-core"))


# ---- dbt deps ------------------------------------------------------------------------
def make_project(root: Path, packages: List[Dict[str, Any]], extra: Dict[str, Any] = ()) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    name = "consumer"
    config = {"name": name, "version": "1.0", "config-version": 2, "profile": name, **dict(extra)}
    (root / "dbt_project.yml").write_text(yaml.safe_dump(config))
    (root / "packages.yml").write_text(yaml.safe_dump({"packages": packages}))
    (root / "profiles.yml").write_text(
        yaml.safe_dump(
            {name: {"target": "dev", "outputs": {"dev": athena_target(schema="pkg_test")}}}
        )
    )
    return root


def dbt(args: List[str], project: Path) -> subprocess.CompletedProcess:
    proc = dbt_cli(args, project, project, {"DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
    return proc


def deps_and_parse(
    project: Path, emulator, expected_macros: List[str], parse: bool = True
) -> Dict[str, Any]:
    proc = dbt(["deps"], project)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    installed = project / "dbt_packages" / PACKAGE
    assert (installed / "dbt_project.yml").is_file()
    assert sorted(p.name for p in (installed / "macros").glob("*.sql")) == sorted(expected_macros)
    if not parse:
        return {}
    emulator.reset_counters()
    proc = dbt(["parse"], project)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert sum(emulator.calls.values()) == 0, f"dbt parse called AWS: {dict(emulator.calls)}"
    manifest = json.loads((project / "target" / "manifest.json").read_text())
    assert set(manifest["macros"]) >= MACROS, sorted(m for m in manifest["macros"] if PACKAGE in m)
    return manifest


def test_dbt_deps_from_local_path(emulator, tmp_path: Path) -> None:
    project = make_project(tmp_path / "consumer", [{"local": str(REPO_ROOT)}])
    deps_and_parse(project, emulator, [p.name for p in (REPO_ROOT / "macros").glob("*.sql")])


def _validates_macro_args() -> bool:
    from dbt.contracts.project import ProjectFlags

    return "validate_macro_args" in ProjectFlags.__dataclass_fields__


@pytest.mark.skipif(
    not _validates_macro_args(), reason="this dbt-core version does not validate macro docs"
)
def test_macro_docs_pass_dbt_argument_validation(emulator, tmp_path: Path) -> None:
    """dbt-core 1.12 validates macro argument docs on every parse (1.10/1.11 behind the
    validate_macro_args flag): types must be dbt's (bool, dict[string, any], ...), names
    and counts must match the macros. A wrong one is a warning on every dbt command."""
    project = make_project(
        tmp_path / "consumer",
        [{"local": str(REPO_ROOT)}],
        {"flags": {"validate_macro_args": True}},
    )
    assert dbt(["deps"], project).returncode == 0
    proc = dbt(["parse", "--no-partial-parse"], project)
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 0, out[-3000:]
    for problem in ("has an invalid type", "does not match the jinja definition"):
        assert problem not in out, out[-3000:]
    documented = [
        m["name"]
        for path in (REPO_ROOT / "macros").glob("*.yml")
        for m in yaml.safe_load(path.read_text())["macros"]
    ]
    defined = [
        re.search(r"\{% macro (\w+)\(", path.read_text()).group(1)  # type: ignore[union-attr]
        for path in (REPO_ROOT / "macros").glob("*.sql")
    ]
    assert sorted(documented) == sorted(defined)


def git(*args: str, cwd: Path = REPO_ROOT) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.parametrize("pin", ["commit", "tag"])
def test_dbt_deps_from_git_url(pin: str, emulator, tmp_path: Path) -> None:
    head = git("rev-parse", "HEAD")
    bare = tmp_path / "repo.git"
    git("clone", "--quiet", "--bare", str(REPO_ROOT), str(bare))
    revision = head
    if pin == "tag":
        revision = "v0.0.0-packaging-test"
        git("tag", revision, head, cwd=bare)
    project = make_project(tmp_path / "consumer", [{"git": f"file://{bare}", "revision": revision}])
    committed_macros = git("ls-tree", "--name-only", head, "macros/").split()
    deps_and_parse(
        project,
        emulator,
        [Path(m).name for m in committed_macros if m.endswith(".sql")],
        parse=pin == "commit",
    )
    # a real checkout of that commit (not a link to the working tree)
    installed = project / "dbt_packages" / PACKAGE
    assert not installed.is_symlink()
    committed = git("show", f"{head}:dbt_project.yml")
    assert (installed / "dbt_project.yml").read_text().strip() == committed.strip()
    lock = yaml.safe_load((project / "package-lock.yml").read_text())
    assert any(
        p.get("revision") == head or p.get("git") == f"file://{bare}" for p in lock["packages"]
    ), lock


# ---- the compile-time guard -----------------------------------------------------------
# A root-project override that renders the stock code the way a *different* dbt-athena
# release would (its get_spark_df block changed, or emitted twice), then hands it to the
# package's guard exactly as the package's own athena__create_table_as does.
SIMULATED_RELEASE = """
{% macro athena__create_table_as(temporary, relation, compiled_code, language='sql',
                                 skip_partitioning=false) -%}
  {%- set stock = dbt.athena__create_table_as(
        temporary, relation, compiled_code, language, skip_partitioning) | string -%}
  {%- if language != 'python' -%}{{ return(stock) }}{%- endif -%}
  {%- set block = dbt.athena__py_get_spark_dbt_object() | string -%}
  {%- set mode = var('stock_block', 'unchanged') -%}
  {%- if mode == 'changed' -%}
    {%- set changed = block.replace('spark.table(', 'spark.read.table(') -%}
    {%- if changed == block -%}
      {%- do exceptions.raise_compiler_error('simulation: nothing to change') -%}
    {%- endif -%}
    {%- set stock = stock.replace(block, changed) -%}
  {%- elif mode == 'duplicated' -%}
    {%- set stock = stock.replace(block, block ~ '\n' ~ block) -%}
  {%- endif -%}
  {{- return(dbt_athena_cross_account._cross_account_swap_spark_block(stock)) -}}
{%- endmacro %}
"""

GUARDED_MODEL = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return spark.createDataFrame([(1,)], ["id"])
"""


@pytest.fixture(scope="module")
def guarded_project(emulator, tmp_path_factory) -> Path:
    project = make_project(
        tmp_path_factory.mktemp("guard") / "consumer",
        [{"local": str(REPO_ROOT)}],
        {
            "dispatch": [
                {"macro_namespace": "athena", "search_order": ["consumer", PACKAGE, "dbt"]}
            ],
            "models": {"+s3_data_naming": "schema_table"},
        },
    )
    (project / "macros").mkdir()
    (project / "macros" / "simulated_release.sql").write_text(SIMULATED_RELEASE)
    (project / "models").mkdir()
    (project / "models" / "guarded.py").write_text(GUARDED_MODEL)
    proc = dbt(["deps"], project)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return project


def run_guarded(project: Path, emulator, mode: str) -> Tuple[subprocess.CompletedProcess, list]:
    before = len(emulator.submissions)
    proc = dbt(["run", "--select", "guarded", "--vars", json.dumps({"stock_block": mode})], project)
    return proc, emulator.submissions[before:]


def test_guard_passes_on_the_real_stock_block(guarded_project: Path, emulator) -> None:
    proc, submitted = run_guarded(guarded_project, emulator, "unchanged")
    assert proc.returncode == 0, proc.stdout[-4000:]
    codes = [c.code for c in submitted if "_CROSS_ACCOUNT_TABLES" in c.code]
    assert len(codes) == 1, [c.code[:200] for c in submitted]  # swapped: the package's block


@pytest.mark.parametrize(("mode", "found"), [("changed", 0), ("duplicated", 2)])
def test_guard_fails_at_compile_time_naming_the_dbt_athena_version(
    guarded_project: Path, emulator, mode: str, found: int
) -> None:
    proc, submitted = run_guarded(guarded_project, emulator, mode)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-4000:]
    flat = " ".join(out.split())
    assert f"block was found {found} times (expected once)" in flat, out[-4000:]
    assert f"generated by dbt-athena {metadata.version('dbt-athena')}." in flat
    assert "model.consumer.guarded" in flat
    assert "Fix: install a supported dbt-athena" in flat
    assert submitted == [], "code reached the Spark Calculation API despite the guard"
