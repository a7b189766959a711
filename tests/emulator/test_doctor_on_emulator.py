"""``dbt run-operation cross_account_doctor`` against the emulator, through the real CLIs
(``athena-spark-emulator run`` and dbt): all PASS on a healthy setup seeded from the demo's
seed, and a FAIL for exactly each problem planted, nothing else."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest
import yaml

from tests.conftest import REPO_ROOT
from tests.emulator.doctor_project import write_planted_project

pytestmark = pytest.mark.dbt

CLI = str(Path(sys.executable).parent / "athena-spark-emulator")
DEMO_SEED = REPO_ROOT / "integration_tests" / "fixtures" / "two_accounts.yml"
PROJECT = "doctor_on_emulator"

SOURCES = {
    "version": 2,
    "sources": [
        {
            "name": "partner",
            "database": "partner_catalog",
            "schema": "sales",
            "tables": [{"name": "orders"}, {"name": "shipments"}],  # shipments: Iceberg
        },
        {  # the catalog in another case (Athena's names are case-insensitive), a hyphen
            "name": "partner_lines",
            "database": "Partner_Catalog",
            "schema": "partner-sales",
            "tables": [{"name": "order-lines"}],
        },
        {
            "name": "restricted",
            "database": "restricted_catalog",
            "schema": "sales",
            "tables": [{"name": "orders"}],
        },
        {
            "name": "missing",
            "database": "missing_catalog",
            "schema": "sales",
            "tables": [{"name": "orders"}],
        },
    ],
}

MODELS = {
    "partner_orders.py": """
        def model(dbt, spark):
            dbt.config(materialized="table")
            return dbt.source("partner", "orders")
    """,
    "partner_shipments.py": """
        def model(dbt, spark):
            dbt.config(materialized="table", table_type="iceberg")
            return dbt.source("partner", "shipments")
    """,
    "partner_lines.py": """
        def model(dbt, spark):
            dbt.config(materialized="table")
            return dbt.source("partner_lines", "order-lines")
    """,
    # planted problems, enabled with --vars '{planted: true}'
    "planted/restricted_orders.py": """
        def model(dbt, spark):
            dbt.config(materialized="table")
            return dbt.source("restricted", "orders")
    """,
    "planted/missing_orders.py": """
        def model(dbt, spark):
            dbt.config(materialized="table")
            return dbt.source("missing", "orders")
    """,
    "planted/redirecting.py": """
        def model(dbt, spark):
            dbt.config(
                materialized="table",
                engine_config={"SparkProperties": {
                    "spark.hadoop.hive.metastore.glue.catalogid": "999999999999"}},
            )
            return dbt.source("partner", "orders")
    """,
}

# Run inside `athena-spark-emulator run` (so with the emulator's endpoint): the doctor on
# the healthy setup, then plant a data problem the seed cannot express (the owner's table
# moved to a bucket that does not exist) and run it again with the planted models.
DRIVER = """
import json, subprocess, sys, boto3
def doctor(*extra):
    done = subprocess.run(["dbt", "run-operation", "cross_account_doctor", *extra],
                          capture_output=True, text=True)
    return {"code": done.returncode, "out": done.stdout + done.stderr}
healthy = doctor()
glue = boto3.client("glue")
table = glue.get_table(CatalogId="999999999999", DatabaseName="partner-sales",
                       Name="order-lines")["Table"]
table_input = {k: table[k] for k in ("Name", "StorageDescriptor", "PartitionKeys",
                                     "TableType", "Parameters") if k in table}
