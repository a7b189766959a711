"""Never a silent wrong read: an opted-in model whose read could land on the local table
instead of the owner's (a dispatch override that bypasses the package, a flag that is
neither true nor false, an error taken for a refusal) stops with an error instead, and the
runs that do go ahead read the owner's rows. Through the `dbt` console script in a fresh
process, against the emulator with real local PySpark, checked on the ROWS WRITTEN.

The world (guards_seed.yml): sales.orders holds local rows 1-2 and the partner's 101-103,
so a read from the wrong account is visible in the data. The project (guards_project/)
opts every model in; a test that needs a project macro writes it to macros/ and removes it.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Iterator, List

import pytest
from packaging.version import Version

from athena_spark_emulator import Emulator
from tests.integration.conftest import (
    cli_suite,
    drop_local_table,
    rows,
)

pytestmark = [
    pytest.mark.spark,
    pytest.mark.dbt,
]

HERE = Path(__file__).parent
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PARTNER_ROWS = [101, 102, 103]
LOCAL_ROWS = [1, 2]
SIGNATURE = "temporary, relation, compiled_code, language='sql', skip_partitioning=false"
ARGS = "temporary, relation, compiled_code, language, skip_partitioning"


# the shared emulator seeded with guards_seed.yml (Spark on), guards_project/ copied after `dbt deps`,
# and `dbt ARGS` in a fresh process
world, project, dbt = cli_suite(HERE / "guards_seed.yml", HERE / "guards_project")


@contextlib.contextmanager
def project_macro(project: Path, text: str) -> Iterator[None]:
    """A team macro in the project's macros/ for the duration of the block."""
    path = project / "macros" / "team_override.sql"
    path.write_text(text, encoding="utf-8")
    try:
        yield
    finally:
        path.unlink()


def macro(name: str, body: str) -> str:
    return f"{{% macro {name}({SIGNATURE}) -%}}\n  {body}\n{{%- endmacro %}}\n"


def ids(table: str, column: str = "order_id") -> List[int]:
    return [r[column] for r in rows("sales", table, order_by=column)]


drop = drop_local_table


def exists(world: Emulator, table: str) -> bool:
    glue = world.client("glue")
    try:
        glue.get_table(DatabaseName="sales", Name=table)
    except glue.exceptions.EntityNotFoundException:
        return False
    return True


def same_code(code: str, model: str) -> str:
    """A model's submitted code with its name and its table location's UUID taken out."""
    return UUID.sub("<uuid>", code.replace(model, "<model>"))


def submitted_for(world: Emulator, table: str, since: int) -> list:
    return [c for c in world.submissions[since:] if f'name="sales.{table}"' in c.code]


# ---- 1. a project override that bypasses the package stops the model, nothing is written ----
BYPASSES = {  # id: (the macro that wins over the package, the team's override)
    "create_table_as": (
        "create_table_as",
        macro("create_table_as", f"{{{{- return(dbt.athena__create_table_as({ARGS})) -}}}}"),
    ),
    "athena__create_table_as": (
        "athena__create_table_as",
        macro(
            "athena__create_table_as", f"{{{{- return(dbt.athena__create_table_as({ARGS})) -}}}}"
        ),
    ),
    "bare_athena__create_table_as": (  # resolves to dbt-athena's macro by bare name
        "create_table_as",
        macro("create_table_as", f"{{{{- return(athena__create_table_as({ARGS})) -}}}}"),
    ),
}


@pytest.mark.parametrize("case", sorted(BYPASSES))
def test_a_root_override_that_bypasses_the_package_stops_the_run(dbt, world, project, case):
    name, text = BYPASSES[case]
    drop(world, "guard_partner")
    since = len(world.submissions)
    with project_macro(project, text):
        out = dbt("run", "--select", "guard_partner", ok=False)
        doctor = dbt("run-operation", "cross_account_doctor", ok=False)
    assert (
        f"model.guards.guard_partner opt in with spark_cross_account_catalog: true and read refs "
        f"or sources, but macro '{name}' of project 'guards' (macros/team_override.sql) builds "
        "the code of opted-in Python models without this package's read plan, because it "
        "renders dbt-athena's macro itself"
    ) in out
    assert f"Fix: make '{name}' return dbt_athena_cross_account.athena__create_table_as(" in out
    assert world.submissions[since:] == [] and not exists(world, "guard_partner")
    # the doctor sees what dbt will call, too
    assert f"FAIL setup dispatch macro '{name}' of project 'guards'" in doctor


