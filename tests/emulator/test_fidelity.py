"""The emulator behaves as AWS documents it, where moto alone does not (instant executor:
no Spark). Each test names the AWS behaviour it checks."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from tests.stack import SPARK_WORK_GROUP, prepare_base

PARTNER = "999999999999"


@pytest.fixture
def emu(emulator: Emulator) -> Emulator:
    prepare_base(emulator)
    emulator.reset_counters()
    return emulator


def test_catalog_names_are_stored_lower_case_and_looked_up_in_any_case(emu):
    """Athena records data catalog names in lower case; lookups ignore case."""
    athena = emu.client("athena")
    athena.create_data_catalog(Name="Vendor_Glue", Type="GLUE", Parameters={"catalog-id": PARTNER})
    emu.seed({"data_catalogs": [{"name": "Seeded_CATALOG", "parameters": {"catalog-id": PARTNER}}]})
    names = {c["CatalogName"] for c in athena.list_data_catalogs()["DataCatalogsSummary"]}
    assert {"vendor_glue", "seeded_catalog"} <= names
    assert not {"Vendor_Glue", "Seeded_CATALOG"} & names
    for spelling in ("Vendor_Glue", "vendor_glue", "VENDOR_GLUE"):
        found = athena.get_data_catalog(Name=spelling)["DataCatalog"]
        assert (found["Name"], found["Parameters"]) == ("vendor_glue", {"catalog-id": PARTNER})
    with pytest.raises(ClientError):  # one catalog, whatever the case of the second create
        athena.create_data_catalog(Name="VENDOR_glue", Type="GLUE")


def test_seeded_tables_objects_exist_in_s3_under_their_location(emu, monkeypatch):
    """A Glue table's data is the S3 objects under its StorageDescriptor.Location."""
    monkeypatch.setattr(emu, "glue_owner_routing", True)  # Glue CatalogId -> the owner
    emu.seed(
        {
            "accounts": {
                PARTNER: {
                    "grants": [LOCAL_ACCOUNT],
                    "databases": {
                        "fidelity": {
                            "orders": {"columns": {"id": "int"}, "rows": [[1], [2]]},
                            "placed": {
                                "columns": {"id": "int"},
                                "rows": [[3]],
                                "location": "s3://partner-placed-data/some/prefix/",
                            },
                        }
                    },
                }
            }
        }
    )
    glue, s3 = emu.client("glue"), emu.client("s3")
    for table, expected in (("orders", b'{"id": 1}\n{"id": 2}\n'), ("placed", b'{"id": 3}\n')):
        location = glue.get_table(CatalogId=PARTNER, DatabaseName="fidelity", Name=table)["Table"][
            "StorageDescriptor"
        ]["Location"]
        bucket, _, prefix = location[len("s3://") :].partition("/")
        listed = s3.list_objects_v2(Bucket=bucket, Prefix=prefix)
        keys = [o["Key"] for o in listed.get("Contents", [])]
        assert keys == [prefix.rstrip("/") + "/part-00000.json"], (location, keys)
        assert s3.get_object(Bucket=bucket, Key=keys[0])["Body"].read() == expected
    # rows appended later are there too
    emu.catalog.append_rows(PARTNER, "fidelity", "placed", [[4]])
    listed = s3.list_objects_v2(Bucket="partner-placed-data", Prefix="some/prefix/")
    assert [o["Key"] for o in listed["Contents"]] == [
        "some/prefix/part-00000.json",
        "some/prefix/part-00001.json",
    ]


def test_spark_work_group_has_an_execution_role_and_sessions_need_one(emu):
    """Athena for Apache Spark runs sessions as the work group's execution role."""
    athena, iam = emu.client("athena"), emu.client("iam")
    config = athena.get_work_group(WorkGroup=SPARK_WORK_GROUP)["WorkGroup"]["Configuration"]
    role = config.get("ExecutionRole")
    assert role == f"arn:aws:iam::{LOCAL_ACCOUNT}:role/AthenaSparkExecutionRole"
    assert iam.get_role(RoleName=role.rsplit("/", 1)[1])["Role"]["Arn"] == role
    assert athena.start_session(
        WorkGroup=SPARK_WORK_GROUP, EngineConfiguration={"MaxConcurrentDpus": 2}
    )["SessionId"]

    athena.create_work_group(
        Name="spark_without_role",
        Configuration={"EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"}},
    )
    with pytest.raises(ClientError) as refused:
        athena.start_session(
            WorkGroup="spark_without_role", EngineConfiguration={"MaxConcurrentDpus": 2}
        )
    assert refused.value.response["Error"]["Code"] == "InvalidRequestException"
    assert "execution role" in str(refused.value)


