"""`dbt run-operation cross_account_doctor` through the real dbt CLI, against a served
emulator with IAM enforcement (tests/doctor_support), the plugin installed from its wheel
and this repository installed as a package with `dbt deps`."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from typing import Dict

import pytest
import yaml

from dbt_athena_cross_account.doctor.calls import READ_ONLY_ACTIONS
from tests.conftest import REPO_ROOT
from tests.doctor_support import EXECUTION_ROLE, REGION, DoctorAws
from tests.stack import dbt_cli

pytestmark = pytest.mark.dbt

PROJECT = "doctor_proj"

SOURCES_YML = """
version: 2
sources:
  - name: partner
    database: partner_catalog
    schema: sales
    tables: [{name: orders}, {name: locked_orders}, {name: payer_orders}]
  - name: partner_hr
    database: partner_catalog
    schema: hr
    tables: [{name: salaries}]
  - name: unregistered
    database: missing_catalog
    schema: sales
    tables: [{name: orders}]
  - name: local
    database: awsdatacatalog
    schema: sales
    tables: [{name: orders}]
"""

MODELS = {
    # opted in; reads one good table, a local one, and three that fail in different places
    "reader.py": """
        def model(dbt, spark):
            dbt.config(materialized="table", spark_cross_account_catalog=True)
            dbt.source("partner_hr", "salaries")
            dbt.source("partner", "locked_orders")
            dbt.source("unregistered", "orders")
            dbt.source("local", "orders")
            return dbt.source("partner", "orders")
    """,
    "good_reader.py": """
        def model(dbt, spark):
            dbt.config(materialized="table", spark_cross_account_catalog=True)
            return dbt.source("partner", "orders")
    """,
    "redirecting.py": """
        def model(dbt, spark):
            dbt.config(
                materialized="table",
                engine_config={
                    "SparkProperties": {
                        "spark.hadoop.hive.metastore.glue.catalogid": "999999999999",
                    },
                },
            )
            return spark.table("sales.orders")
    """,
    "no_separator.py": """
        def model(dbt, spark):
            dbt.config(
                materialized="table",
                spark_cross_account_catalog=True,
                engine_config={"SparkProperties": {"spark.hadoop.aws.glue.catalog.separator": ":"}},
            )
            return dbt.source("partner", "orders")
    """,
    # its bucket is requester pays: the doctor must read it as Spark will, with RequestPayer
    "payer_reader.py": """
        def model(dbt, spark):
            dbt.config(
                materialized="table", spark_cross_account_catalog=True, spark_requester_pays=True
            )
            return dbt.source("partner", "payer_orders")
    """,
    # not opted in: no AWS call on its behalf
    "plain.py": """
        def model(dbt, spark):
            dbt.config(materialized="table")
            return dbt.source("partner", "orders")
    """,
}


def write_project(root: Path, search_order=(PROJECT, "dbt_athena_cross_account", "dbt")) -> Path:
    project = root / "project"
    (project / "models").mkdir(parents=True, exist_ok=True)
    config: Dict[str, object] = {
        "name": PROJECT,
        "version": "1.0.0",
        "config-version": 2,
        "profile": PROJECT,
        "models": {
            PROJECT: {
                "+enabled": True,
                "reader": {"+enabled": "{{ var('with_failures', true) }}"},
                "redirecting": {"+enabled": "{{ var('with_failures', true) }}"},
            }
        },
        "flags": {"send_anonymous_usage_stats": False},
    }
    if search_order is not None:
        config["dispatch"] = [{"macro_namespace": "athena", "search_order": list(search_order)}]
    (project / "dbt_project.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (project / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]}))
    (project / "models" / "sources.yml").write_text(SOURCES_YML)
    for name, code in MODELS.items():
        (project / "models" / name).write_text(textwrap.dedent(code))
    profiles = {
        PROJECT: {
            "target": "dev",
            "outputs": {
                "dev": {
                    "type": "athena",
                    "s3_staging_dir": "s3://dbt-staging/",
                    "s3_data_dir": "s3://dbt-data/",
                    "region_name": REGION,
                    "database": "awsdatacatalog",
                    "schema": "dbt_doctor",
                    "spark_work_group": "spark_wg",
                    "threads": 1,
                    "num_retries": 0,
                    "num_boto3_retries": 1,
                }
            },
        }
    }
    (project / "profiles.yml").write_text(yaml.safe_dump(profiles))
    return project


@pytest.fixture(scope="module")
def aws(tmp_path_factory: pytest.TempPathFactory):
    server = DoctorAws(tmp_path_factory.mktemp("doctor-cli-aws")).start()
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("AWS_PROFILE", raising=False)  # never a developer's real profile
        yield server
    server.stop()


@pytest.fixture(scope="module")
def project(aws: DoctorAws, tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = write_project(tmp_path_factory.mktemp("doctor-cli"))
    deps = dbt_cli(["deps"], project, project, env(aws))
    assert deps.returncode == 0, deps.stdout + deps.stderr
    return project


def env(aws: DoctorAws, user: str = "dbt") -> Dict[str, str]:
    return {**aws.env(user), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DBT_USE_COLORS": "false"}


def doctor(project: Path, aws: DoctorAws, *extra: str, user: str = "dbt", python=None):
    aws.clear_log()
    result = dbt_cli(
        ["run-operation", "cross_account_doctor", *extra],
        project,
        project,
        env(aws, user),
        python=python,
    )
    return result, result.stdout + result.stderr


def row(output: str, status: str, check: str, subject: str) -> str:
    match = re.search(rf"^.*{status}\s+{check}\s+{re.escape(subject)}\s+(.*)$", output, re.M)
    assert match, f"no {status} {check} {subject} row in:\n{output}"
    return match.group(1)


def test_doctor_reports_a_fail_in_registration_metadata_and_data(project, aws):
    result, output = doctor(project, aws)
    assert result.returncode != 0, output
    # one opted-in model reads five sources: the local one is left out
    assert "missing_catalog" in row(output, "FAIL", "registration", "missing_catalog")
    assert "was denied" in row(output, "FAIL", "metadata", "partner_catalog.hr.salaries")
    assert "bucket 'partner-locked'" in row(
        output, "FAIL", "data", "partner_catalog.sales.locked_orders"
    )
    for check in ("registration", "metadata", "format", "data"):
        subject = "partner_catalog" if check == "registration" else "partner_catalog.sales.orders"
        row(output, "PASS", check, subject)
    assert (
        "awsdatacatalog"
        not in output.split("cross_account_doctor report", 1)[1].split("PASS, ")[0].lower()
    )
    # session properties and setup, from the graph
    assert "read AND write" in row(output, "FAIL", "session", f"model.{PROJECT}.redirecting")
    row(output, "WARN", "session", f"model.{PROJECT}.no_separator")
    row(output, "PASS", "session", f"model.{PROJECT}.good_reader")
    payer = row(output, "PASS", "data", "partner_catalog.sales.payer_orders")
    assert "with RequestPayer=requester" in payer
    assert f"model.{PROJECT}.plain" not in output
    row(output, "PASS", "setup", "dispatch")
    assert f"checked as arn:aws:iam::123456789012:user/dbt in {REGION}" in output
    # the fixes: create-data-catalog line and both filled-in policy documents
    assert (
        "aws athena create-data-catalog --region eu-west-1 --name missing_catalog --type GLUE"
        in output
    )
    assert '"arn:aws:glue:eu-west-1:999999999999:database/hr"' in output
    assert EXECUTION_ROLE in output and "arn:aws:iam::123456789012:user/dbt" in output
    summary = re.search(r"^.*?(\d+) PASS, (\d+) WARN, (\d+) FAIL$", output, re.M)
    assert summary and int(summary.group(3)) == 4, output
    assert "cross_account_doctor: 4 check(s) FAILed" in output
    # read-only: every call of the whole dbt command is a read in the allowlist
    actions = aws.actions()
    assert actions and set(actions) <= READ_ONLY_ACTIONS, actions


def test_doctor_with_args_checks_only_the_given_table_and_passes(project, aws):
    result, output = doctor(
        project,
        aws,
        "--args",
        json.dumps({"catalogs": ["partner_catalog"], "tables": ["partner_catalog.sales.orders"]}),
        "--vars",
        "{with_failures: false}",
    )
    assert result.returncode == 0, output
    for check in ("metadata", "format", "data"):
        row(output, "PASS", check, "partner_catalog.sales.orders")
    assert "locked_orders" not in output and "missing_catalog" not in output
    assert re.search(r"^.*\d+ PASS, 1 WARN, 0 FAIL$", output, re.M), (
        output
    )  # the separator override
    assert set(aws.actions()) <= READ_ONLY_ACTIONS


def test_doctor_without_dispatch_entry_fails_with_the_yaml(aws, tmp_path):
    project = write_project(tmp_path, search_order=None)
    assert dbt_cli(["deps"], project, project, env(aws)).returncode == 0
    result, output = doctor(project, aws, "--vars", "{with_failures: false}")
    assert result.returncode != 0, output
    assert "dispatches to package 'dbt_athena'" in row(output, "FAIL", "setup", "dispatch")
    assert f"search_order: ['{PROJECT}', 'dbt_athena_cross_account', 'dbt']" in output


def test_doctor_without_plugin_fails_with_the_pip_lines(project, aws, python_without_plugin):
    result, output = doctor(project, aws, python=python_without_plugin)
    assert result.returncode != 0, output
    assert "adapter.run_cross_account_doctor is missing" in output
    assert f"model.{PROJECT}.reader" in output and "read cross-account catalogs" in output
    # the pip lines: from the index, from git, from a clone (the package is not published)
    assert "Fix: pip install dbt-athena-cross-account   (in the virtualenv" in output
    assert 'pip install "git+<this repository\'s git URL>"' in output
    assert "pip install /path/to/a/clone/of/this/repository" in output
    assert aws.actions() == []


def test_doctor_without_plugin_and_without_readers_only_says_so(
    aws, tmp_path, python_without_plugin
):
    project = write_project(tmp_path)
    for name in MODELS:
        (project / "models" / name).unlink()
    assert dbt_cli(["deps"], project, project, env(aws)).returncode == 0
    result, output = doctor(project, aws, python=python_without_plugin)
    assert result.returncode == 0, output
    assert "so no check can run. Fix: pip install dbt-athena-cross-account" in output
    assert aws.actions() == []