def test_a_bypass_the_setup_check_cannot_see_is_stopped_at_job_submission(dbt, world, project):
    """It calls the package's macro (so the static check accepts it) but returns the stock
    code: the last-step guard in AthenaAdapter.submit_python_job refuses it."""
    sneaky = macro(
        "create_table_as",
        f"{{%- set unused = dbt_athena_cross_account.athena__create_table_as({ARGS}) -%}}\n"
        f"  {{{{- return(dbt.athena__create_table_as({ARGS})) -}}}}",
    )
    drop(world, "guard_partner")
    since = len(world.submissions)
    with project_macro(project, sneaky):
        out = dbt("run", "--select", "guard_partner", ok=False)
    assert (
        "model 'model.guards.guard_partner' opts in with spark_cross_account_catalog: true and "
        "reads refs or sources, but its Python code reached dbt-athena's job submission without "
        "this package's read plan"
    ) in out
    assert (
        "Fix: build the model's code through adapter.dispatch('create_table_as', 'athena')" in out
    )
    assert world.submissions[since:] == [] and not exists(world, "guard_partner")


# ---- 2 + 3. a delegating wrapper reads the owner's rows; the doctor agrees with the run -----
def test_a_delegating_wrapper_reads_the_owner_and_the_doctor_passes_what_the_run_reads(
    dbt, world, project
):
    wrapper = macro(
        "athena__create_table_as",
        f"{{{{- return(dbt_athena_cross_account.athena__create_table_as({ARGS})) -}}}}",
    )
    for table in ("guard_partner", "guard_padded", "guard_shouting"):
        drop(world, table)
    with project_macro(project, wrapper):
        dbt("run", "--select", "guard_partner", "guard_padded", "guard_shouting")
        doctor = dbt("run-operation", "cross_account_doctor")
    assert ids("guard_partner") == PARTNER_ROWS
    assert ids("guard_padded") == PARTNER_ROWS  # schema " sales "
    assert ids("guard_shouting", "line_id") == [5001, 5002]  # SALES.ORDER_LINES
    assert "PASS setup dispatch" in doctor
    # the rows name the sources as written; Glue was asked as the read plan reads them
    assert "PASS metadata partner_catalog. sales .orders" in doctor
    assert "PASS metadata partner_catalog.SALES.ORDER_LINES" in doctor
    assert " 0 FAIL" in doctor


# ---- 4. spark_cross_account_catalog is a boolean --------------------------------------------
def test_the_string_false_reads_local_exactly_as_a_model_that_does_not_opt_in(dbt, world):
    for table in ("flag_from_env", "not_opted_in"):
        drop(world, table)
    since = len(world.submissions)
    dbt("run", "--select", "flag_from_env", "not_opted_in", GUARD_XACCT="false")
    assert ids("flag_from_env") == LOCAL_ROWS
    assert ids("not_opted_in") == LOCAL_ROWS
    [flag] = submitted_for(world, "flag_from_env", since)
    [plain] = submitted_for(world, "not_opted_in", since)
    assert same_code(flag.code, "flag_from_env") == same_code(plain.code, "not_opted_in")
    assert "_CROSS_ACCOUNT_TABLES" not in flag.code


def test_the_string_true_in_any_case_opts_in(dbt, world):
    drop(world, "flag_from_env")
    dbt("run", "--select", "flag_from_env", GUARD_XACCT=" True ")
    assert ids("flag_from_env") == PARTNER_ROWS


def test_any_other_flag_value_is_a_compile_error(dbt, world):
    drop(world, "flag_from_env")
    since = len(world.submissions)
    out = dbt("run", "--select", "flag_from_env", ok=False, GUARD_XACCT="maybe")
    assert (
        "model 'model.guards.flag_from_env' sets spark_cross_account_catalog: 'maybe', which is "
        "not a boolean (true or false)"
    ) in out
    assert "must end with | as_bool" in out
    assert world.submissions[since:] == [] and not exists(world, "flag_from_env")


