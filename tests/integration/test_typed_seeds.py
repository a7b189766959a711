"""Seed tables of every Glue type, Hive and Iceberg alike, read back through Athena SQL and
through a Spark calculation (what a Python model's ``dbt.source`` / ``spark.table`` runs):
the rows, value for value. One seeding and one Spark session for the module."""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any, Dict, Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.integration.conftest import seeded_with_spark
from tests.stack import athena_rows

pytestmark = pytest.mark.spark

OWNER = "777777777777"
# every Glue type; in flow style a type with a comma is quoted ('decimal(10,2)')
COLUMNS = (
    "{id: int, c_tinyint: tinyint, c_smallint: smallint, c_int: integer, c_bigint: bigint, "
    "c_float: float, c_double: double, c_decimal: 'decimal(10,2)', "
    "c_decimal_text: 'decimal(38,6)', c_boolean: boolean, c_string: string, "
    "c_varchar: varchar(5), c_char: char(4), c_date: date, c_timestamp: timestamp, "
    "c_binary: binary, c_array: array<int>, c_map: 'map<string,int>', "
    "c_struct: 'struct<x:int,y:string>', c_nested: 'array<struct<k:string,v:decimal(5,1)>>', "
    "c_keys: 'map<int,string>', c_deep: 'array<map<date,decimal(4,1)>>'}"
)
ROWS = """\
          rows:
            - [1, 127, -32768, 2147483647, 9007199254740993, 1.5, 2.25, 10.5,
               "123456789012345678901234567890.123456", true, acme, abc, ab, 2024-02-29,
               "2024-02-29 12:34:56.123456", hello, [1, 2], {a: 1}, {x: 1, y: s},
               [{k: a, v: 1.5}], {1: x}, [{2024-01-01: 1.5}]]
            - {id: 2, c_nested: []}"""
SEED = f"""\
data_catalogs:
  - {{name: owner_catalog, parameters: {{catalog-id: "{OWNER}"}}}}
accounts:
  "{OWNER}":
    grants: ["123456789012"]
    databases:
      typed:
        all_hive:
          columns: {COLUMNS}
{ROWS}
        all_iceberg:
          format: iceberg
          columns: {COLUMNS}
{ROWS}"""
FULL: Dict[str, Any] = {
    "id": 1,
    "c_tinyint": 127,
    "c_smallint": -32768,
    "c_int": 2147483647,
    "c_bigint": 9007199254740993,
    "c_float": 1.5,
    "c_double": 2.25,
    "c_decimal": Decimal("10.50"),
    "c_decimal_text": Decimal("123456789012345678901234567890.123456"),
    "c_boolean": True,
    "c_string": "acme",
    "c_varchar": "abc",
    "c_char": "ab  ",  # char(4) holds the value padded, as Hive does
    "c_date": datetime.date(2024, 2, 29),
    "c_timestamp": datetime.datetime(2024, 2, 29, 12, 34, 56, 123456),
    "c_binary": bytearray(b"hello"),
    "c_array": [1, 2],
    "c_map": {"a": 1},
    "c_struct": {"x": 1, "y": "s"},
    "c_nested": [{"k": "a", "v": Decimal("1.5")}],
    "c_keys": {1: "x"},  # map keys of any primitive type, Hive (JSON files) too
    "c_deep": [{datetime.date(2024, 1, 1): Decimal("1.5")}],
}
EMPTY = {name: None for name in FULL}
EMPTY.update(id=2, c_nested=[])  # pyiceberg cannot write a null array<struct> (see validate)
# Athena's result text of the same values (pyathena reads these)
FULL_TEXT = {
    "id": "1",
    "c_tinyint": "127",
    "c_smallint": "-32768",
    "c_int": "2147483647",
    "c_bigint": "9007199254740993",
    "c_float": "1.5",
    "c_double": "2.25",
    "c_decimal": "10.50",
    "c_decimal_text": "123456789012345678901234567890.123456",
    "c_boolean": "true",
    "c_string": "acme",
    "c_varchar": "abc",
    "c_char": "ab  ",
    "c_date": "2024-02-29",
    "c_timestamp": "2024-02-29 12:34:56.123",
    "c_binary": "68 65 6c 6c 6f",
    "c_array": "[1, 2]",
    "c_map": "{a=1}",
    "c_struct": "{x=1, y=s}",
    "c_nested": "[{k=a, v=1.5}]",
    "c_keys": "{1=x}",
    "c_deep": "[{2024-01-01=1.5}]",
}
SPARK_READ = """
import json
prefix = "spark.sql.catalog.owner"
spark.conf.set(prefix, "org.apache.iceberg.spark.SparkCatalog")
spark.conf.set(prefix + ".catalog-impl", "org.apache.iceberg.aws.glue.GlueCatalog")
spark.conf.set(prefix + ".glue.id", "OWNER")
for name in ("`OWNER/typed`.`all_hive`", "owner.typed.all_iceberg"):
    rows = spark.table(name).orderBy("id").collect()
    print(json.dumps({name: repr([r.asDict(recursive=True) for r in rows])}))
""".replace("OWNER", OWNER)


@pytest.fixture(scope="module")
def world(emulator: Emulator, spark_executor, tmp_path_factory) -> Iterator[Emulator]:
    seed = tmp_path_factory.mktemp("typed") / "seed.yml"
    seed.write_text(SEED)
    with seeded_with_spark(emulator, spark_executor, seed):
        yield emulator


@pytest.mark.parametrize("table", ["all_hive", "all_iceberg"])
def test_athena_sql_reads_every_type_back(world, table):
    found = athena_rows(world, f"select * from owner_catalog.typed.{table} order by id")
    empty = {name: None for name in FULL_TEXT}
    empty.update(id="2", c_nested="[]")
    full = dict(FULL_TEXT)
    if table == "all_iceberg":
        # Athena reads an Iceberg timestamp as timestamp(6), a Hive one as timestamp(3)
        full["c_timestamp"] = "2024-02-29 12:34:56.123456"
    assert found == [full, empty]


def test_spark_reads_every_type_back(world, spark_executor):
    ok, out = spark_executor(
        SPARK_READ,
        {
            "spark.hadoop.aws.glue.catalog.separator": "/",
            "spark.sql.extensions": "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        },
    )
    assert ok, out
    found: Dict[str, str] = {}
    for line in out.splitlines():
        found.update(json.loads(line))
    expected = repr([FULL, EMPTY])
    assert found == {f"`{OWNER}/typed`.`all_hive`": expected, "owner.typed.all_iceberg": expected}


def test_glue_holds_the_canonical_types(world):
    glue = world.client("glue")
    hive = glue.get_table(CatalogId=OWNER, DatabaseName="typed", Name="all_hive")["Table"]
    types = {c["Name"]: c["Type"] for c in hive["StorageDescriptor"]["Columns"]}
    assert types["c_int"] == "int" and types["c_decimal"] == "decimal(10,2)"
    assert types["c_nested"] == "array<struct<k:string,v:decimal(5,1)>>"
