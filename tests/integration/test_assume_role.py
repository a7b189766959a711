"""Reading an owner's Iceberg tables through a role the owner controls
(spark_cross_account_roles), end to end on the emulator: real dbt CLI, real local PySpark,
real Iceberg metadata, checked on the ROWS WRITTEN.

The world (role_seed.yml): the owner 321321321321 grants nothing and keeps reader roles
(one trusting the execution role, one only with an external id, one trusting someone
else); it holds Iceberg sales.orders (801-802) and Hive sales.customers. The owner
432432432432 grants the local account its Hive crm.customers. The local account has its
own sales.orders (1). One `dbt run` of role_project/ (the role ARN from env_var()) is
asserted by the tests below; several models fail on purpose. Sources read through the
role name their format in meta, as they must (one does not, on purpose).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef
from athena_spark_emulator.core.constants import EXECUTION_ROLE_ARN
from tests.conftest import REPO_ROOT, read_plan_in
from tests.integration.conftest import rows, seeded_with_spark
from tests.stack import dbt_cli

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

HERE = Path(__file__).parent
OWNER = "321321321321"
READER = f"arn:aws:iam::{OWNER}:role/dbt-reader"
MODELS = (
    "reads_with_role",
    "reads_without_role",
    "two_owners",
    "hive_under_role",
    "hive_found_through_role",
    "format_not_named",
    "untrusted_role",
    "wrong_external_id",
    "with_external_id",
    "malformed_arn",
)
OWNER_ROWS = [
    {"order_id": 801, "customer_id": 1, "amount": 80.0},
    {"order_id": 802, "customer_id": 2, "amount": 81.5},
]


@pytest.fixture(scope="module")
def world(emulator: Emulator, spark_executor) -> Iterator[Emulator]:
    with seeded_with_spark(emulator, spark_executor, HERE / "role_seed.yml"):
        yield emulator


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, world: Emulator):
    """`dbt deps` + one `dbt run` of every model; several fail on purpose."""
    project = tmp_path_factory.mktemp("roles") / "project"
    shutil.copytree(HERE / "role_project", project)
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO_ROOT}\n", encoding="utf-8")
    env = {
        **world.env(),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "OWNER_READER_ROLE": f" {READER} ",  # env_var() values may carry spaces
    }
    deps = dbt_cli(["deps"], project, project, env)
    assert deps.returncode == 0, deps.stdout + deps.stderr
    since = len(world.submissions)
    result = dbt_cli(["run"], project, project, env)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output[-4000:]
    codes: Dict[str, object] = {}
    for calc in world.submissions[since:]:
        for name in MODELS:
            if f'name="role_out.{name}"' in calc.code:
                codes[name] = calc
    return output, codes


def out_rows(table: str) -> List[dict]:
    return rows("role_out", table, order_by="order_id")


def written(world: Emulator, name: str) -> bool:
    return world.catalog.table_exists(TableRef(LOCAL_ACCOUNT, "role_out", name))


def test_an_owner_that_grants_nothing_is_read_through_its_reader_role(run):
    output, codes = run
    assert out_rows("reads_with_role") == OWNER_ROWS, output[-4000:]
    plan = read_plan_in(codes["reads_with_role"].code)  # type: ignore[attr-defined]
    assert plan is not None
    (entry,) = {id(e): e for e in plan.values()}.values()
    assert entry["role"]["role_arn"] == READER
    conf = {k: v for k, v, _ in entry["reads"]["iceberg"]["conf"]}
    assert "org.apache.iceberg.aws.AssumeRoleAwsClientFactory" in conf.values()
    assert entry["detect"] is None  # no lookup as the execution role


def test_without_the_role_the_same_read_is_denied(run, world):
    output, codes = run
    assert codes["reads_without_role"].state == "FAILED"  # type: ignore[attr-defined]
    assert (
        f"Glue denied the work group's execution role access to account {OWNER}, database 'sales', "
        "table 'orders'"
    ) in output
    assert not written(world, "reads_without_role")


def test_two_owners_one_through_a_role_one_through_grants(run):
    output, _ = run
    assert out_rows("two_owners") == [
        {"order_id": 801, "name": "Acme Corp", "amount": 80.0},
        {"order_id": 802, "name": "Globex Inc", "amount": 81.5},
    ], output[-4000:]


def test_a_hive_table_under_a_role_is_a_compile_error_and_nothing_runs(run, world):
    output, codes = run
    assert "hive_under_role" not in codes  # nothing submitted
    assert not written(world, "hive_under_role")
    assert (
        "model 'model.role_cross.hive_under_role' reads source('owner_hive', 'customers') of "
        f"account {OWNER}, whose meta says it is a Hive table (spark_table_format: hive), "
        f"through the role {READER}"
    ) in output
    assert "switch every Glue call of the session to the owner's role" in output


def test_a_source_that_names_no_format_under_a_role_is_a_compile_error(run, world):
    output, codes = run
    assert "format_not_named" not in codes  # nothing submitted
    assert not written(world, "format_not_named")
    assert (
        "model 'model.role_cross.format_not_named' reads source('owner_unnamed', 'orders') of "
        f"account {OWNER} through the role {READER} (spark_cross_account_roles for catalog "
        "'role_owner_catalog'), but the source does not name the table's format"
    ) in output
    assert "set meta: {spark_table_format: iceberg} on the table or on the whole source" in output


def test_a_hive_table_whose_source_says_iceberg_fails_in_spark_before_writing(run, world):
    output, codes = run
    assert codes["hive_found_through_role"].state == "FAILED"  # type: ignore[attr-defined]
    assert (
        f"source('owner', 'customers') could not be read through the role {READER}: "
        f"account {OWNER} has no Iceberg table 'customers'"
    ) in output
    assert not written(world, "hive_found_through_role")


def test_a_role_that_does_not_trust_the_execution_role_fails_naming_it(run, world):
    output, codes = run
    assert codes["untrusted_role"].state == "FAILED"  # type: ignore[attr-defined]
    role = f"arn:aws:iam::{OWNER}:role/someone-elses"
    assert f"STS refused to let the work group's execution role assume the role {role}" in output
    assert f"is not authorized to perform: sts:AssumeRole on resource: {role}" in output
    assert not written(world, "untrusted_role")


def test_a_wrong_external_id_fails_and_the_right_one_reads(run, world):
    output, codes = run
    role = f"arn:aws:iam::{OWNER}:role/dbt-reader-with-id"
    assert codes["wrong_external_id"].state == "FAILED"  # type: ignore[attr-defined]
    assert (
        f"assume the role {role} (spark_cross_account_roles)" in output
        and "with the external id 'not-partner-42'" in output
    )
    assert not written(world, "wrong_external_id")
    assert out_rows("with_external_id") == OWNER_ROWS


def test_a_malformed_arn_is_a_compile_error(run, world):
    output, codes = run
    assert "malformed_arn" not in codes
    assert (
        "model 'model.role_cross.malformed_arn' sets spark_cross_account_roles for catalog "
        f"'role_owner_catalog' to 'arn:aws:iam::{OWNER}:user/dbt-reader', which is not an IAM role ARN"
    ) in output
    assert not written(world, "malformed_arn")


# ---- the doctor knows role mode ---------------------------------------------------------------
@pytest.fixture(scope="module")
def doctor(run, world: Emulator, tmp_path_factory: pytest.TempPathFactory) -> str:
    """`dbt run-operation cross_account_doctor --args '{spark: true}'` on the same project
    (after the run: it reads the same tables; several of them FAIL on purpose)."""
    project = next(tmp_path_factory.getbasetemp().glob("roles*")) / "project"
    env = {
        **world.env(),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "OWNER_READER_ROLE": READER,
    }
    result = dbt_cli(
        ["run-operation", "cross_account_doctor", "--args", "{spark: true}"], project, project, env
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    return output


def report_row(output: str, status: str, kind: str, subject: str) -> str:
    """The report line of one row (its reason), and its fix lines up to the next row."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(f"{status:<6}  {kind} ") and f" {subject} " in line:
            tail = []
            for more in lines[i + 1 :]:
                if re.match(r"^(PASS|WARN|FAIL) ", more) or not more.strip():
                    break
                tail.append(more.strip())
            return " ".join([line, *tail])
    raise AssertionError(f"no {status} {kind} row for {subject}:\n{output[-6000:]}")


