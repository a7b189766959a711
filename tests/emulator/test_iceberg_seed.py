"""Seeding real Iceberg tables in any account (instant executor: no Spark). The Glue entry,
the S3 objects and the rows are checked through the AWS APIs and a real Iceberg reader, as
a client on AWS would see them."""

from __future__ import annotations

import json

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.seed import SeedError
from tests.stack import prepare_base

OWNER_A = "444444444444"
OWNER_B = "555555555555"


def orders(rows, **extra):
    return {
        "format": "iceberg",
        "columns": {"order_id": "int", "amount": "double"},
        "rows": rows,
        **extra,
    }


@pytest.fixture
def emu(emulator: Emulator) -> Emulator:
    prepare_base(emulator)
    emulator.seed(
        {
            "accounts": {
                OWNER_A: {
                    "grants": [LOCAL_ACCOUNT],
                    "databases": {"ice": {"orders": orders([[401, 1.5], [402, None]])}},
                },
                OWNER_B: {"databases": {"ice": {"orders": orders([[501, 2.0]])}}},
                LOCAL_ACCOUNT: {"databases": {"ice": {"orders": orders([[1, 9.0]])}}},
            }
        }
    )
    return emulator


def glue_table(emu: Emulator, account: str, database: str = "ice", table: str = "orders") -> dict:
    from moto.glue.models import glue_backends

    return glue_backends[account]["eu-west-1"].databases[database].tables[table].as_dict()


def iceberg_rows(emu: Emulator, account: str) -> list:
    from athena_spark_emulator.accounts import iceberg

    table = iceberg.load_table(emu.endpoint_url, account, "ice", "orders", as_account=account)
    return sorted(table.scan().to_arrow().to_pylist(), key=lambda r: r["order_id"])


def test_glue_holds_what_icebergs_glue_catalog_registers_in_the_owner_account(emu):
    table = glue_table(emu, OWNER_A)
    params = table["Parameters"]
    assert params["table_type"] == "ICEBERG"
    metadata = params["metadata_location"]
    location = f"s3://emulator-{OWNER_A}-eu-west-1/iceberg/ice/orders"
    assert metadata.startswith(f"{location}/metadata/") and metadata.endswith(".metadata.json")
    storage = table["StorageDescriptor"]
    assert storage["Location"] == location
    assert [c["Name"] for c in storage["Columns"]] == ["order_id", "amount"]
    assert "InputFormat" not in storage and "SerdeInfo" not in storage  # no Hive storage
    # the metadata file is in the owner's bucket, readable through S3
    bucket, key = metadata[len("s3://") :].split("/", 1)
    body = json.loads(emu.client("s3").get_object(Bucket=bucket, Key=key)["Body"].read())
    assert body["location"] == location and body["format-version"] in (1, 2)


def test_the_same_table_in_three_accounts_holds_each_accounts_rows(emu):
    assert iceberg_rows(emu, OWNER_A) == [
        {"order_id": 401, "amount": 1.5},
        {"order_id": 402, "amount": None},
    ]
    assert iceberg_rows(emu, OWNER_B) == [{"order_id": 501, "amount": 2.0}]
    assert iceberg_rows(emu, LOCAL_ACCOUNT) == [{"order_id": 1, "amount": 9.0}]


def test_a_glue_read_with_the_owners_catalog_id_needs_its_grant(emu, monkeypatch):
    monkeypatch.setattr(emu, "glue_owner_routing", True)
    glue = emu.client("glue")
    found = glue.get_table(CatalogId=OWNER_A, DatabaseName="ice", Name="orders")["Table"]
    assert found["Parameters"]["table_type"] == "ICEBERG"
    with pytest.raises(glue.exceptions.AccessDeniedException):
        glue.get_table(CatalogId=OWNER_B, DatabaseName="ice", Name="orders")


