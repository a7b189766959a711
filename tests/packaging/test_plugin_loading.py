"""How the installed plugin gets loaded, each case in a fresh interpreter so that import
order is real: before or after dbt-athena, through dbt-core's own plugin discovery, twice,
five dbtRunner invocations in one process, without dbt-athena, and against a dbt-athena
that ships its own ``get_spark_cross_account_catalog_map``.

Decision for that last case (documented in docs/compatibility.md): the plugin REPLACES a same-name
method that dbt-athena defines, because ours is a superset (with no argument it behaves
as the upstream proposal, which is that method's specification), and the package's macros
rely on the ``catalog_names`` argument. It stays registered once: one name in
``_available_``, our parse-time stub, no wrapper around the upstream function.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

from tests.packaging.conftest import METHOD, MODULE, clean_env, run_python
from tests.stack import athena_target, ensure_data_catalog

PYTHON = Path(sys.executable)

# Prints what AthenaAdapter holds after the scenario's imports; shared by every scenario.
REPORT = f"""
import json, sys
from dbt.adapters.athena.impl import AthenaAdapter
from {MODULE} import _adapter, _patch
fn = AthenaAdapter.__dict__.get("{METHOD}")
print("REPORT=" + json.dumps({{
    "is_ours": fn is _adapter.{METHOD},
    "wrapped": hasattr(fn, "__wrapped__"),
    "available": sorted(n for n in AthenaAdapter._available_ if n in _patch.METHODS),
    "parse_stubs_ours": sorted(
        n for n, (_f, stub) in _patch.METHODS.items()
        if AthenaAdapter._parse_replacements_.get(n) is stub
    ),
    "methods": sorted(_patch.METHODS),
    "reinstall": _patch.install(AthenaAdapter),
    "module_file": sys.modules["{MODULE}"].__file__,
    # the job-submission guard: wrapped exactly once, around dbt-adapters' own method
    "submit_guarded_once": getattr(AthenaAdapter.submit_python_job, _adapter.MARKER, False)
        and not getattr(AthenaAdapter.submit_python_job.__wrapped__, _adapter.MARKER, False),
}}))
"""


def report(proc) -> Dict[str, Any]:
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("REPORT=")]
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0][len("REPORT=") :])


def assert_registered_once(seen: Dict[str, Any]) -> None:
    assert METHOD in seen["methods"]
    assert seen["is_ours"] and not seen["wrapped"]
    assert seen["available"] == seen["methods"]
    assert seen["parse_stubs_ours"] == seen["methods"]
    assert seen["reinstall"] is False  # already in place: nothing is set again
    assert seen["submit_guarded_once"]
    assert "site-packages" in seen["module_file"], seen["module_file"]  # the installed wheel


SCENARIOS = {
    "plugin_then_athena": f"""
        import sys
        import {MODULE}
        assert "dbt.adapters.athena.impl" in sys.modules  # the plugin imports dbt-athena itself
        import dbt.adapters.athena
    """,
    "athena_then_plugin": f"""
        import sys
        from dbt.adapters.athena.impl import AthenaAdapter
        assert "{MODULE}" not in sys.modules
        assert "{METHOD}" not in AthenaAdapter.__dict__
        assert "{METHOD}" not in AthenaAdapter._available_
        import {MODULE}
    """,
    "dbt_plugin_discovery": f"""
        import sys
        from dbt.plugins.manager import PluginManager
        assert "{MODULE}" not in sys.modules
        PluginManager.from_modules("any_project")  # what dbt does on every command with a project
        assert "{MODULE}" in sys.modules
    """,
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_import_order_registers_the_methods(scenario: str, tmp_path: Path) -> None:
    code = textwrap.dedent(SCENARIOS[scenario]) + REPORT
    assert_registered_once(report(run_python(PYTHON, code, cwd=tmp_path)))


def test_imported_twice_registers_once(tmp_path: Path) -> None:
    code = (
        f"""
