"""The doctor in role mode without AWS: role rows (doctor/role_rows.py) and the probe's
rows for reads through a role (doctor/spark_probe.py)."""

from __future__ import annotations

import json

from dbt_athena_cross_account.doctor.role_rows import role_rows, settle
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, Identity, ModelFacts
from dbt_athena_cross_account.doctor.spark_probe import (
    CLASSES_KEY,
    ProbedTable,
    SessionGroup,
    failure,
    group_models,
    table_rows,
)

READER = "arn:aws:iam::999999999999:role/dbt-reader"
EXECUTION = "arn:aws:iam::123456789012:role/Exec"
IDENTITY = Identity(account="123456789012", execution_role=EXECUTION)


def model(uid, roles=None):
    return ModelFacts(uid, True, {}, ("partner_catalog",), roles=roles)


def named(*uids, table_format="iceberg"):
    """The formats each model's source names (what the doctor macro passes)."""
    return tuple((uid, table_format) for uid in uids)


def test_a_table_read_through_a_role_only_is_not_checked_as_your_identity():
    ref = CheckedTable(
        "partner_catalog", "sales", "orders", ("m.a", "m.b"), formats=named("m.a", "m.b")
    )
    models = [model("m.a", {"partner_catalog": READER}), model("m.b", {"Partner_Catalog": READER})]
    rows, only = role_rows([ref], {"partner_catalog": "999999999999"}, models)
    assert only == [ref]
    (row,) = rows[id(ref)]
    assert f"read through the role {READER} by m.a, m.b" in row.reason
    # without the Spark probe the doctor cannot assume the role: not a PASS, and it says
    # what was not checked and how to check it
    assert row.status == "WARN", row
    assert "not checked: without the Spark probe the doctor cannot assume the role" in row.reason
    assert "--args '{spark: true}'" in row.fix


def test_with_the_probe_a_role_row_passes_only_when_the_probe_read_through_the_role():
    ref = CheckedTable("partner_catalog", "sales", "orders", ("m.a",), formats=named("m.a"))
    rows, _ = role_rows(
        [ref], {"partner_catalog": "999999999999"}, [model("m.a", {"partner_catalog": READER})]
    )
    (row,) = rows[id(ref)]
    through = f"partner_catalog.sales.orders through {READER}"
    other = Check("PASS", "spark", "other_catalog.sales.orders", "read")
    for spark_rows, status, says in (
        (
            [Check("PASS", "spark", through, "read")],
            "PASS",
            "the Spark probe read it through the role",
        ),
        (
            [Check("FAIL", "spark", through, "STS refused")],
            "WARN",
            "its spark row below FAILs",
        ),
        ([other], "WARN", "the Spark probe did not read it through the role"),
    ):
        (settled,) = settle([row], spark_rows)
        assert settled.status == status and says in settled.reason, settled
        assert "not checked: without the Spark probe" not in settled.reason
    assert settle([other], []) == [other]


def test_mixed_reads_keep_the_identity_checks_and_bad_roles_fail():
    ref = CheckedTable(
        "partner_catalog", "sales", "orders", ("m.a", "m.b", "m.c"), formats=named("m.a", "m.c")
    )
    models = [
        model("m.a", {"partner_catalog": READER}),
        model("m.b"),
        model("m.c", {"partner_catalog": "arn:aws:iam::999999999999:user/x"}),
    ]
    rows, only = role_rows([ref], {"partner_catalog": "999999999999"}, models)
    assert only == []
    statuses = sorted((r.status, r.reason[:40]) for r in rows[id(ref)])
    assert statuses[0][0] == "FAIL" and "which is not an IAM role ARN" in rows[id(ref)][0].reason
    assert any("and as the execution role by m.b" in r.reason for r in rows[id(ref)])


def test_a_role_read_beside_a_failing_setting_says_the_identity_checks_still_run():
    ref = CheckedTable(
        "partner_catalog", "sales", "orders", ("m.a", "m.c"), formats=named("m.a", "m.c")
    )
    models = [
        model("m.a", {"partner_catalog": READER}),
        model("m.c", {"partner_catalog": "arn:aws:iam::999999999999:user/x"}),
    ]
    rows, only = role_rows([ref], {"partner_catalog": "999999999999"}, models)
    assert only == []  # so the doctor checks the table as your identity
    (passed,) = [r for r in rows[id(ref)] if r.status == "WARN"]
    assert "do not apply" not in passed.reason, passed.reason
    assert "the checks as your identity below run too" in passed.reason
    assert "the role setting of m.c FAILs above" in passed.reason