def test_s3_calls_are_counted_and_can_fail(emu):
    """Every S3 API call counts under its action name, and injected S3 errors use S3's
    status codes and error body."""
    s3 = emu.client("s3")
    s3.put_object(Bucket="dbt-data", Key="count/a.txt", Body=b"abc")
    s3.list_objects_v2(Bucket="dbt-data", Prefix="count/")
    s3.list_objects(Bucket="dbt-data", Prefix="count/")
    s3.get_object(Bucket="dbt-data", Key="count/a.txt", Range="bytes=0-0")
    s3.head_object(Bucket="dbt-data", Key="count/a.txt")
    s3.delete_object(Bucket="dbt-data", Key="count/a.txt")
    for action in ("PutObject", "ListObjectsV2", "ListObjects", "GetObject", "HeadObject"):
        assert emu.calls[action] == 1, (action, dict(emu.calls))
    assert emu.calls["DeleteObject"] == 1

    emu.inject_error("GetObject", "AccessDenied", "Access Denied")
    s3.put_object(Bucket="dbt-data", Key="count/b.txt", Body=b"x")
    with pytest.raises(ClientError) as denied:
        s3.get_object(Bucket="dbt-data", Key="count/b.txt")
    error = denied.value.response
    assert (error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"]) == (
        "AccessDenied",
        403,
    )
    assert s3.get_object(Bucket="dbt-data", Key="count/b.txt")["Body"].read() == b"x"
    assert emu.calls["GetObject"] == 3


def test_two_emulators_in_one_process_keep_their_own_counters_and_grants(emu):
    """One emulator per process is not a limit any more."""
    with Emulator() as second:
        second.client("athena").list_data_catalogs()
        second.catalog.grant(PARTNER, "111111111111")
        emu.client("athena").list_work_groups()
        assert second.calls["ListDataCatalogs"] == 1 and second.calls["ListWorkGroups"] == 0
        assert emu.calls["ListWorkGroups"] == 1 and emu.calls["ListDataCatalogs"] == 0
        assert "111111111111" not in emu.catalog.grants.get(PARTNER, set())
        warehouse = second.catalog.warehouse
        assert warehouse != emu.catalog.warehouse
    assert not warehouse.exists()
    # the first emulator still serves, with its hooks in place
    emu.client("athena").list_work_groups()
    assert emu.calls["ListWorkGroups"] == 2


def test_a_grant_names_an_account_or_one_principal(emu, monkeypatch):
    """A Glue resource policy's Principal is an account (all of it) or one role/user ARN;
    Spark reads as the work group's execution role, Glue API calls as their signer."""
    from athena_spark_emulator.accounts.catalog import GlueAccessDenied, TableRef
    from athena_spark_emulator.core.constants import EXECUTION_ROLE_ARN

    monkeypatch.setattr(emu, "glue_owner_routing", True)
    monkeypatch.setitem(emu.catalog.grants, PARTNER, set())  # whatever other tests granted
    dbt_identity = emu.client("sts").get_caller_identity()["Arn"]
    emu.seed({"accounts": {PARTNER: {"grants": [dbt_identity], "databases": {"sales": {}}}}})
    assert emu.client("glue").get_database(CatalogId=PARTNER, Name="sales")["Database"]
    ref = TableRef(PARTNER, "sales", "orders")
    with pytest.raises(GlueAccessDenied, match="assumed-role/AthenaSparkExecutionRole/"):
        emu.catalog.check_access(ref, caller=EXECUTION_ROLE_ARN)
    emu.catalog.revoke(PARTNER, dbt_identity)
    emu.catalog.grant(PARTNER, EXECUTION_ROLE_ARN)
    emu.catalog.check_access(ref, caller=EXECUTION_ROLE_ARN)
    with pytest.raises(ClientError, match=f"User: {dbt_identity} is not authorized"):
        emu.client("glue").get_database(CatalogId=PARTNER, Name="sales")


