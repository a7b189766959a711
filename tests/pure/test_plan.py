"""The read plan (plan.py) without dbt: what each ref/source reads, and fail-closed errors."""

from __future__ import annotations

import shlex
from typing import Dict, Iterable, List, Mapping, Optional

import pytest

from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.fixes import create_data_catalog
from dbt_athena_cross_account.plan import Read, build_read_plan, check_fallback
from dbt_athena_cross_account.resolver import Resolution, catalog_key, classify, default_catalog_id

CATALOGS: Dict[str, Optional[dict]] = {
    "partner_catalog": {"Type": "GLUE", "Parameters": {"catalog-id": "999999999999"}},
    "supplier_catalog": {"Type": "GLUE", "Parameters": {"catalog-id": "777777777777"}},
    "lambda_catalog": {"Type": "LAMBDA", "Parameters": {"function": "arn:aws:lambda:f"}},
    "s3t_like": {"Type": "GLUE", "Parameters": {"catalog-id": "1:s3tablescatalog/b"}},
}


class Resolver:
    def __init__(self) -> None:
        self.calls: List[List[str]] = []

    def __call__(self, names: Iterable[str]) -> Dict[str, Resolution]:
        names = list(names)
        self.calls.append(names)
        return {
            catalog_key(n): classify(n, CATALOGS.get(catalog_key(n)), default_catalog_id)
            for n in names
        }


def read(catalog: str, schema: str = "sales", table: str = "orders", **kw: object) -> Read:
    key = f'"{catalog}"."{schema}"."{table}"'
    return Read(f"source('{catalog}', '{table}')", (key,), catalog, schema, table, **kw)  # type: ignore[arg-type]


def tables(plan) -> Mapping[str, str]:
    return {key: entry["table"] for key, entry in plan.tables.items()}


def test_two_owner_catalogs_and_a_local_one_in_one_model_one_lookup_each():
    resolver = Resolver()
    reads = [read("partner_catalog"), read("Supplier_Catalog"), read("awsdatacatalog")]
    plan = build_read_plan("model.p.m", reads, resolver)
    assert tables(plan) == {
        '"partner_catalog"."sales"."orders"': "`999999999999/sales`.`orders`",
        '"Supplier_Catalog"."sales"."orders"': "`777777777777/sales`.`orders`",
        '"awsdatacatalog"."sales"."orders"': "`sales`.`orders`",
    }
    assert [sorted(c) for c in resolver.calls] == [["Supplier_Catalog", "partner_catalog"]]
    assert plan.warnings == []


def test_only_local_reads_make_no_lookup():
    resolver = Resolver()
    plan = build_read_plan("m", [read("AwsDataCatalog")], resolver)
    assert resolver.calls == [] and tables(plan) == {
        '"AwsDataCatalog"."sales"."orders"': "`sales`.`orders`"
    }


@pytest.mark.parametrize(
    "catalog, reason, fix",
    [
        (
            "partner_catalgo",
            "'partner_catalgo' is not registered as an Athena data catalog",
            "if 'partner_catalgo' is a typo, correct the database of source('partner_catalgo', 'orders')",
        ),
        (
            "lambda_catalog",
            "'lambda_catalog' is a LAMBDA data catalog",
            "only through a GLUE data catalog",
        ),
        (
            "s3t_like",
            "has catalog-id '1:s3tablescatalog/b'",
            "aws athena update-data-catalog --name s3t_like",
        ),
        ("s3tablescatalog/bucket", "is an S3 Tables catalog", "read S3 Tables from a SQL model"),
    ],
)
def test_a_catalog_that_cannot_be_read_cross_account_stops_the_model(catalog, reason, fix):
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("model.p.m", [read(catalog), read("partner_catalog")], Resolver())
    message = str(info.value)
    assert (
        f"model 'model.p.m' reads source('{catalog}', 'orders') from catalog '{catalog}'" in message
    )
    assert reason in message and fix in message
    assert "Spark would read the local account's table `sales`.`orders` instead" in message
    assert "set spark_cross_account_fallback: local on the model" in message