def test_a_source_under_a_role_must_name_an_iceberg_format_as_the_run_requires():
    models = [model("m.a", {"partner_catalog": READER})]
    owners = {"partner_catalog": "999999999999"}
    for formats, expected in (
        ((), "but the source does not name the table's format"),
        (named("m.a", table_format="HIVE"), "only Iceberg tables can be read through a role"),
        (named("m.a", table_format="delta"), "spark_table_format"),
    ):
        ref = CheckedTable("partner_catalog", "sales", "orders", ("m.a",), formats=formats)
        rows, only = role_rows([ref], owners, models)
        (row,) = rows[id(ref)]
        assert row.status == "FAIL" and expected in row.reason, row.reason
        assert "model 'm.a' reads the table partner_catalog.sales.orders" in row.reason or (
            "spark_table_format" in row.reason
        )
        assert only == []


def test_a_refused_assume_role_prints_the_trust_policy_to_add():
    role = {"role_arn": READER, "account": "999999999999", "external_id": "partner-42"}
    table = ProbedTable("partner_catalog.sales.orders", "k", "999999999999", "sales", role)
    error = (
        "dbt_athena_cross_account: source('p', 'orders') could not be read: STS refused to let "
        "the work group's execution role assume the role ... Run `dbt run-operation x`.\n"
        "Spark: software.amazon.awssdk.services.sts.model.StsException: User: u is not "
        "authorized to perform: sts:AssumeRole on resource: " + READER
    )
    reason, fix = failure(error, table, IDENTITY, "eu-west-1")
    assert reason.startswith(
        f"Spark, through the role {READER}, assumed by the execution role {EXECUTION}: "
    )
    policy = json.loads(fix.split(":\n", 1)[1])
    assert policy["Statement"][0]["Principal"] == {"AWS": EXECUTION}
    assert policy["Statement"][0]["Condition"] == {"StringEquals": {"sts:ExternalId": "partner-42"}}
    # every cause STS answers alike, and the condition is kept, never removed
    for cause in (
        f"the role {READER} exists in account 999999999999 (a typo in the ARN is refused alike)",
        f"your execution role's IAM policy allows sts:AssumeRole on {READER}",
        "the external id 'partner-42' that the model sends",
        "with its sts:ExternalId condition: never remove the condition",
    ):
        assert cause in fix, fix


def test_a_refused_role_without_an_external_id_says_to_set_it_not_to_drop_the_condition():
    role = {"role_arn": READER, "account": "999999999999", "external_id": None}
    table = ProbedTable(
        f"partner_catalog.sales.orders through {READER}", "k", "999999999999", "sales", role
    )
    error = "x. Spark: User: u is not authorized to perform: sts:AssumeRole on resource: " + READER
    _, fix = failure(error, table, IDENTITY, "eu-west-1")
    assert (
        "the model sends no external id: if the trust policy has an sts:ExternalId condition, "
        "keep it and set that external id in spark_cross_account_roles ({partner_catalog: "
        "{role_arn: ..., external_id: ...}})"
    ) in fix, fix
    assert "not checked" not in fix


def test_each_role_is_probed_on_its_own_and_the_classes_get_rows():
    entry = {"account": "999999999999", "role": {"role_arn": READER, "external_id": None}}
    other = {"account": "999999999999", "role": {"role_arn": READER + "2", "external_id": None}}
    read = {"keys": ["k"], "catalog": "partner_catalog", "schema": "sales", "table": "orders"}
    groups = group_models(
        [
            {"unique_id": "m.a", "engine_config": {}, "reads": [read], "plan": {"k": entry}},
            {"unique_id": "m.b", "engine_config": {}, "reads": [read], "plan": {"k": other}},
        ]
    )
    (group,) = groups
    assert sorted(group.plan) == [f"k through {READER}", f"k through {READER}2"]
    results = {
        f"k through {READER}": {"ok": True, "format": "iceberg", "columns": 1, "rows": 1},
        f"k through {READER}2": {"ok": False, "error": "boom"},
        CLASSES_KEY: {"classes": {"a.B": None, "c.D": "ClassNotFoundException: c.D"}},
    }
    rows = table_rows(group, results, IDENTITY, "eu-west-1")
    assert [(r.status, r.subject) for r in rows] == [
        ("PASS", f"partner_catalog.sales.orders through {READER}"),
        ("FAIL", f"partner_catalog.sales.orders through {READER}2"),
        ("PASS", "a.B"),
        ("FAIL", "c.D"),
    ]
    assert isinstance(group, SessionGroup)
