"""The settings around spark_cross_account_roles, tried as careless and demanding users
would: real dbt CLI in fresh processes, on the emulator, several catalogs, rows asserted.

The world (roles_settings_seed.yml): the owner 654654654654 grants nothing and keeps reader
roles (one trusting the execution role, one only with the external id ext-42, one trusting
someone else), with Iceberg shop.orders (901-902) and Hive shop.customers; the owner
543543543543 grants the local account its Hive crm.customers; the owner 765765765765 grants
only the dbt identity (the emulator's caller) its shop.orders (701); the local account has
its own shop.orders (1).

roles_settings_project/ maps the owner's catalog to its reader role once for the project
and opts in per folder; roles_doctor_project/ reads the owner through a role in each setup
that `dbt run` fails on, and in one that works, for the doctor's role rows.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef
from tests.conftest import REPO_ROOT, read_plan_in
from tests.integration.conftest import rows, seeded_with_spark
from tests.stack import dbt_cli

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

HERE = Path(__file__).parent
OWNER = "654654654654"
READER = f"arn:aws:iam::{OWNER}:role/dbt-reader"
EXT_READER = f"arn:aws:iam::{OWNER}:role/dbt-reader-ext"
SQL_OWNER = "765765765765"
OWNER_ROWS = [
    {"order_id": 901, "customer_id": 1, "amount": 90.0},
    {"order_id": 902, "customer_id": 2, "amount": 91.5},
]
SETTINGS_MODELS = (
    "roles_ignored",
    "opt_in_false",
    "reads_local",
    "reads_owner",
    "folder_null",
    "flat_mapping",
    "external_id_missing",
    "misspelled_role",
    "external_id_number",
    "external_id_dash",
    "meta_says_hive",
    "versioned_orders_v1",
    "versioned_orders_v2",
    "ventes_ete",  # the alias of ventes_été
)
DOCTOR_MODELS = (
    "untrusted",
    "misspelled",
    "hive_says_iceberg",
    "no_iceberg_classes",
    "external_id_missing",
    "works",
)


@pytest.fixture(scope="module")
def world(emulator: Emulator, spark_executor):
    with seeded_with_spark(emulator, spark_executor, HERE / "roles_settings_seed.yml"):
        identity = emulator.client("sts").get_caller_identity()["Arn"]
        emulator.catalog.grant(SQL_OWNER, identity)  # the dbt identity only, not the account
        try:
            yield emulator
        finally:
            emulator.catalog.revoke(SQL_OWNER, identity)


def env_of(world: Emulator) -> Dict[str, str]:
    return {
        **world.env(),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "OWNER_READER_ROLE": READER,
    }


def project_of(tmp_path_factory: pytest.TempPathFactory, world: Emulator, name: str) -> Path:
    project = tmp_path_factory.mktemp(name) / "project"
    shutil.copytree(HERE / f"{name}_project", project)
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO_ROOT}\n", encoding="utf-8")
    deps = dbt_cli(["deps"], project, project, env_of(world))
    assert deps.returncode == 0, deps.stdout + deps.stderr
    return project


def dbt_run(world: Emulator, project: Path, schema: str, names) -> Tuple[str, Dict[str, object]]:
    since = len(world.submissions)
    result = dbt_cli(["run"], project, project, env_of(world))
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output[-4000:]  # several models fail on purpose
    codes: Dict[str, object] = {}
    for calc in world.submissions[since:]:
        for name in names:
            if f'name="{schema}.{name}"' in calc.code:
                codes[name] = calc
    return output, codes


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, world: Emulator):
    """`dbt deps` + one `dbt run` of roles_settings_project/; several models fail on purpose."""
    project = project_of(tmp_path_factory, world, "roles_settings")
    return dbt_run(world, project, "settings_out", SETTINGS_MODELS)


def out_rows(schema: str, table: str) -> List[dict]:
    return rows(schema, table, order_by="order_id")


def written(world: Emulator, schema: str, name: str) -> bool:
    return world.catalog.table_exists(TableRef(LOCAL_ACCOUNT, schema, name))


def session_names(code: str) -> List[str]:
    plan = read_plan_in(code)
    assert plan is not None
    return sorted(
        {
            value
            for entry in plan.values()
            for key, value, _ in (entry.get("reads", {}).get("iceberg", {}).get("conf") or [])
            if key.endswith(".client.assume-role.session-name")
        }
    )


# ---- 1: a roles setting without the opt-in ----------------------------------------------------
@pytest.mark.parametrize("name", ["roles_ignored", "opt_in_false"])
def test_a_mapped_catalog_read_without_the_opt_in_is_a_compile_error(run, world, name):
    output, codes = run
    assert (
        f"model 'model.roles_settings.{name}' reads settings_owner_catalog.shop.orders and maps "
        "its catalog 'settings_owner_catalog' to a role in spark_cross_account_roles, but does "
        "not opt in with spark_cross_account_catalog: true, so the role would be ignored"
    ) in output, output[-4000:]
    assert "Fix: set spark_cross_account_catalog: true on the model" in output
    assert name not in codes  # nothing submitted: the local table was not read instead
    assert not written(world, "settings_out", name)


def test_a_model_that_reads_no_catalog_of_the_mapping_stays_stock(run):
    output, codes = run
    assert out_rows("settings_out", "reads_local") == [
        {"order_id": 1, "customer_id": 1, "amount": 1.0}
    ], output[-4000:]
    assert read_plan_in(codes["reads_local"].code) is None  # type: ignore[attr-defined]


def test_the_projects_role_reads_the_owner(run):
    output, _ = run
    assert out_rows("settings_out", "reads_owner") == OWNER_ROWS, output[-4000:]


# ---- 3: a folder's mapping is merged with the project's -------------------------------------
def test_a_folders_null_entry_keeps_the_projects_role_for_other_catalogs(run):
    output, codes = run
    assert out_rows("settings_out", "folder_null") == [
        {"order_id": 901, "name": "Acme Corp", "amount": 90.0},
        {"order_id": 902, "name": "Globex Inc", "amount": 91.5},
    ], output[-4000:]
    plan = read_plan_in(codes["folder_null"].code)  # type: ignore[attr-defined]
    assert plan is not None
    assert {e.get("role", {}).get("role_arn") for e in plan.values()} == {READER, None}


# ---- 4: a refusal lists every cause and keeps the external id ----------------------------------
@pytest.mark.parametrize(
    "name, role, cause",
    [
        (
            "external_id_missing",
            EXT_READER,
            "(2) the trust policy requires an external id (an sts:ExternalId condition) and "
            "this model sends none",
        ),
        (
            "misspelled_role",
            f"arn:aws:iam::{OWNER}:role/dbt-raeder",
            "(3) the role does not exist (a typo in the ARN is refused alike)",
        ),
    ],
)
def test_a_refused_assume_role_lists_every_cause(run, world, name, role, cause):
    output, codes = run
    assert codes[name].state == "FAILED"  # type: ignore[attr-defined]
    assert f"STS refused to let the work group's execution role assume the role {role}" in output
    for text in (
        cause,
        "(1) the role's trust policy does not allow the execution role sts:AssumeRole",
        "(4) the execution role's own IAM policy does not allow sts:AssumeRole on that role",
        "Never remove an sts:ExternalId condition from the role's trust policy",
    ):
        assert text in output, text
    assert not written(world, "settings_out", name)


# ---- 6: a mapping without its catalog key ------------------------------------------------------
def test_a_mapping_without_its_catalog_level_is_a_compile_error(run, world):
    output, codes = run
    assert (
        "model 'model.roles_settings.flat_mapping' sets spark_cross_account_roles to a mapping "
        "whose keys include 'role_arn' and 'external_id'"
    ) in output, output[-4000:]
    assert "Fix: nest the role under the catalog it reads" in output
    assert "flat_mapping" not in codes
    assert not written(world, "settings_out", "flat_mapping")


# ---- 7: Athena SQL reads as the caller ---------------------------------------------------------
def test_an_sql_model_reads_an_owner_that_grants_the_dbt_identity(run):
    output, _ = run
    assert "ACCESS_DENIED" not in output, output[-4000:]
    assert out_rows("settings_out", "sql_reads_owner") == [{"order_id": 701, "amount": 70.0}]


# ---- 8: the small ones -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, text",
    [
        (
            "external_id_number",
            "with external_id 123456, a int, but an external id is a string",
        ),
        ("external_id_dash", "with the key(s) 'external-id', which it does not know"),
        (
            "meta_says_hive",
            "reads source('owner_meta_hive', 'orders') of account 654654654654, whose meta says "
            "it is a Hive table (spark_table_format: hive)",
        ),
    ],
)
def test_each_bad_setting_is_named_for_what_it_is(run, world, name, text):
    output, codes = run
    assert text in output, output[-4000:]
    assert f"model 'model.roles_settings.{name}'" in output
    assert name not in codes
    assert not written(world, "settings_out", name)


def test_session_names_are_ascii_and_name_each_version(run):
    output, codes = run
    for name, expected in (
        ("versioned_orders_v1", "dbt-versioned_orders-v1"),
        ("versioned_orders_v2", "dbt-versioned_orders-v2"),
        ("ventes_ete", "dbt-ventes_ete"),  # the model ventes_été
    ):
        assert name in codes, output[-4000:]
        assert session_names(codes[name].code) == [expected]  # type: ignore[attr-defined]
        assert out_rows("settings_out", name) == OWNER_ROWS


# ---- 2 and 5: the doctor's role rows -----------------------------------------------------------
@pytest.fixture(scope="module")
def doctor_project(tmp_path_factory: pytest.TempPathFactory, world: Emulator):
    """roles_doctor_project/ after its `dbt run`: only `works` reads the owner's rows."""
    project = project_of(tmp_path_factory, world, "roles_doctor")
    output, codes = dbt_run(world, project, "doctor_out", DOCTOR_MODELS)
    return project, output, codes


