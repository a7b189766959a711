"""No import circle inside the plugin or the emulator: the layers depend one way (the doctor
on the adapter core, the core on the pure modules), never back.

The graph is read from the source with ``ast``, every ``import`` counted, including those
inside functions (a deferred import is still a dependency, and a circle through one breaks
as soon as someone moves it to the top). An import of a package's submodule counts as an
edge to that submodule, not to the package's ``__init__``."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Optional, Set

import pytest

from tests.conftest import REPO_ROOT

PACKAGES = ("dbt_athena_cross_account", "athena_spark_emulator")


def module_files(package: str) -> Dict[str, Path]:
    """{dotted module name: file} of ``package`` under plugin/."""
    root = REPO_ROOT / "plugin"
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports_of(module: str, path: Path, modules: Set[str]) -> Set[str]:
    """The modules of ``modules`` that ``module`` imports, anywhere in its file."""
    found: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node, path.name == "__init__.py")
            # `from pkg import sub` imports the submodule pkg.sub when there is one
            names = [
                f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source
                for a in node.names
            ]
        else:
            continue
        found |= {name for name in names if name in modules and name != module}
    return found


def find_cycle(graph: Dict[str, Set[str]]) -> Optional[List[str]]:
    """One import circle of ``graph`` as [a, b, ..., a], or None."""
    state: Dict[str, int] = {}  # 1: on the current path, 2: done
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def import_graph(package: str) -> Dict[str, Set[str]]:
    files = module_files(package)
    return {name: imports_of(name, path, set(files)) for name, path in files.items()}


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_sees_deferred_and_relative_imports() -> None:
    graph = import_graph("dbt_athena_cross_account")
    # __init__.installed() imports _patch inside the function
    assert "dbt_athena_cross_account._patch" in graph["dbt_athena_cross_account"]
    # `from dbt_athena_cross_account import guard, overrides` names two submodules
    assert {"dbt_athena_cross_account.guard", "dbt_athena_cross_account.overrides"} <= graph[
        "dbt_athena_cross_account._adapter"
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle(package: str) -> None:
    cycle = find_cycle(import_graph(package))
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_doctor_depends_on_the_core_and_not_the_other_way_round() -> None:
    graph = import_graph("dbt_athena_cross_account")
    doctor = "dbt_athena_cross_account.doctor"
    core_to_doctor = sorted(
        f"{name} -> {dep}"
        for name, deps in graph.items()
        # _patch puts the doctor's adapter method on AthenaAdapter with the others
        if not name.startswith(doctor) and name != "dbt_athena_cross_account._patch"
        for dep in deps
        if dep.startswith(doctor)
    )
    assert core_to_doctor == []


# The emulator's folders, lowest first: a module may import its own folder and the folders
# before it, never one after it, and no folder imports a top-level module (emulator, cli,
# demo, profile, pytest_plugin), which sit above them all.
EMULATOR_LAYERS = ("core", "accounts", "spark", "sql", "aws")


def _layer(module: str) -> int:
    """The rank of an emulator module: its folder's index, or len(EMULATOR_LAYERS) at the top."""
    parts = module.split(".")
    folder = parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in EMULATOR_LAYERS) else ""
    return EMULATOR_LAYERS.index(folder) if folder in EMULATOR_LAYERS else len(EMULATOR_LAYERS)


def upward_imports(graph: Dict[str, Set[str]]) -> List[str]:
    """Every ``a -> b`` of ``graph`` where ``b`` sits in a folder above ``a``'s."""
    return sorted(
        f"{name} -> {dep}"
        for name, deps in graph.items()
        for dep in deps
        if dep != "athena_spark_emulator" and _layer(dep) > _layer(name)
    )


def test_layers_are_ranked_by_folder() -> None:
    assert _layer("athena_spark_emulator.core.errors") == 0
    assert _layer("athena_spark_emulator.sql.functions") == 3
    assert _layer("athena_spark_emulator.sql") == 3
    assert _layer("athena_spark_emulator.emulator") == len(EMULATOR_LAYERS)
    graph = {"athena_spark_emulator.core.x": {"athena_spark_emulator.aws.y"}}
    assert upward_imports(graph) == ["athena_spark_emulator.core.x -> athena_spark_emulator.aws.y"]


def test_every_emulator_module_sits_in_a_folder_or_at_the_top() -> None:
    top = {"__init__", "cli", "demo", "emulator", "profile", "pytest_plugin"}
    loose = sorted(
        name
        for name in module_files("athena_spark_emulator")
        if _layer(name) == len(EMULATOR_LAYERS)
        and name.split(".")[-1] not in top
        and name != "athena_spark_emulator"
    )
    assert loose == [], f"place these in one of {EMULATOR_LAYERS} (see the package docstring)"


def test_no_emulator_import_runs_up_a_level() -> None:
    assert upward_imports(import_graph("athena_spark_emulator")) == []


FUNCTIONS = "athena_spark_emulator.sql.functions"
#: what a module of sql/functions/ may import from the rest of sql/: the typing helpers and
#: the UDFs' registry (both import nothing of sql/ back)
FUNCTIONS_MAY_IMPORT = (
    "athena_spark_emulator.sql.spark_forms",
    "athena_spark_emulator.sql.udfs",
    "athena_spark_emulator.sql.java_hash",
)


def test_the_function_modules_import_only_the_table_the_helpers_and_each_other() -> None:
    graph = import_graph("athena_spark_emulator")
    modules = [name for name in graph if name.startswith(FUNCTIONS)]
    assert f"{FUNCTIONS}.table" in modules and f"{FUNCTIONS}.regexp" in modules
    outside = sorted(
        f"{name} -> {dep}"
        for name in modules
        for dep in graph[name]
        if not dep.startswith(FUNCTIONS) and dep not in FUNCTIONS_MAY_IMPORT
    )
    assert outside == []
    # the helpers never import a function module back, and the table imports no page
    for helper in FUNCTIONS_MAY_IMPORT:
        assert not {d for d in graph[helper] if d.startswith("athena_spark_emulator.sql")}
    assert graph[f"{FUNCTIONS}.table"] == set()
    pages = {name: {d for d in graph[name] if d.startswith(FUNCTIONS)} for name in modules}
    assert find_cycle(pages) is None