def test_fallback_local_warns_and_reads_the_local_table():
    plan = build_read_plan(
        "model.p.m", [read("partner_catalgo"), read("partner_catalog")], Resolver(), "local"
    )
    assert tables(plan) == {
        '"partner_catalgo"."sales"."orders"': "`sales`.`orders`",
        '"partner_catalog"."sales"."orders"': "`999999999999/sales`.`orders`",
    }
    (warning,) = plan.warnings
    assert "spark_cross_account_fallback is 'local', so the local account's table" in warning


def test_every_problem_of_a_model_is_listed_at_once():
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("m", [read("nope_a"), read("nope_b", table="t")], Resolver())
    assert "'nope_a'" in str(info.value) and "'nope_b'" in str(info.value)


@pytest.mark.parametrize("value", ["warn", "LOCAL ", 1, True])
def test_the_fallback_is_validated(value):
    if value == "LOCAL ":
        assert check_fallback("m", value) == "local"
        return
    with pytest.raises(CrossAccountCatalogError) as info:
        check_fallback("model.p.m", value)
    assert f"sets spark_cross_account_fallback: {value!r}, which is not one of 'error'" in str(
        info.value
    )


def test_a_python_model_in_another_catalog_cannot_be_written_there():
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("model.p.w", [], Resolver(), write_catalog="partner_catalog")
    assert "its database is catalog 'partner_catalog'" in str(info.value)
    assert "Fix: set database: awsdatacatalog on the model" in str(info.value)
    plan = build_read_plan("model.p.w", [], Resolver(), "local", write_catalog="partner_catalog")
    assert "so it is written there" in plan.warnings[0]
    assert build_read_plan("m", [], Resolver(), write_catalog="AwsDataCatalog").warnings == []


def test_a_ref_to_a_python_model_in_another_catalog_is_not_looked_up_there():
    resolver = Resolver()
    up = read("partner_catalog", python_model=True)
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("model.p.m", [up], resolver)
    assert "Python model whose database is catalog 'partner_catalog'" in str(info.value)
    assert resolver.calls == []
    plan = build_read_plan("model.p.m", [up], resolver, "local")
    assert tables(plan) == {up.keys[0]: "`sales`.`orders`"}


def test_fix_commands_are_shell_quoted():
    command = create_data_catalog("partner $(touch owned) x")
    assert shlex.split(command)[4] == "partner $(touch owned) x"
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("m", [read("partner $(touch owned) x")], Resolver())
    assert "--name 'partner $(touch owned) x'" in str(info.value)


# ---- table formats: detected in Spark, or named by the source ---------------------------
def test_a_cross_account_read_carries_how_to_detect_and_read_each_format():
    plan = build_read_plan(
        "m",
        [read("partner_catalog", "Partner-Sales", "Order-Lines")],
        Resolver(),
        region="eu-west-1",
    )
    (entry,) = plan.tables.values()
    assert entry["table"] == "`999999999999/Partner-Sales`.`Order-Lines`"  # the Hive read
    assert entry["format"] is None
    assert entry["detect"] == {
        "sql": "SHOW TBLPROPERTIES `999999999999/Partner-Sales`.`Order-Lines` ('table_type')",
        "formats": {"ICEBERG": "iceberg", "DELTA": "delta", "HUDI": "hudi", "GOVERNED": "governed"},
        "refusals": {"StorageDescriptor#InputFormat cannot be null": "iceberg"},
        "default": "hive",
    }
    assert entry["reads"]["hive"] == {"table": entry["table"], "conf": []}
    iceberg = entry["reads"]["iceberg"]
    catalog = "dbt_cross_account_iceberg_999999999999"
    assert iceberg["table"] == f"`{catalog}`.`partner-sales`.`order-lines`"
    prefix = f"spark.sql.catalog.{catalog}"
    assert iceberg["conf"] == [
        [prefix, "org.apache.iceberg.spark.SparkCatalog", None],
        [prefix + ".catalog-impl", "org.apache.iceberg.aws.glue.GlueCatalog", None],
        [prefix + ".glue.id", "999999999999", None],
        [prefix + ".glue.skip-name-validation", "true", None],
        [
            prefix + ".io-impl",
            "org.apache.iceberg.aws.s3.S3FileIO",
            "spark.sql.catalog.spark_catalog.io-impl",
        ],
        [prefix + ".client.region", "eu-west-1", "spark.sql.catalog.spark_catalog.client.region"],
    ]
    messages = [rule["message"] for rule in entry["errors"]]
    assert all(
        "account 999999999999" in m and "'Partner-Sales'" in m and "'Order-Lines'" in m
        for m in messages
    )
    assert any("dbt run-operation cross_account_doctor" in m for m in messages)