import importlib, sys
import {MODULE} as first
from dbt.adapters.athena.impl import AthenaAdapter
fn = AthenaAdapter.__dict__["{METHOD}"]
available, stubs = AthenaAdapter._available_, dict(AthenaAdapter._parse_replacements_)
importlib.reload(first)
# a second, independent copy of the plugin's modules (new function objects)
for name in [m for m in sys.modules if m == "{MODULE}" or m.startswith("{MODULE}.")]:
    del sys.modules[name]
import {MODULE} as second
assert second is not first and second.installed() is True
assert AthenaAdapter.__dict__["{METHOD}"] is fn, "the second import replaced or wrapped the method"
assert AthenaAdapter._available_ == available
assert AthenaAdapter._parse_replacements_ == stubs
"""
        + REPORT
    )
    seen = report(run_python(PYTHON, code, cwd=tmp_path))
    # REPORT imports _adapter from the *second* copy; the class still holds the first one's
    # function, so "is_ours" is False here, and the assertions above carry the check.
    assert seen["available"] == seen["methods"] and not seen["wrapped"]
    assert seen["reinstall"] is False
    assert seen["submit_guarded_once"]  # the second copy did not wrap the first's guard


# ---- five dbtRunner invocations in one process, against the emulator ------------------------
RUNNER = f"""
import json, sys
from dbt.cli.main import dbtRunner
project = sys.argv[1]
assert "{MODULE}" not in sys.modules
rows = []
for i in range(5):
    res = dbtRunner().invoke(
        ["run-operation", "probe", "--project-dir", project, "--profiles-dir", project]
    )
    from dbt.adapters.athena.impl import AthenaAdapter
    from {MODULE} import _adapter, _patch
    fn = AthenaAdapter.__dict__["{METHOD}"]
    rows.append({{
        "success": res.success,
        "exception": repr(res.exception) if res.exception else None,
        "fn_id": id(fn),
        "is_ours": fn is _adapter.{METHOD},
        "wrapped": hasattr(fn, "__wrapped__"),
        "available": sorted(n for n in AthenaAdapter._available_ if n in _patch.METHODS),
        "stubs": sorted(
            n for n, (_f, s) in _patch.METHODS.items()
            if AthenaAdapter._parse_replacements_.get(n) is s
        ),
    }})
print("ROWS=" + json.dumps(rows))
"""

PROBE_MACRO = """
{% macro probe() %}
  {% set resolved = adapter.get_spark_cross_account_catalog_map(['partner_catalog']) %}
  {% do print('PROBE=' ~ tojson(resolved)) %}
{% endmacro %}
"""


def write_project(
    root: Path, name: str, profile_target: Dict[str, Any], extra: Dict[str, Any] = ()
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "dbt_project.yml").write_text(
        yaml.safe_dump(
            {"name": name, "version": "1.0", "config-version": 2, "profile": name, **dict(extra)}
        )
    )
    (root / "profiles.yml").write_text(
        yaml.safe_dump({name: {"target": "dev", "outputs": {"dev": profile_target}}})
    )
    return root


def test_five_dbt_runner_invocations_register_once_and_stack_nothing(
    emulator, tmp_path: Path
) -> None:
    ensure_data_catalog(emulator, "partner_catalog", "GLUE", {"catalog-id": "999999999999"})
    project = write_project(tmp_path / "proj", "probe_project", athena_target(schema="loading"))
    (project / "macros").mkdir()
    (project / "macros" / "probe.sql").write_text(PROBE_MACRO)
    emulator.reset_counters()
    proc = subprocess.run(
        [str(PYTHON), "-c", RUNNER, str(project)],
        cwd=tmp_path,
        env=clean_env(DBT_SEND_ANONYMOUS_USAGE_STATS="false"),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads(
        next(x for x in proc.stdout.splitlines() if x.startswith("ROWS="))[len("ROWS=") :]
    )
    assert len(rows) == 5
    for row in rows:
        assert row["success"], row["exception"]
        assert row["is_ours"] and not row["wrapped"]
        assert row["available"] == row["stubs"] and METHOD in row["available"]
    assert len({row["fn_id"] for row in rows}) == 1, "the method object changed between invocations"
    # every invocation really called the plugin's method against the emulator
    probes = [x for x in proc.stdout.splitlines() if x.startswith("PROBE=")]
    assert [json.loads(p[len("PROBE=") :]) for p in probes] == [
        {"partner_catalog": "999999999999"}
    ] * 5
    assert 1 <= emulator.calls["GetDataCatalog"] <= 5
    assert emulator.calls["ListDataCatalogs"] == 0


# ---- without dbt-athena -----------------------------------------------------------------
def test_without_dbt_athena_import_is_a_silent_no_op(
    python_without_dbt_athena: Path, tmp_path: Path
) -> None:
    plain = run_python(
        python_without_dbt_athena, f"import {MODULE}", cwd=tmp_path, args=["-W", "error"]
    )
    assert (plain.returncode, plain.stdout, plain.stderr) == (0, "", "")
    code = f"""
