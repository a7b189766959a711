"""Owners' Iceberg tables, end to end on the emulator with real local PySpark and real
Iceberg metadata (pyiceberg), checked on the ROWS WRITTEN.

The world (iceberg_seed.yml): Iceberg sales.orders in the partner 444444444444 (401-402),
the supplier 555555555555 (501) and the local account (1-2); the supplier's Hive
sales.customers; the partner's Iceberg `Partner-Sales`.`Order-Lines`; the restricted
666666666666 grants nobody. One `dbt run` of iceberg_project/ (a fresh process, the dbt
console script) is asserted by the tests below; first, the emulator's own Iceberg contract,
one calculation each, run directly by the Spark executor.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef
from tests.conftest import REPO_ROOT, read_plan_in
from tests.integration.conftest import rows, seeded_with_spark
from tests.stack import dbt_cli

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

HERE = Path(__file__).parent
PARTNER, SUPPLIER, RESTRICTED = "444444444444", "555555555555", "666666666666"
ICEBERG_CLASSES = {
    "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions"
}
SEPARATOR = {"spark.hadoop.aws.glue.catalog.separator": "/"}
JOINED = [
    {"order_id": 401, "name": "Acme", "sku": "SKU-A", "amount": 40.0},
    {"order_id": 402, "name": "Globex", "sku": "SKU-B", "amount": 41.5},
    {"order_id": 501, "name": "Acme", "sku": "SKU-C", "amount": 50.0},
]


@pytest.fixture(scope="module")
def world(emulator: Emulator, spark_executor) -> Iterator[Emulator]:
    with seeded_with_spark(emulator, spark_executor, HERE / "iceberg_seed.yml"):
        yield emulator


# ---- the emulator's Spark honours Iceberg catalogs registered at run time -----------------
PROBES = """
import json


