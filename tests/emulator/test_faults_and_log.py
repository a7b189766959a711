"""The emulator's one fault, latency and request-log mechanism, through boto3 over HTTP:
faults matched on parameters, the signing key or a missing header, answered in each
protocol (JSON, S3 XML, STS query XML); the request log with start and end times; and,
on a served emulator (its own process), IAM enforcement and the control API."""

from __future__ import annotations

import json
import os
import signal
from typing import Any, Dict, Iterator

import boto3
import pytest
import requests
from botocore.config import Config
from botocore.exceptions import ClientError

from athena_spark_emulator import REGION, Emulator
from tests.doctor_support.aws import free_port, serve_emulator
from tests.stack import prepare_base

NO_RETRY = Config(retries={"total_max_attempts": 1, "mode": "standard"})


@pytest.fixture
def emu(emulator: Emulator) -> Iterator[Emulator]:
    prepare_base(emulator)
    emulator.clear_requests()
    yield emulator
    emulator.clear_faults()
    emulator.latency.clear()


def error_of(call: Any, **kwargs: Any) -> Dict[str, Any]:
    with pytest.raises(ClientError) as raised:
        call(**kwargs)
    answer = raised.value.response
    return {
        "code": answer["Error"]["Code"],
        "message": answer["Error"].get("Message", ""),
        "status": answer["ResponseMetadata"]["HTTPStatusCode"],
    }


def test_json_fault_matched_on_parameters_answers_only_those_calls_every_time(emu):
    glue = emu.client("glue")
    for name in ("fault_hr", "fault_sales"):
        glue.create_database(DatabaseInput={"Name": name})
    emu.inject_error(
        "GetDatabase", "AccessDeniedException", "no hr", times=None, match={"Name": "fault_hr"}
    )
    for _ in range(2):  # times=None: every matching call
        assert error_of(glue.get_database, Name="fault_hr") == {
            "code": "AccessDeniedException",
            "message": "no hr",
            "status": 403,
        }
    assert glue.get_database(Name="fault_sales")["Database"]["Name"] == "fault_sales"


def test_s3_fault_matched_on_the_query_and_on_a_missing_header(emu):
    s3 = emu.client("s3")
    s3.put_object(Bucket="dbt-data", Key="faults/broken/a", Body=b"a")
    s3.put_object(Bucket="dbt-data", Key="faults/fine/a", Body=b"a")
    emu.inject_error(
        "ListObjectsV2", "InternalError", "boom", times=None, match={"prefix": "faults/broken/"}
    )
    emu.inject_error(
        "GetObject",
        "AccessDenied",
        "Access Denied",
        times=None,
        match={"Bucket": "dbt-data"},
        missing_header="x-amz-request-payer",
    )
    listing = error_of(
        boto3_client(emu, "s3").list_objects_v2, Bucket="dbt-data", Prefix="faults/broken/"
    )
    assert (listing["code"], listing["status"]) == ("InternalError", 500)
    assert s3.list_objects_v2(Bucket="dbt-data", Prefix="faults/fine/")["KeyCount"] == 1
    denied = error_of(s3.get_object, Bucket="dbt-data", Key="faults/fine/a")
    assert (denied["code"], denied["status"]) == ("AccessDenied", 403)
    paid = s3.get_object(Bucket="dbt-data", Key="faults/fine/a", RequestPayer="requester")
    assert paid["Body"].read() == b"a"


def test_sts_fault_is_answered_in_the_query_protocol_for_one_signing_key(emu):
    emu.inject_error(
        "GetCallerIdentity", "AccessDenied", "not you", times=None, access_key="AKIDBLOCKED"
    )
    blocked = boto3_client(emu, "sts", key="AKIDBLOCKED")
    assert error_of(blocked.get_caller_identity) == {
        "code": "AccessDenied",
        "message": "not you",
        "status": 403,
    }
    assert emu.client("sts").get_caller_identity()["Account"] == "123456789012"


