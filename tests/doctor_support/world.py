"""Build ``tests/fixtures/doctor_world.yml`` in a served emulator: the data catalogs and
the owner's grant through its seed (:func:`seed`), the rest through the AWS APIs
(:func:`build`), the owner's Glue with ``CatalogId=<owner>`` (the emulator routes it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List

import yaml

WORLD_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "doctor_world.yml"
WORLD: Dict[str, Any] = yaml.safe_load(WORLD_FILE.read_text(encoding="utf-8"))
REGION: str = WORLD["region"]
OWNER_ACCOUNT: str = WORLD["owner_account"]
EXECUTION_ROLE: str = WORLD["execution_role"]
KMS_KEY: str = WORLD["kms_key"]
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"

Client = Callable[[str], Any]


def create_users(client: Client, users: Dict[str, Any]) -> Dict[str, Dict[str, str]]:
    """IAM users with their inline policy; returns their access keys."""
    iam = client("iam")
    keys = {}
    for name, statements in users.items():
        iam.create_user(UserName=name)
        if statements is not None:
            policy = {"Version": "2012-10-17", "Statement": statements}
            iam.put_user_policy(UserName=name, PolicyName="p", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=name)["AccessKey"]
        keys[name] = {
            "aws_access_key_id": key["AccessKeyId"],
            "aws_secret_access_key": key["SecretAccessKey"],
        }
    return keys


def seed(world: Dict[str, Any] = WORLD) -> Dict[str, Any]:
    """The emulator seed for ``world``: its data catalogs, and the owner's Glue granted to
    the local account (its resource policy)."""
    return {
        "data_catalogs": world.get("data_catalogs") or [],
        "accounts": {world["owner_account"]: {"grants": [world["local_account"]]}},
    }


def create_athena(client: Client, world: Dict[str, Any]) -> None:
    athena = client("athena")
    existing = {w["Name"] for w in athena.list_work_groups()["WorkGroups"]}
    for name, configuration in (world.get("work_groups") or {}).items():
        if name in existing:  # the emulator's own (spark_wg): the world must agree with it
            got = athena.get_work_group(WorkGroup=name)["WorkGroup"]["Configuration"]
            assert got.get("ExecutionRole") == (configuration or {}).get("ExecutionRole"), got
            continue
        engine = {"EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"}}
        athena.create_work_group(Name=name, Configuration={**engine, **(configuration or {})})


def create_buckets(client: Client, world: Dict[str, Any]) -> None:
    s3 = client("s3")
    existing = {b["Name"] for b in s3.list_buckets().get("Buckets", [])}  # the emulator's
    for bucket, spec in (world.get("buckets") or {}).items():
        spec = spec or {}
        if bucket not in existing:
            s3.create_bucket(
                Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION}
            )
        for key, body in (spec.get("objects") or {}).items():
            data = body if isinstance(body, bytes) else str(body or "").encode()
            s3.put_object(Bucket=bucket, Key=key, Body=data)
        markers = spec.get("folder_markers") or {}
        for i in range(1, int(markers.get("count", 0)) + 1):
            s3.put_object(Bucket=bucket, Key=f"{markers['prefix']}{i:02d}/", Body=b"")
        if spec.get("encryption") == "kms":
            default = {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": world["kms_key"]}
            s3.put_bucket_encryption(
                Bucket=bucket,
                ServerSideEncryptionConfiguration={
                    "Rules": [{"ApplyServerSideEncryptionByDefault": default}]
                },
            )


def _table_input(name: str, spec: Dict[str, Any]) -> Dict[str, Any]:
    storage: Dict[str, Any] = {
        "Columns": [{"Name": "order_id", "Type": "bigint"}],
        "SerdeInfo": {"SerializationLibrary": PARQUET_SERDE},
    }
    if spec.get("location"):
        storage["Location"] = spec["location"]
    table = {
        "Name": name,
        "TableType": spec.get("type", "EXTERNAL_TABLE"),
        "Parameters": spec.get("parameters") or {},
        "StorageDescriptor": storage,
    }
    if "partitions" in spec:
        keys = {p.split("=", 1)[0] for p in spec["partitions"] or {}} or {"dt"}
        table["PartitionKeys"] = [{"Name": k, "Type": "string"} for k in sorted(keys)]
    return table


def _partition_input(value: str, location: str) -> Dict[str, Any]:
    storage = {"Location": location, "SerdeInfo": {"SerializationLibrary": PARQUET_SERDE}}
    return {"Values": [value.split("=", 1)[1]], "StorageDescriptor": storage}


def create_glue(client: Client, world: Dict[str, Any]) -> None:
    glue, owner = client("glue"), world["owner_account"]
    for database, tables in (world.get("glue") or {}).items():
        glue.create_database(CatalogId=owner, DatabaseInput={"Name": database})
        for name, spec in (tables or {}).items():
            glue.create_table(
                CatalogId=owner, DatabaseName=database, TableInput=_table_input(name, spec or {})
            )
            for value, location in ((spec or {}).get("partitions") or {}).items():
                glue.create_partition(
                    CatalogId=owner,
                    DatabaseName=database,
                    TableName=name,
                    PartitionInput=_partition_input(value, location),
                )


def scale_tables(world: Dict[str, Any] = WORLD) -> List[str]:
    """``partner_catalog.scale_DD.t_TT`` for every table of the world's ``scale`` section."""
    scale = world.get("scale") or {}
    return [
        f"partner_catalog.scale_{d:02d}.t_{t:02d}"
        for d in range(scale.get("databases", 0))
        for t in range(scale.get("tables_per_database", 0))
    ]


def create_scale(client: Client, world: Dict[str, Any]) -> None:
    """The ``scale`` section: many one-file tables over a few databases and buckets."""
    scale = world.get("scale") or {}
    buckets = scale.get("buckets") or []
    glue, s3, owner = client("glue"), client("s3"), world["owner_account"]
    for bucket in buckets:
        s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION})
    for i, name in enumerate(scale_tables(world)):
        _, database, table = name.split(".")
        if table == "t_00":
            glue.create_database(CatalogId=owner, DatabaseInput={"Name": database})
        bucket = buckets[i % len(buckets)]
        location = f"s3://{bucket}/{database}/{table}/"
        s3.put_object(Bucket=bucket, Key=f"{database}/{table}/part-0.parquet", Body=b"PAR1")
        glue.create_table(
            CatalogId=owner,
            DatabaseName=database,
            TableInput=_table_input(table, {"location": location}),
        )


def fault_rules(world: Dict[str, Any], keys: Dict[str, Dict[str, str]]) -> List[Dict[str, Any]]:
    """The world's faults, with ``user`` turned into the access key the emulator sees."""
    rules = []
    for fault in world.get("faults") or []:
        rule = {k: v for k, v in fault.items() if k != "user"}
        if "user" in fault:
            rule["access_key"] = keys[fault["user"]]["aws_access_key_id"]
        rules.append(rule)
    return rules


def build(client: Client, world: Dict[str, Any] = WORLD) -> Dict[str, Dict[str, str]]:
    """Create everything in ``world``; returns the IAM users' access keys."""
    keys = create_users(client, world.get("users") or {})
    create_athena(client, world)
    create_buckets(client, world)
    create_glue(client, world)
    create_scale(client, world)
    return keys