def test_reseeding_switches_a_table_between_hive_and_iceberg(emu):
    hive = {"columns": {"order_id": "int"}, "rows": [[7]]}
    emu.seed({"accounts": {OWNER_B: {"databases": {"ice": {"orders": hive}}}}})
    assert "table_type" not in glue_table(emu, OWNER_B)["Parameters"]
    emu.seed({"accounts": {OWNER_B: {"databases": {"ice": {"orders": orders([[503, 1.0]])}}}}})
    assert glue_table(emu, OWNER_B)["Parameters"]["table_type"] == "ICEBERG"
    assert iceberg_rows(emu, OWNER_B) == [{"order_id": 503, "amount": 1.0}]


def test_the_seed_schema_names_the_formats(emulator):
    bad = {
        "accounts": {
            OWNER_A: {"databases": {"ice": {"t": {"columns": {"a": "int"}, "format": "delta"}}}}
        }
    }
    with pytest.raises(SeedError) as info:
        emulator.seed(bad)
    assert "accounts.444444444444.databases.ice.t.format" in str(info.value)
    assert "'hive', 'iceberg'" in str(info.value)


TYPED = {"id": "int", "amount": "decimal(10,2)", "placed": "timestamp", "day": "date"}


@pytest.fixture
def bare(emulator: Emulator) -> Emulator:
    """The emulator without the three seeded tables (cheaper)."""
    prepare_base(emulator)
    return emulator


def test_a_json_seed_types_decimals_and_timestamps_of_an_iceberg_table(bare, tmp_path):
    """Fractional decimals and timestamp strings (a JSON seed) are typed, not a
    pyarrow traceback."""
    import datetime
    from decimal import Decimal

    from athena_spark_emulator.accounts import iceberg

    rows = [[1, 10.25, "2024-02-29 12:34:56.5", "2024-02-29"], {"id": 2, "amount": "0.10"}]
    table = {"format": "iceberg", "columns": TYPED, "rows": rows}
    seed = tmp_path / "seed.json"
    seed.write_text(json.dumps({"accounts": {OWNER_B: {"databases": {"ice": {"typed": table}}}}}))
    bare.seed(seed)
    loaded = iceberg.load_table(bare.endpoint_url, OWNER_B, "ice", "typed", as_account=OWNER_B)
    assert sorted(loaded.scan().to_arrow().to_pylist(), key=lambda r: r["id"]) == [
        {
            "id": 1,
            "amount": Decimal("10.25"),
            "placed": datetime.datetime(2024, 2, 29, 12, 34, 56, 500000),
            "day": datetime.date(2024, 2, 29),
        },
        {"id": 2, "amount": Decimal("0.10"), "placed": None, "day": None},
    ]
    assert [
        c["Type"] for c in glue_table(bare, OWNER_B, table="typed")["StorageDescriptor"]["Columns"]
    ] == ["int", "decimal(10,2)", "timestamp", "date"]


def test_the_python_api_checks_values_too(bare):
    bad = {"format": "iceberg", "columns": TYPED, "rows": [[1, 123456789.5, None, None]]}
    with pytest.raises(SeedError) as info:
        bare.seed({"accounts": {OWNER_B: {"databases": {"ice": {"bad": bad}}}}})
    assert str(info.value) == (
        f"seed: accounts.{OWNER_B}.databases.ice.bad.rows.0.amount: 123456789.5 does not fit "
        "decimal(10,2): 9 digit(s) before the point and 1 after, decimal(10,2) holds 8 and 2: "
        "round or shorten the value, or make the column decimal(11,2)"
    )
    with pytest.raises(ValueError) as direct:
        bare.catalog.create_table(OWNER_B, "ice", "bad", TYPED, [[1, None, "noon", None]])
    assert str(direct.value) == (
        f'ice.bad (account {OWNER_B}) rows.0.placed: "noon" does not fit timestamp: a string; '
        'write "YYYY-MM-DD HH:MM:SS[.ffffff]", without a time zone'
    )