def test_the_doctor_says_which_reads_go_through_a_role(doctor):
    # the Spark probe cannot read this Hive table through the role (its meta says iceberg):
    # the row is not a PASS, and points at the probe's FAIL
    row = report_row(doctor, "WARN", "role", "role_owner_catalog.sales.customers")
    assert "its spark row below FAILs" in row, row
    assert f"read through the role {READER} by model.role_cross.hive_found_through_role" in row
    # hive_under_role's FAIL below keeps the identity checks on this table: the row says so
    assert "the checks as your identity below run too" in row, row
    assert "the role setting of model.role_cross.hive_under_role FAILs above" in row, row
    # a read through the role the run refuses at compile time FAILs with the run's message
    hive = report_row(doctor, "FAIL", "role", "role_owner_catalog.sales.customers")
    assert "model 'model.role_cross.hive_under_role' reads the table" in hive
    assert "only Iceberg tables can be read through a role" in hive
    unnamed = report_row(doctor, "FAIL", "role", "role_owner_catalog.sales.orders")
    assert "model 'model.role_cross.format_not_named' reads the table" in unnamed
    assert "the source does not name the table's format" in unnamed


def test_the_doctor_probe_reads_through_the_role(doctor):
    row = report_row(doctor, "PASS", "spark", f"role_owner_catalog.sales.orders through {READER}")
    assert (
        f"read through the role {READER}, assumed by the execution role {EXECUTION_ROLE_ARN}" in row
    )
    for name in (
        "org.apache.iceberg.aws.AssumeRoleAwsClientFactory",
        "software.amazon.awssdk.services.sts.StsClient",
    ):
        assert "Class.forName through the session's JVM" in report_row(
            doctor, "PASS", "spark", name
        )


def test_the_doctor_probe_fails_a_refused_role_with_the_trust_policy_to_add(doctor):
    role = f"arn:aws:iam::{OWNER}:role/someone-elses"
    row = report_row(doctor, "FAIL", "spark", f"role_owner_catalog.sales.orders through {role}")
    assert f"STS refused to let the work group's execution role assume the role {role}" in row
    assert f"the trust policy of {role} has this statement (the owner adds it)" in row
    assert f"the role {role} exists in account {OWNER}" in row
    assert f'"AWS": "{EXECUTION_ROLE_ARN}" }}, "Action": "sts:AssumeRole"' in row
    with_id = report_row(
        doctor,
        "FAIL",
        "spark",
        f"role_owner_catalog.sales.orders through arn:aws:iam::{OWNER}:role/dbt-reader-with-id "
        "(external id 'not-partner-42')",
    )
    assert '"sts:ExternalId": "not-partner-42"' in with_id