def doctor(world: Emulator, project: Path, args: str) -> Tuple[int, str]:
    result = dbt_cli(
        ["run-operation", "cross_account_doctor", "--args", args], project, project, env_of(world)
    )
    return result.returncode, result.stdout + result.stderr


def role_rows_of(output: str) -> List[Tuple[str, str, str]]:
    """(status, subject, reason) of every `role` row."""
    found = []
    for line in output.splitlines():
        match = re.match(r"^(PASS|WARN|FAIL)\s+role\s+(\S+)\s+(.*)$", line)
        if match:
            found.append(match.groups())
    return found


def test_the_run_reads_the_owners_rows_in_one_setup_only(doctor_project, world):
    _, output, codes = doctor_project
    assert out_rows("doctor_out", "works") == OWNER_ROWS, output[-4000:]
    for name in DOCTOR_MODELS[:-1]:  # each submitted, each failing inside Spark
        assert codes[name].state == "FAILED", name  # type: ignore[attr-defined]
        assert not written(world, "doctor_out", name), name


def test_without_the_probe_no_role_row_passes_and_each_says_how_to_check(doctor_project, world):
    project, _, _ = doctor_project
    code, output = doctor(world, project, "{}")
    found = role_rows_of(output)
    assert found, output[-6000:]
    assert {status for status, _, _ in found} == {"WARN"}, found
    for _, _, reason in found:
        assert "not checked: without the Spark probe the doctor cannot assume the role" in reason
    assert "--args '{spark: true}'" in output
    assert code == 0, output[-6000:]


