"""cross_account_doctor's checks against a real moto HTTP server with IAM enforcement.

The server runs in its own process (tests/doctor_support.py): AccessDenied for Athena, S3
(per bucket and key) and Glue (identity side) comes from moto's policy evaluation; the
owner-side Glue refusal and throttling come from its fault rules.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

import pytest

from dbt_athena_cross_account import doctor
from dbt_athena_cross_account.doctor import FAIL, PASS, WARN, Check, ModelFacts
from tests.doctor_support import EXECUTION_ROLE, KMS_KEY, OWNER_ACCOUNT, REGION, DoctorAws

CALLER = "arn:aws:iam::123456789012:user/dbt"


@pytest.fixture(scope="module")
def aws(tmp_path_factory: pytest.TempPathFactory):
    server = DoctorAws(tmp_path_factory.mktemp("doctor-aws")).start()
    yield server
    server.stop()


def run(
    aws: DoctorAws,
    user: str = "dbt",
    catalogs: Tuple[str, ...] = (),
    tables: Tuple[str, ...] = (),
    work_group: Optional[str] = "spark_wg",
    **kwargs: Any,
) -> Tuple[doctor.Identity, List[Check]]:
    clients = {name: aws.client(name, user) for name in ("athena", "glue", "s3", "sts")}
    return doctor.run_doctor(
        region=REGION, catalogs=catalogs, tables=tables, work_group=work_group, **clients, **kwargs
    )


def only(rows: List[Check], check: str, subject: str) -> Check:
    found = [r for r in rows if r.check == check and r.subject == subject]
    assert len(found) == 1, rows
    return found[0]


def json_blocks(text: str) -> List[Dict[str, Any]]:
    """The policy documents printed in a fix, parsed."""
    blocks, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                blocks.append(json.loads(text[start : i + 1]))
    return blocks


# ---- 1. registration ------------------------------------------------------------------
def test_registration_passes_for_glue_catalog_with_account_id(aws):
    _, rows = run(aws, catalogs=("partner_catalog",))
    row = only(rows, "registration", "partner_catalog")
    assert row.status == PASS and OWNER_ACCOUNT in row.reason


def test_registration_matches_case_insensitively(aws):
    _, rows = run(aws, catalogs=("Partner_Catalog",))
    assert only(rows, "registration", "Partner_Catalog").status == PASS


def test_unregistered_catalog_fails_with_create_data_catalog_line(aws):
    _, rows = run(aws, tables=("missing_catalog.sales.orders",))
    row = only(rows, "registration", "missing_catalog")
    assert row.status == FAIL
    assert "not registered" in row.reason and "1 table check(s) skipped" in row.reason
    assert (
        "aws athena create-data-catalog --region eu-west-1 --name missing_catalog --type GLUE "
        "--parameters catalog-id=<12-digit owner account id>" in row.fix
    )
    # nothing is looked up in Glue or S3 for a catalog that does not resolve
    assert [r.check for r in rows if r.subject.startswith("missing_catalog.")] == []


def test_non_glue_catalog_fails(aws):
    _, rows = run(aws, catalogs=("lambda_catalog",))
    row = only(rows, "registration", "lambda_catalog")
    assert row.status == FAIL and "LAMBDA" in row.reason and "create-data-catalog" in row.fix


def test_malformed_catalog_id_fails_with_update_line(aws):
    _, rows = run(aws, catalogs=("s3tables_catalog",))
    row = only(rows, "registration", "s3tables_catalog")
    assert row.status == FAIL and "s3tablescatalog/tables-bucket" in row.reason
    assert "aws athena update-data-catalog --region eu-west-1 --name s3tables_catalog" in row.fix


def test_get_data_catalog_denied_fails_naming_the_action(aws):
    _, rows = run(aws, user="dbt_none", catalogs=("partner_catalog",))
    row = only(rows, "registration", "partner_catalog")
    assert row.status == FAIL and "athena:GetDataCatalog was denied" in row.reason
    assert "grant athena:GetDataCatalog" in row.fix and "datacatalog/partner_catalog" in row.fix


def test_throttled_registration_fails_with_retry_advice(aws):
    _, rows = run(aws, catalogs=("throttled_catalog",))
    row = only(rows, "registration", "throttled_catalog")
    assert row.status == FAIL and "ThrottlingException" in row.reason and "num_retries" in row.fix


# ---- 2. Glue metadata -----------------------------------------------------------------
def test_metadata_passes_with_owner_catalog_id(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.orders",))
    row = only(rows, "metadata", "partner_catalog.sales.orders")
    assert row.status == PASS and f"CatalogId={OWNER_ACCOUNT}" in row.reason
    assert "GetDatabase" in aws.actions() and "GetTable" in aws.actions()


def test_owner_side_denial_prints_both_filled_in_policies(aws):
    _, rows = run(aws, tables=("partner_catalog.hr.salaries",))
    row = only(rows, "metadata", "partner_catalog.hr.salaries")
    assert row.status == FAIL
    assert "glue:GetDatabase on database 'hr' in account 999999999999 was denied" in row.reason
    owner_policy, consumer_policy = json_blocks(row.fix)
    statement = owner_policy["Statement"][0]
    assert statement["Principal"]["AWS"] == [CALLER, EXECUTION_ROLE]
    expected = [
        f"arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:catalog",
        f"arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:database/hr",
        f"arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:table/hr/*",
    ]
    assert statement["Resource"] == expected
    assert {"glue:GetDatabase", "glue:GetTable"} <= set(statement["Action"])
    assert consumer_policy["Statement"][0]["Resource"] == expected
    assert "Principal" not in consumer_policy["Statement"][0]
    assert "owner account 999999999999" in row.fix and "consumer account 123456789012" in row.fix
    assert "aws glue put-resource-policy --region eu-west-1" in row.fix
    # no format or data rows for a table whose metadata cannot be read
    assert {r.check for r in rows if r.subject == "partner_catalog.hr.salaries"} == {"metadata"}


def test_identity_side_glue_denial_fails_with_policies(aws):
    _, rows = run(aws, user="dbt_noglue", tables=("partner_catalog.sales.orders",))
    row = only(rows, "metadata", "partner_catalog.sales.orders")
    assert row.status == FAIL and "was denied" in row.reason and "dbt_noglue" in row.reason
    owner_policy, _ = json_blocks(row.fix)
    assert owner_policy["Statement"][0]["Principal"]["AWS"][0].endswith("user/dbt_noglue")


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("partner_catalog.sales.nope", "table 'sales.nope' does not exist"),
        ("partner_catalog.nodb.orders", "database 'nodb' does not exist"),
    ],
)
def test_missing_database_or_table_fails(aws, table, expected):
    _, rows = run(aws, tables=(table,))
    row = only(rows, "metadata", table)
    assert row.status == FAIL and expected in row.reason and "--catalog-id 999999999999" in row.fix


# ---- 3. table format ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("table", "status", "words"),
    [
        ("orders", PASS, "Hive table (parquet)"),
        ("iceberg_orders", WARN, "Hive Glue client"),
        ("governed_orders", WARN, "no Lake Formation support"),
        ("orders_view", WARN, "view"),
    ],
)
def test_table_format(aws, table, status, words):
    name = f"partner_catalog.sales.{table}"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "format", name)
    assert row.status == status and words in row.reason
    if status == WARN:
        assert row.fix


def test_delta_table_warns(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.delta_orders",))
    row = only(rows, "format", "partner_catalog.sales.delta_orders")
    assert row.status == WARN and "Delta table" in row.reason and row.fix


def test_other_errors_fail_each_check_with_the_aws_error(aws):
    _, rows = run(
        aws,
        catalogs=("broken_catalog",),
        tables=("partner_catalog.sales.flaky_orders", "partner_catalog.sales.broken_orders"),
    )
    registration = only(rows, "registration", "broken_catalog")
    assert registration.status == FAIL and "InternalServerException" in registration.reason
    metadata = only(rows, "metadata", "partner_catalog.sales.flaky_orders")
    assert metadata.status == FAIL and "glue:GetTable" in metadata.reason
    assert "InternalServiceException" in metadata.reason and "retry" in metadata.fix
    data = only(rows, "data", "partner_catalog.sales.broken_orders")
    assert data.status == FAIL and "InternalError" in data.reason and "retry" in data.fix


def test_view_gets_no_data_check(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.orders_view",))
    assert [r for r in rows if r.check == "data"] == []


def test_lake_formation_flag_from_get_table_is_flagged():
    # moto cannot set IsRegisteredWithLakeFormation; real GetTable answers carry it.
    ref = doctor.TableRef("c", "s", "t")
    row = doctor.check_format(ref, {"IsRegisteredWithLakeFormation": True, "Parameters": {}})
    assert row.status == WARN and "Lake Formation" in row.reason
    assert doctor.check_format(ref, {"IsRegisteredWithLakeFormation": False}).status == PASS


# ---- 4. S3 data -----------------------------------------------------------------------
def test_data_passes_when_listing_and_reading_work(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.orders",))
    row = only(rows, "data", "partner_catalog.sales.orders")
    assert row.status == PASS and "s3://partner-data/sales/orders/" in row.reason
    assert "GetObject" in aws.actions() and "ListObjectsV2" in aws.actions()


def test_listing_denied_names_bucket_and_bucket_policy(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.locked_orders",))
    assert only(rows, "metadata", "partner_catalog.sales.locked_orders").status == PASS
    row = only(rows, "data", "partner_catalog.sales.locked_orders")
    assert (
        row.status == FAIL and "listing s3://partner-locked/sales/orders/ was denied" in row.reason
    )
    assert "bucket 'partner-locked'" in row.reason and "bucket policy" in row.reason
    # its encryption is unreadable too, so KMS is mentioned as a possibility
    assert "default encryption could not be read" in row.reason and "SSE-KMS" in row.reason
    bucket_policy, consumer = json_blocks(row.fix)
    assert bucket_policy["Statement"][0]["Resource"] == "arn:aws:s3:::partner-locked"
    assert bucket_policy["Statement"][0]["Principal"]["AWS"] == [CALLER, EXECUTION_ROLE]
    assert consumer["Statement"][1] == {
        "Effect": "Allow",
        "Action": "s3:GetObject",
        "Resource": "arn:aws:s3:::partner-locked/sales/orders/*",
    }
    assert "aws s3api get-bucket-policy --bucket partner-locked" in row.fix


def test_read_denied_on_sse_kms_bucket_names_the_key(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.kms_orders",))
    row = only(rows, "data", "partner_catalog.sales.kms_orders")
    assert (
        row.status == FAIL and "reading s3://partner-kms/sales/orders/part-0.parquet" in row.reason
    )
    assert f"the bucket uses SSE-KMS ({KMS_KEY}), so kms:Decrypt is needed too" in row.reason
    _, consumer = json_blocks(row.fix)
    assert {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": KMS_KEY} in consumer[
        "Statement"
    ]
    assert f"SSE-KMS with key {KMS_KEY}: its key policy" in row.fix


def test_read_denied_after_listing_fails_on_get_object(aws):
    _, rows = run(aws, tables=("partner_catalog.sales.secret_orders",))
    row = only(rows, "data", "partner_catalog.sales.secret_orders")
    assert row.status == FAIL and "s3:GetObject" in row.reason
    assert "s3://partner-data/sales/secret/part-0.parquet" in row.reason
    assert "SSE-KMS" not in row.reason
    assert "arn:aws:s3:::partner-data/sales/secret/*" in row.fix


@pytest.mark.parametrize(
    ("table", "status", "words"),
    [
        ("ghost_orders", FAIL, "bucket 'no-such-bucket'"),
        ("empty_orders", WARN, "holds no files"),
        ("nolocation_orders", WARN, "no S3 location"),
    ],
)
def test_data_edge_cases(aws, table, status, words):
    name = f"partner_catalog.sales.{table}"
    _, rows = run(aws, tables=(name,))
    row = only(rows, "data", name)
    assert row.status == status and words in row.reason and row.fix


# ---- identity -------------------------------------------------------------------------
def test_identity_names_caller_and_execution_role(aws):
    identity, rows = run(aws, catalogs=("partner_catalog",))
    assert identity.arn == CALLER and identity.account == "123456789012"
    assert identity.execution_role == EXECUTION_ROLE
    assert [r for r in rows if r.check == "identity"] == []


def test_work_group_without_execution_role_warns(aws):
    _, rows = run(aws, catalogs=("partner_catalog",), work_group="spark_norole")
    row = only(rows, "identity", "spark_norole")
    assert row.status == WARN and "no execution role" in row.reason
    assert "update-work-group --work-group spark_norole" in row.fix


def test_unreadable_identity_warns_and_policies_use_placeholders(aws):
    identity, rows = run(aws, user="dbt_none", catalogs=("partner_catalog",))
    sts_row = only(rows, "identity", "sts")
    assert sts_row.status == WARN and "sts:GetCallerIdentity failed" in sts_row.reason
    wg_row = only(rows, "identity", "spark_wg")
    assert wg_row.status == WARN and "athena:GetWorkGroup" in wg_row.reason
    assert identity.principals() == ["arn:aws:iam::<your account>:role/<your dbt role>"]


def test_assumed_role_session_becomes_role_principal():
    arn = "arn:aws:sts::123456789012:assumed-role/dbt-runner/botocore-session-1"
    assert doctor.policy_principal(arn) == "arn:aws:iam::123456789012:role/dbt-runner"
    assert doctor.policy_principal(CALLER) == CALLER


# ---- 5. session properties and setup --------------------------------------------------
def test_catalogid_property_fails_for_any_python_model():
    rows = doctor.check_models(
        [
            ModelFacts("model.p.bad", False, {doctor.CATALOG_ID_PROPERTY: "999999999999"}),
            ModelFacts("model.p.plain", False, {}),
        ]
    )
    assert [(r.status, r.subject) for r in rows] == [(FAIL, "model.p.bad")]
    assert (
        "read AND write" in rows[0].reason
        and "remove spark.hadoop.hive.metastore.glue.catalogid" in rows[0].fix
    )


@pytest.mark.parametrize("value", ["", None, ":"])
def test_opted_in_model_overriding_separator_warns(value):
    rows = doctor.check_models([ModelFacts("model.p.m", True, {doctor.SEPARATOR_PROPERTY: value})])
    assert [(r.status, r.check) for r in rows] == [(WARN, "session")]
    assert f"remove {doctor.SEPARATOR_PROPERTY}" in rows[0].fix


def test_opted_in_model_with_clean_properties_passes():
    rows = doctor.check_models([ModelFacts("model.p.m", True, {doctor.SEPARATOR_PROPERTY: "/"})])
    assert [(r.status, r.subject) for r in rows] == [(PASS, "model.p.m")]


@pytest.mark.parametrize(("readers", "status"), [(["model.p.m"], FAIL), ([], WARN)])
def test_missing_dispatch_entry(readers, status):
    rows = doctor.check_setup({"dispatch_package": "dbt", "readers": readers, "project_name": "p"})
    row = only(rows, "setup", "dispatch")
    assert row.status == status
    assert "search_order: ['p', 'dbt_athena_cross_account', 'dbt']" in row.fix


@pytest.mark.parametrize(("readers", "status"), [(["model.p.m"], FAIL), ([], WARN)])
def test_missing_plugin(readers, status):
    rows = doctor.check_setup(
        {"plugin": False, "dispatch_package": "dbt_athena_cross_account", "readers": readers}
    )
    row = only(rows, "setup", "plugin")
    assert row.status == status and "pip install dbt-athena-cross-account" in row.fix


def test_good_setup_passes():
    rows = doctor.check_setup(
        {"plugin": True, "plugin_version": "0.1.0", "dispatch_package": "dbt_athena_cross_account"}
    )
    assert [(r.status, r.subject) for r in rows] == [(PASS, "dispatch"), (PASS, "plugin")]


# ---- input and output -----------------------------------------------------------------
def test_table_names_parse_with_quotes_and_reject_bad_ones():
    refs = doctor.parse_tables(['"odd.cat".sales."a""b"', "c.s.t", "C.S.T"])
    assert [(r.catalog, r.schema, r.table) for r in refs] == [
        ("odd.cat", "sales", 'a"b'),
        ("c", "s", "t"),
    ]
    with pytest.raises(ValueError, match=r"'sales.orders' is not 'catalog.schema.table'"):
        doctor.parse_tables(["sales.orders"])


def test_report_is_a_table_ending_with_counts(aws):
    identity, rows = run(
        aws,
        tables=(
            "partner_catalog.sales.orders",
            "partner_catalog.sales.empty_orders",
            "missing_catalog.s.t",
        ),
    )
    text = doctor.format_report(rows, identity, REGION)
    lines = text.splitlines()
    assert lines[-1] == "6 PASS, 1 WARN, 1 FAIL" == doctor.summary_line(rows)
    assert f"checked as {CALLER} in {REGION}" in text and EXECUTION_ROLE in text
    assert re.search(
        r"^FAIL\s+registration\s+missing_catalog\s+'missing_catalog' is not registered", text, re.M
    )
    fail_at = next(i for i, line in enumerate(lines) if line.startswith("FAIL"))
    assert lines[fail_at + 1].startswith("        fix: register the owner's Glue catalog")
    assert not any(
        line.startswith("        fix:") and "PASS" in lines[i - 1][:4]
        for i, line in enumerate(lines)
    )


# ---- read-only -------------------------------------------------------------------------
def test_request_log_sees_write_calls(aws):
    """The recorder that the read-only test relies on does see a write, denied or not."""
    aws.clear_log()
    with pytest.raises(Exception, match=r"AccessDenied|not authorized"):
        aws.client("athena", "dbt").create_data_catalog(Name="x", Type="GLUE")
    assert aws.actions() == ["CreateDataCatalog"]
    assert "CreateDataCatalog" not in doctor.READ_ONLY_ACTIONS


def test_every_path_calls_read_only_apis_only(aws):
    aws.clear_log()
    everything = tuple(
        f"partner_catalog.{t}"
        for t in (
            "sales.orders",
            "sales.empty_orders",
            "sales.secret_orders",
            "sales.locked_orders",
            "sales.kms_orders",
            "sales.broken_orders",
            "sales.flaky_orders",
            "sales.delta_orders",
            "sales.ghost_orders",
            "sales.nolocation_orders",
            "sales.iceberg_orders",
            "sales.governed_orders",
            "sales.orders_view",
            "hr.salaries",
            "sales.nope",
            "nodb.x",
        )
    )
    catalogs = (
        "lambda_catalog",
        "s3tables_catalog",
        "missing_catalog",
        "throttled_catalog",
        "broken_catalog",
    )
    statuses = set()
    for user in ("dbt", "dbt_noglue", "dbt_none"):
        for work_group in ("spark_wg", "spark_norole"):
            _, rows = run(
                aws, user=user, catalogs=catalogs, tables=everything, work_group=work_group
            )
            statuses |= {r.status for r in rows}
    called = aws.requests()
    assert statuses == {PASS, WARN, FAIL}
    assert {r["action"] for r in called} <= doctor.READ_ONLY_ACTIONS, called
    assert {r["action"] for r in called} >= {
        "GetDataCatalog",
        "GetTable",
        "ListObjectsV2",
        "GetObject",
    }
    assert {r["method"] for r in called if r["service"] == "s3"} == {"GET"}