# ---- 5. an AWS-side error is not called a permission problem --------------------------------
def test_an_internal_server_error_is_not_a_permission_problem(dbt, world):
    world.inject_error(
        "GetDataCatalog", "InternalServerException", "We encountered an internal error", times=20
    )
    try:
        out = dbt("run", "--select", "guard_partner", ok=False)
    finally:
        world.clear_faults()
    assert "athena:GetDataCatalog for catalog 'partner_catalog' failed" in out
    assert "InternalServerException" in out
    message = out[out.index("athena:GetDataCatalog for catalog 'partner_catalog' failed") :]
    assert "permission" not in message.split("Done.")[0].lower()
    assert "Fix: run dbt again" in out


# ---- 6. dbt run --sample ---------------------------------------------------------------------
def dbt_core_version() -> Version:
    from importlib import metadata

    return Version(metadata.version("dbt-core"))


@pytest.mark.skipif(dbt_core_version() < Version("1.10"), reason="--sample is dbt-core >= 1.10")
def test_a_sampled_run_reads_only_the_window_from_the_owner(dbt, world):
    for table in ("guard_events", "guard_partner"):
        drop(world, table)
    window = "{'start': '2026-11-28', 'end': '2026-12-01'}"
    dbt("run", "--select", "guard_events", "guard_partner", "--sample", window)
    # partner 1002 and local 1 are inside; 1001 before, 1003 at the (exclusive) end
    assert ids("guard_events", "event_id") == [1, 1002]
    assert ids("guard_partner") == PARTNER_ROWS  # no event_time: read whole, as dbt does


# ---- 7. the guard checks the exact block the package rendered, not a string in the file ------
TEAM_MATERIALIZATION = """{% materialization team_table, adapter='athena', supported_languages=['python'] -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set build_sql = dbt.athena__create_table_as(False, target_relation, compiled_code, 'python') -%}
  {%- call statement('main', language='python') -%}{{- build_sql -}}{%- endcall -%}
  {{ return({'relations': [target_relation]}) }}
{%- endmaterialization %}
"""
COMMENTED_MODEL = """# the package's code reads: _CROSS_ACCOUNT_TABLES = _cross_account_json.loads(
def model(dbt, spark):
    dbt.config(materialized="team_table")
    return dbt.source("partner", "orders")
"""


def test_a_materialization_rendering_stock_code_is_refused_whatever_the_model_file_says(
    dbt, world, project
):
    """The marker text in the model's own comment used to let stock code (local rows) through."""
    drop(world, "guard_commented")
    model_file = project / "models" / "guard_commented.py"
    model_file.write_text(COMMENTED_MODEL, encoding="utf-8")
    since = len(world.submissions)
    try:
        with project_macro(project, TEAM_MATERIALIZATION):
            out = dbt("run", "--select", "guard_commented", ok=False)
    finally:
        model_file.unlink()
    assert (
        "model 'model.guards.guard_commented' opts in with spark_cross_account_catalog: true and "
        "reads refs or sources, but its Python code reached dbt-athena's job submission without "
        "this package's read plan"
    ) in out
    assert world.submissions[since:] == [] and not exists(world, "guard_commented")


# ---- 8. a ref without a catalog (an ephemeral model) is a clear compile error ---------------
def test_an_ephemeral_ref_is_a_compile_error_naming_the_model_and_the_ref(dbt, world, project):
    """It used to be 'Parameter validation failed: Invalid length for parameter Name,
    value: 0' (a GetDataCatalog(Name=""))."""
    files = {
        project
        / "models"
        / "guard_eph.sql": "{{ config(materialized='ephemeral') }}\nselect 1 as id\n",
        project / "models" / "guard_reads_eph.py": (
            "def model(dbt, spark):\n    return dbt.ref('guard_eph')\n"
        ),
    }
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    since = len(world.submissions)
    try:
        out = dbt("run", "--select", "guard_reads_eph", ok=False)
    finally:
        for path in files:
            path.unlink()
    assert "Parameter validation failed" not in out
    assert (
        "model 'model.guards.guard_reads_eph' reads ref('guard_eph'), which has no catalog "
        "(database)"
    ) in out, out[-3000:]
    assert world.submissions[since:] == []