def register(name, glue_id=None, **properties):
    prefix = "spark.sql.catalog." + name
    spark.conf.set(prefix, "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(prefix + ".catalog-impl", "org.apache.iceberg.aws.glue.GlueCatalog")
    if glue_id:
        spark.conf.set(prefix + ".glue.id", glue_id)
    for key, value in properties.items():
        spark.conf.set(prefix + "." + key, value)


def probe(name, read):
    try:
        print(json.dumps({name: sorted(r[0] for r in read().collect())}))
    except Exception as error:
        print(json.dumps({name: "ERROR " + " ".join(str(error).split())[:700]}))


register("partner", "444444444444")
register("supplier", "555555555555")
register("no_glue_id")
register("restricted", "666666666666")
register("hyphens", "444444444444")
register("skipping", "444444444444", **{"glue.skip-name-validation": "true"})
register("elsewhere", "444444444444", **{"client.region": "us-east-1"})
probe("partner", lambda: spark.table("partner.sales.orders").select("order_id"))
probe("supplier", lambda: spark.table("`supplier`.`sales`.`orders`").select("order_id"))
probe("no_glue_id", lambda: spark.table("no_glue_id.sales.orders").select("order_id"))
probe("restricted", lambda: spark.table("restricted.sales.orders").select("order_id"))
probe("hyphens", lambda: spark.table("hyphens.`partner-sales`.`order-lines`").select("order_id"))
probe("skipping", lambda: spark.table("skipping.`partner-sales`.`order-lines`").select("order_id"))
probe("elsewhere", lambda: spark.table("elsewhere.sales.orders").select("order_id"))
probe("hive_path", lambda: spark.table("`444444444444/sales`.`orders`").select("order_id"))
probe("hive_denied", lambda: spark.table("`666666666666/sales`.`orders`").select("order_id"))
probe("hive_customers", lambda: spark.table("`555555555555/sales`.`customers`").select("customer_id"))
probe("lookup_hive", lambda: spark.sql("SHOW TBLPROPERTIES `555555555555/sales`.`customers` ('table_type')").select("value"))
probe("lookup_iceberg", lambda: spark.sql("SHOW TBLPROPERTIES `444444444444/sales`.`orders` ('table_type')").select("value"))
probe("lookup_registered", lambda: spark.sql("SHOW TBLPROPERTIES partner.sales.orders ('format')").select("value"))
"""


def probe(spark_executor, properties: Dict[str, str]) -> Dict[str, object]:
    ok, out = spark_executor(PROBES, properties)
    assert ok, out
    found: Dict[str, object] = {}
    for line in out.splitlines():
        found.update(json.loads(line))
    return found


@pytest.fixture(scope="module")
def probes(world, spark_executor) -> Dict[str, object]:
    """One calculation in a session with Iceberg's classes, each probe one read or lookup."""
    return probe(spark_executor, {**SEPARATOR, **ICEBERG_CLASSES})


def test_a_runtime_registered_glue_catalog_reads_the_owner_of_its_glue_id(probes):
    assert probes["partner"] == [401, 402]
    assert probes["supplier"] == [501]
    assert probes["no_glue_id"] == [1, 2]  # without glue.id: the session's own account


def test_an_owner_without_a_grant_refuses_both_paths_alike(probes):
    for name in ("restricted", "hive_denied"):
        error = str(probes[name])
        assert error.startswith(
            "ERROR software.amazon.awssdk.services.glue.model.AccessDeniedException"
        )
        assert (
            f"is not authorized to perform: glue:GetTable on resource: "
            f"arn:aws:glue:eu-west-1:{RESTRICTED}:table/sales/orders"
        ) in error


def test_icebergs_glue_name_rules_and_region(probes):
    assert "TABLE_OR_VIEW_NOT_FOUND" in str(probes["hyphens"])  # [a-z0-9_] only, by default
    assert probes["skipping"] == [1, 401, 402, 501]  # glue.skip-name-validation=true
    assert "TABLE_OR_VIEW_NOT_FOUND" in str(probes["elsewhere"])  # another region's Glue


def test_the_hive_client_refuses_an_iceberg_table_and_reads_a_hive_one(probes):
    assert "StorageDescriptor#InputFormat cannot be null for table: orders" in str(
        probes["hive_path"]
    )
    assert probes["hive_customers"] == [1, 2]


def test_the_format_lookup_is_answered_from_the_owners_glue(probes):
    assert probes["lookup_hive"] == [
        "Table spark_catalog.555555555555/sales.customers does not have property: table_type"
    ]
    assert "StorageDescriptor#InputFormat cannot be null" in str(probes["lookup_iceberg"])
    assert probes["lookup_registered"] == ["iceberg/parquet"]


def test_without_icebergs_classes_real_spark_cannot_load_the_catalog(world, spark_executor):
    found = probe(spark_executor, SEPARATOR)
    assert "Cannot find catalog plugin class for catalog 'partner'" in str(found["partner"])
    assert found["hive_customers"] == [1, 2]  # the Hive path does not need them


# ---- one dbt run of iceberg_project/ --------------------------------------------------------
@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, world: Emulator):
    """`dbt deps` + one `dbt run` of every model; two of them fail on purpose."""
    project = tmp_path_factory.mktemp("iceberg") / "project"
    shutil.copytree(HERE / "iceberg_project", project)
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO_ROOT}\n", encoding="utf-8")
    env = {**world.env(), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    deps = dbt_cli(["deps"], project, project, env)
    assert deps.returncode == 0, deps.stdout + deps.stderr
    since = len(world.submissions)
    result = dbt_cli(["run"], project, project, env)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0, output[-4000:]
    codes = {}
    for calc in world.submissions[since:]:
        for name in (
            "joined_hive_session",
            "joined_iceberg_session",
            "no_grant",
            "no_iceberg_classes",
            "reads_delta",
        ):
            if f"iceberg_out.{name}" in calc.code:
                codes[name] = calc
    return output, codes


def out_rows(table: str) -> List[dict]:
    return rows("iceberg_out", table, order_by="order_id")


def test_hive_model_joins_owners_iceberg_tables_with_another_owners_hive_table(run):
    output, codes = run
    assert out_rows("joined_hive_session") == JOINED, output[-4000:]
    assert codes["joined_hive_session"].state == "COMPLETED"


def test_iceberg_model_reads_them_too_and_writes_an_iceberg_table(run, world):
    output, codes = run
    assert out_rows("joined_iceberg_session") == JOINED, output[-4000:]
    calc = codes["joined_iceberg_session"]
    assert calc.spark_properties["spark.sql.catalog.spark_catalog"] == (
        "org.apache.iceberg.spark.SparkSessionCatalog"
    )
    written = world.catalog.get_table(
        TableRef(LOCAL_ACCOUNT, "iceberg_out", "joined_iceberg_session")
    )
    assert written["Parameters"]["table_type"] == "ICEBERG"


def test_the_plan_detects_formats_and_takes_the_sources_meta(run):
    _, codes = run
    plan = read_plan_in(codes["joined_hive_session"].code)
    assert plan is not None
    by_table = {entry["table"]: entry for entry in plan.values()}
    orders = by_table[f"`{PARTNER}/sales`.`orders`"]
    assert (
        orders["detect"]["sql"] == f"SHOW TBLPROPERTIES `{PARTNER}/sales`.`orders` ('table_type')"
    )
    lines = by_table[f"`{PARTNER}/Partner-Sales`.`Order-Lines`"]
    assert (lines["format"], lines["detect"]) == ("iceberg", None)
    assert lines["reads"]["iceberg"]["table"] == (
        f"`dbt_cross_account_iceberg_{PARTNER}`.`partner-sales`.`order-lines`"
    )


def test_no_grant_names_the_owner_table_and_the_doctor(run):
    output, codes = run
    assert codes["no_grant"].state == "FAILED"
    assert (
        f"Glue denied the work group's execution role access to account {RESTRICTED}, database 'sales', "
        "table 'orders'"
    ) in output
    assert "dbt run-operation cross_account_doctor" in output
    assert "software.amazon.awssdk.services.glue.model.AccessDeniedException" in output


def test_missing_iceberg_classes_say_how_to_enable_them(run):
    output, codes = run
    assert codes["no_iceberg_classes"].state == "FAILED"
    assert (
        f"source('partner', 'orders') is an Iceberg table (account {PARTNER}, database 'sales', "
        "table 'orders'), but the model's session has no Iceberg classes"
    ) in output
    assert "Fix: set table_type: iceberg on the model" in output
    assert "Cannot find catalog plugin class" in output  # real Spark's own error, chained


def test_a_delta_table_fails_with_its_format_instead_of_reading_its_raw_files(run, world):
    output, codes = run
    assert codes["reads_delta"].state == "FAILED"
    assert (
        f"source('supplier', 'ledger') (account {SUPPLIER}, database 'sales', table 'ledger') "
        "cannot be read cross-account: Delta table: the Hive Glue client reads only its raw files"
    ) in output
    assert "Fix: configure the matching Spark catalog for the owner account" in output
    assert not world.catalog.table_exists(TableRef(LOCAL_ACCOUNT, "iceberg_out", "reads_delta"))