def test_request_log_has_every_protocol_with_params_payer_and_start_end(emu):
    emu.latency["*"] = 0.05  # every action
    emu.client("s3").list_objects_v2(Bucket="dbt-data", Prefix="log/", RequestPayer="requester")
    emu.client("glue").get_databases(MaxResults=7)
    emu.client("sts").get_caller_identity()
    logged = {r["action"]: r for r in emu.requests}
    assert {"ListObjectsV2", "GetDatabases", "GetCallerIdentity"} <= set(logged), logged
    assert logged["ListObjectsV2"]["params"]["prefix"] == "log/"
    assert logged["ListObjectsV2"]["request_payer"] == "requester"
    assert (logged["ListObjectsV2"]["service"], logged["ListObjectsV2"]["method"]) == ("s3", "GET")
    assert logged["GetDatabases"]["params"] == {"MaxResults": 7}
    assert logged["GetCallerIdentity"]["service"] == "sts"
    for record in logged.values():
        assert record["end"] - record["start"] >= 0.05, record
    emu.clear_requests()
    assert emu.requests == []


def boto3_client(emu: Any, service: str, key: str = "testing", endpoint: str = "") -> Any:
    return boto3.client(
        service,
        region_name=REGION,
        endpoint_url=endpoint or emu.endpoint_url,
        aws_access_key_id=key,
        aws_secret_access_key=key,
        config=NO_RETRY,
    )


# ---- a served emulator: the control API and IAM enforcement (process-wide in moto) ---------
@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    seed = {"accounts": {"999999999999": {"grants": ["123456789012"]}}}
    port = free_port()
    process = serve_emulator(tmp_path_factory.mktemp("served"), seed, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)


def control(endpoint: str, method: str, name: str, body: Any = None) -> Any:
    answer = requests.request(
        method, f"{endpoint}/_emulator/{name}", data=json.dumps(body), timeout=30
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_served_emulator_enforces_iam_once_switched_on(served):
    admin = lambda service: boto3_client(None, service, endpoint=served)  # noqa: E731
    iam = admin("iam")
    iam.create_user(UserName="reader")
    policy = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": ["glue:GetDatabase"], "Resource": "*"}],
    }
    iam.put_user_policy(UserName="reader", PolicyName="p", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="reader")["AccessKey"]
    admin("glue").create_database(CatalogId="999999999999", DatabaseInput={"Name": "owned"})
    control(served, "PUT", "iam", {"enforce": True})
    try:
        reader = {
            s: boto3.client(
                s,
                region_name=REGION,
                endpoint_url=served,
                aws_access_key_id=key["AccessKeyId"],
                aws_secret_access_key=key["SecretAccessKey"],
                config=NO_RETRY,
            )
            for s in ("glue", "athena")
        }
        # allowed, and routed to the owner's Glue (CatalogId) as the signing user
        owned = reader["glue"].get_database(CatalogId="999999999999", Name="owned")
        assert owned["Database"]["Name"] == "owned"
        # an action the emulator answers itself is checked too
        refused = error_of(reader["athena"].get_data_catalog, Name="awsdatacatalog")
        assert (refused["code"], refused["status"]) == ("AccessDenied", 403), refused
        assert "not authorized to perform: athena:GetDataCatalog" in refused["message"]
        unknown = error_of(admin("glue").get_database, Name="owned")  # "testing": no IAM user
        assert (unknown["code"], unknown["status"]) == ("InvalidClientTokenId", 403), unknown
    finally:
        control(served, "PUT", "iam", {"enforce": False})


def test_served_emulator_takes_faults_and_gives_its_log_over_http(served):
    control(served, "DELETE", "requests")
    rule = {
        "action": "GetDatabases",
        "code": "ThrottlingException",
        "message": "slow down",
        "times": 1,
    }
    control(served, "POST", "faults", [rule])
    glue = boto3_client(None, "glue", endpoint=served)
    assert error_of(glue.get_databases)["code"] == "ThrottlingException"
    glue.get_databases()
    logged = [r["action"] for r in control(served, "GET", "requests")]
    assert logged == ["GetDatabases", "GetDatabases"]
    bad = requests.post(f"{served}/_emulator/faults", data=json.dumps({"action": "x"}), timeout=30)
    assert (bad.status_code, "JSON list" in bad.json()["error"]) == (400, True)