import sys
from dbt.plugins.manager import PluginManager
manager = PluginManager.from_modules("any_project")   # dbt-core's discovery imports the plugin
import {MODULE} as m
assert "{MODULE}" in sys.modules
assert m.installed() is False
assert not any(k.startswith("dbt.adapters.athena") for k in sys.modules)
assert not any(k.startswith("{MODULE}._") for k in sys.modules), "the patch modules were imported"
print("OK", m.__version__)
"""
    proc = run_python(
        python_without_dbt_athena, code, cwd=tmp_path, args=["-W", "error::UserWarning"]
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("OK "), proc.stdout


# ---- dbt-athena shipping its own method ------------------------------------------------------
UPSTREAM = f"""
import json, types
from dbt.adapters.base import available
from dbt.adapters.athena.impl import AthenaAdapter
from dbt.context.providers import ParseDatabaseWrapper, RuntimeDatabaseWrapper

def upstream_stub(*a, **k):
    return {{"upstream": "parse"}}

# Built by dbt's real AdapterMeta, as a future dbt-athena would build AthenaAdapter: the
# method defined in the class body, marked @available (here with a parse replacement).
class FutureAthenaAdapter(AthenaAdapter):
    @available.parse(upstream_stub)
    def {METHOD}(self):
        return {{"upstream": "runtime"}}

upstream = FutureAthenaAdapter.__dict__["{METHOD}"]
assert "{METHOD}" in FutureAthenaAdapter._available_
assert FutureAthenaAdapter._parse_replacements_["{METHOD}"] is upstream_stub

from {MODULE} import _adapter, _patch
first = _patch.install(FutureAthenaAdapter)
second = _patch.install(FutureAthenaAdapter)
fn = FutureAthenaAdapter.__dict__["{METHOD}"]
bare = object.__new__(FutureAthenaAdapter)
runtime = RuntimeDatabaseWrapper.__getattr__(types.SimpleNamespace(_adapter=bare), "{METHOD}")
parse = ParseDatabaseWrapper.__getattr__(types.SimpleNamespace(_adapter=bare), "{METHOD}")
print("REPORT=" + json.dumps({{
    "first": first, "second": second,
    "is_ours": fn is _adapter.{METHOD}, "upstream_kept": fn is upstream,
    "wrapped": hasattr(fn, "__wrapped__"),
    "available": "{METHOD}" in FutureAthenaAdapter._available_,
    "available_type": type(FutureAthenaAdapter._available_).__name__,
    "jinja_runtime_is_ours": getattr(runtime, "__func__", None) is _adapter.{METHOD},
    "jinja_parse": parse(),
    "jinja_parse_with_names": parse(["x"]),
}}))
"""


def test_dbt_athena_shipping_its_own_method_is_replaced_by_ours_once(tmp_path: Path) -> None:
    seen = report(run_python(PYTHON, UPSTREAM, cwd=tmp_path))
    assert seen["first"] is True and seen["second"] is False
    assert seen["is_ours"] and not seen["upstream_kept"] and not seen["wrapped"]
    assert seen["available"] and seen["available_type"] == "frozenset"
    # what Jinja's `adapter.<name>` resolves to, through dbt's own wrappers
    assert seen["jinja_runtime_is_ours"]
    assert seen["jinja_parse"] == {} and seen["jinja_parse_with_names"] == {}  # our stub, no AWS