def test_sessions_report_dpu_time_and_terminating_one_cancels_its_calculation(emu):
    """GetSession / GetCalculationExecution Statistics.DpuExecutionInMillis; TerminateSession
    ends the session's running calculations; a finished calculation's stdout is in S3."""
    import threading

    release = threading.Event()

    def executor(code, props):
        if "wait" in code:
            release.wait(30)
        return True, "printed\n"

    athena, s3 = emu.client("athena"), emu.client("s3")
    with emu.using_executor(executor):
        session = athena.start_session(
            WorkGroup=SPARK_WORK_GROUP, EngineConfiguration={"MaxConcurrentDpus": 2}
        )["SessionId"]
        done = athena.start_calculation_execution(SessionId=session, CodeBlock="print()")
        calc = done["CalculationExecutionId"]
        emu.backend.calculations.calculations[calc].done.wait(5)
        answer = athena.get_calculation_execution(CalculationExecutionId=calc)
        assert answer["Status"]["State"] == "COMPLETED"
        assert answer["Statistics"]["DpuExecutionInMillis"] >= 0
        bucket, key = answer["Result"]["StdOutS3Uri"][5:].split("/", 1)
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == b"printed\n"
        hanging = athena.start_calculation_execution(SessionId=session, CodeBlock="wait")
        athena.terminate_session(SessionId=session)
        got = athena.get_calculation_execution(
            CalculationExecutionId=hanging["CalculationExecutionId"]
        )
        release.set()
        assert got["Status"]["State"] == "CANCELED"
        stats = athena.get_session(SessionId=session)
        assert stats["Status"]["State"] == "TERMINATED"
        assert stats["Statistics"]["DpuExecutionInMillis"] > 0


# ---- what AWS refuses, the emulator refuses ------------------------------------------------
@pytest.mark.parametrize("routing", [False, True])
@pytest.mark.parametrize("catalog_id", ["abc", "99999999999a", "999999999999 ", "12345"])
def test_a_malformed_catalog_id_is_a_validation_error_never_the_local_table(
    emu, monkeypatch, catalog_id, routing
):
    monkeypatch.setattr(emu, "glue_owner_routing", routing)
    emu.seed(
        {
            "accounts": {
                LOCAL_ACCOUNT: {
                    "databases": {"fidelity": {"mine": {"columns": {"id": "int"}, "rows": [[1]]}}}
                }
            }
        }
    )
    glue = emu.client("glue")
    with pytest.raises(ClientError) as refused:
        glue.get_table(CatalogId=catalog_id, DatabaseName="fidelity", Name="mine")
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert f"Value '{catalog_id}' at 'catalogId' failed to satisfy constraint" in str(refused.value)
    assert glue.get_table(CatalogId=LOCAL_ACCOUNT, DatabaseName="fidelity", Name="mine")


def test_sessions_start_only_in_spark_work_groups_and_sql_runs_only_in_sql_ones(emu):
    athena = emu.client("athena")
    with pytest.raises(ClientError) as refused:
        athena.start_session(WorkGroup="primary", EngineConfiguration={"MaxConcurrentDpus": 2})
    assert refused.value.response["Error"]["Code"] == "InvalidRequestException"
    assert "sessions start only in an Apache Spark work group" in str(refused.value)
    with pytest.raises(ClientError, match="WorkGroup no_such_group is not found"):
        athena.start_session(
            WorkGroup="no_such_group", EngineConfiguration={"MaxConcurrentDpus": 2}
        )
    with pytest.raises(ClientError) as refused:
        athena.start_query_execution(
            QueryString="select 1",
            WorkGroup=SPARK_WORK_GROUP,
            ResultConfiguration={"OutputLocation": "s3://dbt-data/results/"},
        )
    assert refused.value.response["Error"]["Code"] == "InvalidRequestException"
    assert "it accepts sessions and calculations, not SQL queries" in str(refused.value)
    assert athena.start_session(
        WorkGroup=SPARK_WORK_GROUP, EngineConfiguration={"MaxConcurrentDpus": 2}
    )


def test_an_unknown_work_group_or_catalog_type_is_refused(emu):
    athena = emu.client("athena")
    with pytest.raises(ClientError, match="WorkGroup no_such_group is not found"):
        athena.list_sessions(WorkGroup="no_such_group")
    with pytest.raises(ClientError) as refused:
        athena.create_data_catalog(Name="odd_catalog", Type="GLUEY")
    assert refused.value.response["Error"]["Code"] == "ValidationException"
    assert "Member must satisfy enum value set: [LAMBDA, GLUE, HIVE, FEDERATED]" in str(
        refused.value
    )
    assert not athena.get_data_catalog(Name="odd_catalog").get("DataCatalog")
