"""The owner catalog's encryption in ``dbt run-operation cross_account_doctor``, through the
real dbt CLI on the emulator: Athena documents that a Glue catalog encrypted with the AWS
managed key (aws/glue) cannot be queried from another account, so the metadata row FAILs
with the fix (a customer managed key); a customer managed key or no encryption PASSes; and
settings the doctor may not read are said in the reason, the row keeping its status."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Dict, Iterator

import pytest
import yaml

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.core.constants import EXECUTION_ROLE_ARN, REGION
from athena_spark_emulator.profile import profiles_yml
from tests.emulator.doctor_project import fix_of, line, write_project_files

pytestmark = pytest.mark.dbt

PROJECT = "doctor_catalog_key"
CMK = f"arn:aws:kms:{REGION}:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"
# owner account -> (catalog name, its catalog_encryption in the seed, or None: not set)
OWNERS = {
    "111111111111": ("cmk_catalog", {"mode": "SSE-KMS", "key": CMK}),
    "222222222222": ("alias_catalog", {"mode": "SSE-KMS", "key": "alias/aws/glue"}),
    "333333333333": (
        "aliasarn_catalog",
        {"mode": "SSE-KMS", "key": f"arn:aws:kms:{REGION}:333333333333:alias/aws/glue"},
    ),
    "444444444444": ("nokey_catalog", {"mode": "SSE-KMS"}),  # Glue uses aws/glue
    "555555555555": ("plain_catalog", {"mode": "DISABLED"}),
    "666666666666": ("unset_catalog", None),  # never set: Glue answers DISABLED
    "777777777777": ("guarded_catalog", {"mode": "SSE-KMS", "key": CMK}),  # no grant
}
UNGRANTED = "777777777777"


def seed() -> Dict[str, object]:
    accounts: Dict[str, object] = {}
    for owner, (_, encryption) in OWNERS.items():
        spec: Dict[str, object] = {
            "databases": {"sales": {"orders": {"columns": {"order_id": "int"}, "rows": [[1], [2]]}}}
        }
        if owner != UNGRANTED:
            spec["grants"] = [LOCAL_ACCOUNT]
        if encryption is not None:
            spec["catalog_encryption"] = encryption
        accounts[owner] = spec
    catalogs = [
        {"name": name, "type": "GLUE", "parameters": {"catalog-id": owner}}
        for owner, (name, _) in OWNERS.items()
    ]
    return {"data_catalogs": catalogs, "accounts": accounts}


def write_project(root: Path) -> Path:
    project = root / PROJECT
    (project / "models").mkdir(parents=True)
    write_project_files(project, PROJECT, {"+spark_cross_account_catalog": True})
    sources = [
        {"name": name, "database": name, "schema": "sales", "tables": [{"name": "orders"}]}
        for name, _ in OWNERS.values()
    ]
    (project / "models" / "sources.yml").write_text(
        yaml.safe_dump({"version": 2, "sources": sources}, sort_keys=False)
    )
    for name, _ in OWNERS.values():
        (project / "models" / f"{name}_orders.py").write_text(
            textwrap.dedent(
                f"""
                def model(dbt, spark):
                    dbt.config(materialized="table")
                    return dbt.source("{name}", "orders")
                """
            )
        )
    (project / "profiles.yml").write_text(profiles_yml(PROJECT))
    return project


@pytest.fixture(scope="module")
def world(emulator: Emulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(emulator, "glue_owner_routing", True)  # CatalogId -> the owner, with grants
        emulator.seed(seed())
        project = write_project(tmp_path_factory.mktemp("doctor-catalog-key"))
        deps = emulator.dbt(["deps"], project)
        assert deps.returncode == 0, deps.stdout + deps.stderr
        yield emulator, project


@pytest.fixture(scope="module")
def doctor_run(world) -> Dict[str, object]:
    """The doctor over every owner: its report and the settings calls the emulator saw."""
    emulator, project = world
    emulator.reset_counters()
    done = emulator.dbt(["run-operation", "cross_account_doctor"], project)
    return {
        "code": done.returncode,
        "out": done.stdout + done.stderr,
        "calls": emulator.calls["GetDataCatalogEncryptionSettings"],
    }


@pytest.fixture(scope="module")
def report(doctor_run) -> str:
    return str(doctor_run["out"])


def test_the_settings_are_read_once_per_owner(doctor_run):
    # one call per owner account (each has one table here; test_parallel has many per
    # owner); the ungranted owner's is asked too, and refused
    assert doctor_run["calls"] == len(OWNERS), doctor_run["out"]


def test_a_customer_managed_key_passes_and_names_the_key(report):
    reason = line(report, "PASS", "metadata", "cmk_catalog.sales.orders")
    assert reason.startswith("glue:GetDatabase and glue:GetTable work with CatalogId=111111111111")
    assert f"the owner's catalog is encrypted with {CMK}" in reason
    assert "kms:Decrypt on it is needed for" in reason and EXECUTION_ROLE_ARN in reason


@pytest.mark.parametrize("catalog", ["plain_catalog", "unset_catalog"])
def test_no_encryption_passes(report, catalog):
    reason = line(report, "PASS", "metadata", f"{catalog}.sales.orders")
    assert reason.endswith("the owner's catalog is not encrypted at rest"), reason


@pytest.mark.parametrize(
    ("owner", "setting"),
    [
        ("222222222222", "SSE-KMS, SseAwsKmsKeyId alias/aws/glue"),
        (
            "333333333333",
            f"SSE-KMS, SseAwsKmsKeyId arn:aws:kms:{REGION}:333333333333:alias/aws/glue",
        ),
        ("444444444444", "SSE-KMS, no SseAwsKmsKeyId"),
    ],
)
def test_the_aws_managed_key_fails_naming_the_owner_and_the_fix(report, owner, setting):
    subject = f"{OWNERS[owner][0]}.sales.orders"
    reason = line(report, "FAIL", "metadata", subject)
    assert reason == (
        f"the Glue catalog of account {owner} is encrypted at rest with the AWS managed key "
        f"aws/glue ({setting}), and a catalog encrypted with an AWS managed key cannot be read "
        "from another account"
    )
    fix = fix_of(report, "metadata", subject)
    settings = (
        '\'{"EncryptionAtRest":{"CatalogEncryptionMode":"SSE-KMS",'
        '"SseAwsKmsKeyId":"<customer managed key ARN>"}}\''
    )
    assert (
        f"aws glue put-data-catalog-encryption-settings --catalog-id {owner} --region {REGION} "
        f"--data-catalog-encryption-settings {settings}"
    ) in fix, fix
    dbt_role = re.search(r"checked as (\S+)", report).group(1)
    roles = f"{dbt_role}, {EXECUTION_ROLE_ARN}"
    assert f"the key policy must allow kms:Decrypt for {roles}" in fix, fix
    assert f"2) consumer account {LOCAL_ACCOUNT}: attach to {roles}:" in fix, fix
    assert '"Action": "kms:Decrypt"' in fix and '"Resource": "<customer managed key ARN>"' in fix
    # the data and format rows are judged as before: S3 still serves the files
    line(report, "PASS", "data", subject)


def test_an_owner_that_grants_nothing_keeps_its_fail_and_names_the_permission(report):
    reason = line(report, "FAIL", "metadata", "guarded_catalog.sales.orders")
    assert reason.startswith(
        "glue:GetDatabase on database 'sales' in account 777777777777 was denied"
    )
    assert (
        "; the owner's catalog encryption settings could not be read (AccessDeniedException: "
    ) in reason
    assert reason.endswith(
        "to check them, allow glue:GetDataCatalogEncryptionSettings on "
        f"arn:aws:glue:{REGION}:777777777777:catalog in the owner's Glue resource policy and "
        "your IAM policy"
    ), reason


def test_settings_the_doctor_may_not_read_keep_the_row_a_pass(world):
    """The owner's Glue policy allows GetDatabase/GetTable but not the settings call."""
    emulator, project = world
    emulator.inject_error(
        "GetDataCatalogEncryptionSettings",
        "AccessDeniedException",
        "User is not authorized to perform: glue:GetDataCatalogEncryptionSettings",
    )
    try:
        done = emulator.dbt(
            [
                "run-operation",
                "cross_account_doctor",
                "--args",
                "{tables: [alias_catalog.sales.orders]}",
            ],
            project,
        )
    finally:
        emulator.clear_faults()
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    reason = line(out, "PASS", "metadata", "alias_catalog.sales.orders")
    assert reason == (
        "glue:GetDatabase and glue:GetTable work with CatalogId=222222222222; the owner's "
        "catalog encryption settings could not be read (AccessDeniedException: User is not "
        "authorized to perform: glue:GetDataCatalogEncryptionSettings): to check them, allow "
        f"glue:GetDataCatalogEncryptionSettings on arn:aws:glue:{REGION}:222222222222:catalog "
        "in the owner's Glue resource policy and your IAM policy"
    ), out
    assert re.search(r"^\d+ PASS, 0 WARN, 0 FAIL$", out, re.M), out