def test_with_the_probe_a_role_row_passes_only_where_the_run_reads(doctor_project, world):
    project, _, _ = doctor_project
    code, output = doctor(world, project, "{spark: true}")
    found = role_rows_of(output)
    passed = [reason for status, _, reason in found if status == "PASS"]
    assert len(passed) == 1, found
    assert (
        f"read through the role {EXT_READER} (external id 'ext-42') by model.roles_doctor.works"
        in passed[0]
    )
    assert "the Spark probe read it through the role" in passed[0]
    warned = [reason for status, _, reason in found if status == "WARN"]
    for role in (READER, f"arn:aws:iam::{OWNER}:role/someone-elses", "role/dbt-raeder"):
        assert any(role in reason and "its spark row below FAILs" in reason for reason in warned)
    # the model that sends no external id: keep the condition, set the id
    assert "if the trust policy has an sts:ExternalId condition, keep it and set that" in output
    assert code != 0


def test_explicit_tables_are_checked_as_the_models_read_them(doctor_project, world):
    project, _, _ = doctor_project
    code, output = doctor(world, project, "{tables: [settings_owner_catalog.shop.orders]}")
    assert not re.search(r"^FAIL\s+metadata", output, re.M), output[-6000:]
    found = role_rows_of(output)
    assert {subject for _, subject, _ in found} == {"settings_owner_catalog.shop.orders"}, found
    assert any(f"read through the role {EXT_READER}" in reason for _, _, reason in found)
    assert code == 0, output[-6000:]