def test_formats_spark_cannot_read_are_refused_with_the_table_and_the_fix():
    plan = build_read_plan("m", [read("partner_catalog", "sales", "ledger")], Resolver())
    (entry,) = plan.tables.values()
    assert set(entry["refuse"]) == {"delta", "hudi", "governed"}
    assert not set(entry["refuse"]) & set(entry["reads"])  # refused, never read
    assert entry["refuse"]["delta"] == (
        "dbt_athena_cross_account: source('partner_catalog', 'ledger') (account 999999999999, "
        "database 'sales', table 'ledger') cannot be read cross-account: Delta table: the Hive Glue "
        "client reads only its raw files. Fix: configure the matching Spark catalog for the "
        "owner account, or read it from a SQL model. Run `dbt run-operation "
        "cross_account_doctor` to check every table the project reads."
    )


def test_local_reads_are_not_detected():
    plan = build_read_plan("m", [read("awsdatacatalog")], Resolver())
    (entry,) = plan.tables.values()
    assert entry == {"table": "`sales`.`orders`", "account": None, "empty": False}


@pytest.mark.parametrize("value, expected", [("iceberg", "iceberg"), (" Hive ", "hive")])
def test_the_source_override_skips_detection(value, expected):
    plan = build_read_plan("m", [read("partner_catalog", table_format=value)], Resolver())
    (entry,) = plan.tables.values()
    assert entry["format"] == expected and entry["detect"] is None


def test_an_unknown_override_is_a_compile_error():
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("model.p.m", [read("partner_catalog", table_format="delta")], Resolver())
    assert (
        "model 'model.p.m' reads source('partner_catalog', 'orders'), whose meta "
        "spark_table_format is 'delta', which is not one of 'hive', 'iceberg'"
    ) in str(info.value)


def test_iceberg_classes_missing_says_how_to_enable_them():
    from dbt.adapters.athena.constants import DEFAULT_SPARK_PROPERTIES

    from dbt_athena_cross_account.formats import ICEBERG_SESSION_PROPERTIES

    assert DEFAULT_SPARK_PROPERTIES["iceberg"] == ICEBERG_SESSION_PROPERTIES
    plan = build_read_plan("m", [read("partner_catalog")], Resolver())
    (entry,) = plan.tables.values()
    [rule] = [r for r in entry["errors"] if "Cannot find catalog plugin class" in r["markers"]]
    assert rule["format"] == "iceberg"
    assert "set table_type: iceberg on the model" in rule["message"]
    assert (
        '{"SparkProperties": {"spark.sql.catalog.spark_catalog": '
        '"org.apache.iceberg.spark.SparkSessionCatalog"'
    ) in rule["message"]
    assert '"spark.sql.extensions": "org.apache.iceberg.spark.extensions' in rule["message"]


def test_an_override_applies_to_every_read_of_the_same_relation():
    reads = [read("partner_catalog"), read("partner_catalog", table_format="iceberg")]
    for ordered in (reads, reads[::-1]):
        plan = build_read_plan("m", ordered, Resolver())
        (entry,) = plan.tables.values()
        assert (entry["format"], entry["detect"]) == ("iceberg", None)


def test_a_read_without_a_catalog_is_an_error_naming_the_model_and_the_ref_with_no_lookup():
    """An ephemeral ref (database None) used to be resolved as GetDataCatalog(Name="")."""
    resolver = Resolver()
    eph = Read("ref('eph')", ("__dbt__cte__eph",), "", "", "__dbt__cte__eph")
    with pytest.raises(CrossAccountCatalogError) as raised:
        build_read_plan("model.p.m", [eph, read("partner_catalog")], resolver)
    assert str(raised.value) == (
        "dbt_athena_cross_account: model 'model.p.m' reads ref('eph'), which has no catalog "
        "(database) (it rendered as '__dbt__cte__eph'): an ephemeral model, or anything else "
        "that is not a table in a data catalog, has no table Spark can read. Fix: materialize "
        "it as a table (materialized='table'), or remove spark_cross_account_catalog from this "
        "model."
    )
    assert resolver.calls == []