table_input["StorageDescriptor"]["Location"] = "s3://partner-moved-away/order-lines/"
glue.update_table(CatalogId="999999999999", DatabaseName="partner-sales", TableInput=table_input)
planted = doctor("--vars", "{planted: true}")
json.dump({"healthy": healthy, "planted": planted}, open(sys.argv[1], "w"))
"""


def write_project(root: Path) -> Path:
    models = {name: textwrap.dedent(code) for name, code in MODELS.items()}
    project = write_planted_project(root, PROJECT, SOURCES, models)
    profile = subprocess.run([CLI, "profile", PROJECT], capture_output=True, text=True, check=True)
    (project / "profiles.yml").write_text(profile.stdout)
    return project


def rows(output: str) -> Dict[str, List[str]]:
    """STATUS -> sorted ['check subject', ...] of the doctor's report; subjects lower-cased
    (the doctor names a catalog by the first spelling it meets)."""
    found: Dict[str, List[str]] = {"PASS": [], "WARN": [], "FAIL": []}
    for match in re.finditer(r"^(PASS|WARN|FAIL)\s+(\w+)\s+(\S+)", output, re.M):
        found[match.group(1)].append(f"{match.group(2)} {match.group(3).lower()}")
    return {status: sorted(subjects) for status, subjects in found.items()}


def drive(root: Path, project: Path, driver: str, seed: Path, *flags: str, timeout: int) -> dict:
    """``dbt deps``, then ``driver`` (a Python script given the path to write its JSON
    result to) inside ``athena-spark-emulator run --seed seed *flags``, from a fresh process
    in ``project``; returns what the driver wrote."""
    env = {
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_USE_COLORS": "false",
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
    }
    deps = subprocess.run(["dbt", "deps"], cwd=project, env=env, capture_output=True, text=True)
    assert deps.returncode == 0, deps.stdout + deps.stderr
    (root / "driver.py").write_text(driver)
    result = root / "result.json"
    command = [CLI, "run", *flags, "--seed", str(seed), "--"]
    done = subprocess.run(
        [*command, sys.executable, str(root / "driver.py"), str(result)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(result.read_text())


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Dict[str, object]]:
    root = tmp_path_factory.mktemp("doctor-emulator")
    return drive(root, write_project(root), DRIVER, DEMO_SEED, timeout=900)


def test_doctor_is_all_pass_on_the_demo_seed(reports):
    healthy = reports["healthy"]
    found = rows(healthy["out"])
    assert healthy["code"] == 0, healthy["out"]
    assert (found["WARN"], found["FAIL"]) == ([], []), healthy["out"]
    assert found["PASS"] == sorted(
        [
            "setup dispatch",
            "setup plugin",
            f"session model.{PROJECT}.partner_orders",
            f"session model.{PROJECT}.partner_lines",
            f"session model.{PROJECT}.partner_shipments",
            "registration partner_catalog",  # one catalog, however it is spelt
            "metadata partner_catalog.sales.orders",
            "format partner_catalog.sales.orders",
            "data partner_catalog.sales.orders",
            # a real Iceberg table: its metadata file read through S3
            "metadata partner_catalog.sales.shipments",
            "format partner_catalog.sales.shipments",
            "data partner_catalog.sales.shipments",
            "metadata partner_catalog.partner-sales.order-lines",
            "format partner_catalog.partner-sales.order-lines",
            "data partner_catalog.partner-sales.order-lines",
        ]
    ), healthy["out"]
    assert re.search(r"^15 PASS, 0 WARN, 0 FAIL$", healthy["out"], re.M), healthy["out"]
    assert re.search(
        r"^PASS\s+format\s+partner_catalog\.sales\.shipments\s+Iceberg table, read through an "
        r"Iceberg catalog for the owner \(glue\.id=999999999999\); read 1 byte of its metadata "
        r"file s3://emulator-999999999999-eu-west-1/iceberg/sales/shipments/metadata/\S+\.metadata\.json$",
        healthy["out"],
        re.M,
    ), healthy["out"]
    assert "runs as arn:aws:iam::123456789012:role/AthenaSparkExecutionRole" in healthy["out"]


def test_doctor_fails_exactly_the_planted_problems(reports):
    planted = reports["planted"]
    found = rows(planted["out"])
    assert planted["code"] != 0
    assert found["FAIL"] == sorted(
        [
            "registration missing_catalog",  # not registered in Athena
            "metadata restricted_catalog.sales.orders",  # the owner grants nobody
            "data partner_catalog.partner-sales.order-lines",  # its bucket does not exist
            f"session model.{PROJECT}.redirecting",  # glue.catalogid redirects every read
        ]
    ), planted["out"]
    assert found["WARN"] == [], planted["out"]
    assert "data partner_catalog.sales.orders" in found["PASS"], planted["out"]
    assert "registration restricted_catalog" in found["PASS"], planted["out"]


# ---- a table that Spark wrote: its location holds _SUCCESS (0 bytes) next to the data -------
SPARK_DRIVER = """
import json, subprocess, sys, boto3
run = subprocess.run(["dbt", "run", "--select", "partner_orders"], capture_output=True, text=True)
s3 = boto3.client("s3")
keys = [(o["Key"], o["Size"]) for o in s3.list_objects_v2(
    Bucket="dbt-data", Prefix="analytics/partner_orders/").get("Contents", [])]
doctor = subprocess.run(
    ["dbt", "run-operation", "cross_account_doctor", "--args",
     "{catalogs: [self_catalog], tables: [self_catalog.analytics.partner_orders]}"],
    capture_output=True, text=True)
json.dump({"run": run.returncode, "run_out": run.stdout[-3000:], "keys": keys,
           "code": doctor.returncode, "out": doctor.stdout + doctor.stderr}, open(sys.argv[1], "w"))
"""


@pytest.fixture(scope="module")
def spark_written(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, object]:
    """``dbt run`` of partner_orders in local Spark, then the doctor on the table Spark wrote,
    read through a GLUE catalog that names the local account (``self_catalog``)."""
    root = tmp_path_factory.mktemp("doctor-spark")
    project = write_project(root)
    seed = yaml.safe_load(DEMO_SEED.read_text())
    seed["data_catalogs"].append(
        {"name": "self_catalog", "type": "GLUE", "parameters": {"catalog-id": "123456789012"}}
    )
    # sort_keys=False: a table's columns keep their order (its rows are positional)
    (root / "seed.yml").write_text(yaml.safe_dump(seed, sort_keys=False))
    seen = drive(root, project, SPARK_DRIVER, root / "seed.yml", "--spark", timeout=1200)
    assert seen["run"] == 0, seen["run_out"]
    return seen


@pytest.mark.spark
def test_spark_written_table_is_in_s3_and_its_metadata_passes(spark_written):
    names = {key.rsplit("/", 1)[1]: size for key, size in spark_written["keys"]}
    assert names.get("_SUCCESS") == 0, names
    assert any(n.endswith(".parquet") and size > 0 for n, size in names.items()), names
    found = rows(spark_written["out"])
    assert "metadata self_catalog.analytics.partner_orders" in found["PASS"], spark_written["out"]


@pytest.mark.spark
def test_doctor_data_check_passes_on_a_table_spark_wrote(spark_written):
    """The doctor skips the zero-byte _SUCCESS as Spark does (it used to read bytes 0-0 of
    it and FAIL with S3's InvalidRange on a table every Spark job writes)."""
    found = rows(spark_written["out"])
    failed = re.search(r"^FAIL\s+data\s+\S+\s+(.*)$", spark_written["out"], re.M)
    assert "data self_catalog.analytics.partner_orders" in found["PASS"], (
        failed.group(1) if failed else spark_written["out"]
    )
    assert spark_written["code"] == 0
