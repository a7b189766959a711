"""A private moto server for the cross_account_doctor tests, in its own process.

Why a subprocess: moto's backends and its IAM-enforcement switch
(``INITIAL_NO_AUTH_ACTION_COUNT``) are process-global, and the shared session emulator
lives in the pytest process. Running this server elsewhere leaves both untouched.

The server is moto's own WSGI app with IAM enforcement on (after the world is built), so
AccessDenied answers for Athena, STS and S3 (per bucket and per key) come from moto's real
policy evaluation. A thin WSGI layer in front of it

* records every request as ``{"service", "action", "method", "path"}`` (one JSON line per
  request), so a test can prove that only read APIs were called; and
* answers requests that match a *fault rule* with an AWS error body. moto does not model
  the owner account's Glue resource policy (it ignores ``CatalogId``), so the rules play the
  owner side: e.g. ``glue:GetTable`` on database ``hr`` is refused exactly as AWS refuses it.

Run as ``python -m tests.doctor_support PORT LOG_PATH`` with ``DOCTOR_FAULT_RULES`` (JSON).
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional
from urllib.parse import parse_qs

REGION = "eu-west-1"
LOCAL_ACCOUNT = "123456789012"  # moto's default account: the consumer
OWNER_ACCOUNT = "999999999999"  # the partner account that owns the Glue catalog
PARQUET_SERDE = "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe"
EXECUTION_ROLE = f"arn:aws:iam::{LOCAL_ACCOUNT}:role/spark-exec"
KMS_KEY = f"arn:aws:kms:{REGION}:{OWNER_ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"

# Owner-side refusals and other faults moto cannot produce on its own.
FAULT_RULES: List[Dict[str, Any]] = [
    {
        "action": "GetDatabase",
        "match": {"Name": "hr"},
        "code": "AccessDeniedException",
        "message": (
            f"User: arn:aws:iam::{LOCAL_ACCOUNT}:user/dbt is not authorized to perform: "
            f"glue:GetDatabase on resource: arn:aws:glue:{REGION}:{OWNER_ACCOUNT}:database/hr "
            "because no resource-based policy allows the glue:GetDatabase action"
        ),
    },
    {
        "action": "GetDataCatalog",
        "match": {"Name": "throttled_catalog"},
        "code": "ThrottlingException",
        "message": "Rate exceeded",
    },
    # errors that are neither "denied" nor "not found": each check's catch-all branch
    {
        "action": "GetDataCatalog",
        "match": {"Name": "broken_catalog"},
        "code": "InternalServerException",
        "message": "internal error (injected)",
    },
    {
        "action": "GetTable",
        "match": {"DatabaseName": "sales", "Name": "flaky_orders"},
        "code": "InternalServiceException",
        "message": "internal error (injected)",
    },
    {
        "action": "ListObjectsV2",
        "match": {"prefix": "sales/broken/"},
        "code": "InternalError",
        "message": "We encountered an internal error (injected)",
    },
]


# ---- the server side ------------------------------------------------------------------
def _service(environ: Dict[str, Any]) -> str:
    auth = environ.get("HTTP_AUTHORIZATION", "")
    if "Credential=" in auth:
        scope = auth.split("Credential=", 1)[1].split(",", 1)[0].split("/")
        if len(scope) >= 4:
            return scope[3]
    return ""


def _s3_action(method: str, path: str, query: Dict[str, List[str]]) -> str:
    parts = [p for p in path.split("/") if p]
    on_key = len(parts) > 1
    if method == "HEAD":
        return "HeadObject" if on_key else "HeadBucket"
    if method == "GET":
        if "encryption" in query:
            return "GetBucketEncryption"
        if "list-type" in query:
            return "ListObjectsV2"
        if on_key:
            return "GetObject"
        return "ListObjects" if parts else "ListBuckets"
    return f"S3 {method} {'object' if on_key else 'bucket'} {sorted(query)}"


class Recorder:
    """WSGI middleware: record each request, answer fault rules, else pass to moto."""

    def __init__(self, app: Any, log_path: str, rules: List[Dict[str, Any]]) -> None:
        self.app, self.log_path, self.rules = app, log_path, rules
        self.lock = threading.Lock()

    def __call__(self, environ: Dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        if path == "/doctor-api/rules":  # the test side adds rules once the IAM users exist
            length = int(environ.get("CONTENT_LENGTH") or 0)
            self.rules = json.loads(environ["wsgi.input"].read(length) or b"[]")
            start_response("200 OK", [("Content-Length", "0")])
            return [b""]
        if path.startswith("/moto-api"):
            return self.app(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        service = _service(environ)
        method = environ.get("REQUEST_METHOD", "")
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        params: Dict[str, Any] = {}
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        if target:
            action = target.rsplit(".", 1)[-1]
            try:
                params = json.loads(body or b"{}")
            except ValueError:
                params = {}
        elif service == "s3":
            action = _s3_action(method, path, query)
            params = {k: v[0] for k, v in query.items()}
        else:
            form = parse_qs(body.decode("utf-8", "replace")) if body else {}
            action = (form.get("Action") or query.get("Action") or [""])[0]
            params = {k: v[0] for k, v in form.items()}
        with self.lock, open(self.log_path, "a", encoding="utf-8") as log:
            log.write(
                json.dumps({"service": service, "action": action, "method": method, "path": path})
                + "\n"
            )
        access_key = (
            environ.get("HTTP_AUTHORIZATION", "").partition("Credential=")[2].split("/", 1)[0]
        )
        for rule in self.rules:
            if (
                rule["action"] == action
                and all(params.get(k) == v for k, v in rule.get("match", {}).items())
                and rule.get("access_key", access_key) == access_key
            ):
                if target:  # JSON protocol (Athena, Glue)
                    payload = json.dumps(
                        {"__type": rule["code"], "Message": rule["message"]}
                    ).encode()
                    content_type = "application/x-amz-json-1.1"
                else:  # query protocol (STS)
                    payload = (
                        "<ErrorResponse><Error><Type>Sender</Type>"
                        f"<Code>{rule['code']}</Code><Message>{rule['message']}</Message>"
                        "</Error><RequestId>doctor</RequestId></ErrorResponse>"
                    ).encode()
                    content_type = "text/xml"
                status = "403 Forbidden" if "AccessDenied" in rule["code"] else "400 Bad Request"
                start_response(
                    status, [("Content-Type", content_type), ("Content-Length", str(len(payload)))]
                )
                return [payload]
        return self.app(environ, start_response)


def serve(port: int, log_path: str) -> None:
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    rules = json.loads(os.environ.get("DOCTOR_FAULT_RULES") or "[]")
    app = Recorder(DomainDispatcherApplication(create_backend_app), log_path, rules)
    server = make_server("127.0.0.1", port, app, True, request_handler=MotoRequestHandler)
    server.serve_forever()


# ---- the test side --------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class DoctorAws:
    """The subprocess server plus the world the doctor tests read."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "requests.jsonl"
        self.keys: Dict[str, Dict[str, str]] = {}
        self.process: Optional[subprocess.Popen] = None

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> DoctorAws:
        import requests

        env = {**os.environ, "DOCTOR_FAULT_RULES": json.dumps(FAULT_RULES)}
        env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
        root = Path(__file__).resolve().parents[1]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.doctor_support", str(self.port), str(self.log_path)],
            cwd=root,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.workdir / "server.log", "wb"),  # noqa: SIM115 - lives as long as the process
        )
        deadline = time.time() + 60
        while True:
            try:
                requests.get(f"{self.endpoint_url}/moto-api/data.json", timeout=2)
                break
            except requests.RequestException:
                if self.process.poll() is not None or time.time() > deadline:
                    raise RuntimeError((self.workdir / "server.log").read_text()) from None
                time.sleep(0.1)
        self.build_world()
        rules = [
            *FAULT_RULES,
            {  # moto lets anyone call GetCallerIdentity; refuse it for the no-permission user
                "action": "GetCallerIdentity",
                "access_key": self.keys["dbt_none"]["aws_access_key_id"],
                "code": "AccessDenied",
                "message": f"User: arn:aws:iam::{LOCAL_ACCOUNT}:user/dbt_none is not authorized "
                "to perform: sts:GetCallerIdentity",
            },
        ]
        requests.post(f"{self.endpoint_url}/doctor-api/rules", data=json.dumps(rules), timeout=10)
        # From here on every request must be signed by an IAM user whose policy allows it.
        requests.post(f"{self.endpoint_url}/moto-api/reset-auth", data=b"0", timeout=10)
        self.clear_log()
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)

    # -- clients ------------------------------------------------------------------------
    def client(self, service: str, user: Optional[str] = None, attempts: int = 1) -> Any:
        import boto3
        from botocore.config import Config

        creds = (
            self.keys[user]
            if user
            else {"aws_access_key_id": "admin", "aws_secret_access_key": "admin"}
        )
        return boto3.client(
            service,
            region_name=REGION,
            endpoint_url=self.endpoint_url,
            config=Config(retries={"max_attempts": attempts, "mode": "standard"}),
            **creds,
        )

    def env(self, user: str) -> Dict[str, str]:
        """Environment for a dbt subprocess that signs as ``user``."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": self.keys[user]["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": self.keys[user]["aws_secret_access_key"],
            "AWS_DEFAULT_REGION": REGION,
            "AWS_REGION": REGION,
        }

    # -- the request log ----------------------------------------------------------------
    def clear_log(self) -> None:
        self.log_path.write_text("")

    def requests(self) -> List[Dict[str, str]]:
        lines = self.log_path.read_text().splitlines() if self.log_path.exists() else []
        return [json.loads(line) for line in lines if line.strip()]

    def actions(self) -> List[str]:
        return [r["action"] for r in self.requests()]

    # -- the world ----------------------------------------------------------------------
    def _user(self, name: str, policy: Optional[Dict[str, Any]]) -> None:
        iam = self.client("iam")
        iam.create_user(UserName=name)
        if policy is not None:
            iam.put_user_policy(UserName=name, PolicyName="p", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=name)["AccessKey"]
        self.keys[name] = {
            "aws_access_key_id": key["AccessKeyId"],
            "aws_secret_access_key": key["SecretAccessKey"],
        }

    def build_world(self) -> None:
        read = ["athena:Get*", "athena:List*", "sts:GetCallerIdentity"]
        # moto authorizes GetBucketEncryption as s3:ListBucket, so partner-locked's encryption
        # is unreadable too; partner-kms lists (and shows its KMS key) but refuses reads.
        deny_locked = {
            "Effect": "Deny",
            "Action": ["s3:ListBucket", "s3:GetObject"],
            "Resource": ["arn:aws:s3:::partner-locked", "arn:aws:s3:::partner-locked/*"],
        }
        deny_secret_objects = {
            "Effect": "Deny",
            "Action": "s3:GetObject",
            "Resource": ["arn:aws:s3:::partner-data/sales/secret/*", "arn:aws:s3:::partner-kms/*"],
        }
        self._user(
            "dbt",
            {
                "Version": "2012-10-17",
                "Statement": [
                    {"Effect": "Allow", "Action": [*read, "glue:Get*", "s3:*"], "Resource": "*"},
                    deny_locked,
                    deny_secret_objects,
                ],
            },
        )
        self._user(
            "dbt_noglue",
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": [*read, "s3:*"], "Resource": "*"}],
            },
        )
        self._user("dbt_none", None)

        athena = self.client("athena")
        athena.create_data_catalog(
            Name="partner_catalog", Type="GLUE", Parameters={"catalog-id": OWNER_ACCOUNT}
        )
        athena.create_data_catalog(
            Name="lambda_catalog",
            Type="LAMBDA",
            Parameters={"function": f"arn:aws:lambda:{REGION}:{LOCAL_ACCOUNT}:function:f"},
        )
        athena.create_data_catalog(
            Name="s3tables_catalog",
            Type="GLUE",
            Parameters={"catalog-id": f"{OWNER_ACCOUNT}:s3tablescatalog/tables-bucket"},
        )
        athena.create_work_group(
            Name="spark_wg",
            Configuration={
                "EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"},
                "ExecutionRole": EXECUTION_ROLE,
            },
        )
        athena.create_work_group(
            Name="spark_norole",
            Configuration={"EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"}},
        )

        s3 = self.client("s3")
        for bucket in ("partner-data", "partner-locked", "partner-kms", "dbt-staging", "dbt-data"):
            s3.create_bucket(
                Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION}
            )
        s3.put_object(Bucket="partner-data", Key="sales/orders/part-0.parquet", Body=b"PAR1")
        s3.put_object(Bucket="partner-data", Key="sales/secret/part-0.parquet", Body=b"PAR1")
        s3.put_object(Bucket="partner-locked", Key="sales/orders/part-0.parquet", Body=b"PAR1")
        s3.put_object(Bucket="partner-kms", Key="sales/orders/part-0.parquet", Body=b"PAR1")
        for bucket in ("partner-locked", "partner-kms"):
            s3.put_bucket_encryption(
                Bucket=bucket,
                ServerSideEncryptionConfiguration={
                    "Rules": [
                        {
                            "ApplyServerSideEncryptionByDefault": {
                                "SSEAlgorithm": "aws:kms",
                                "KMSMasterKeyID": KMS_KEY,
                            }
                        }
                    ]
                },
            )

        # moto keeps Glue in the caller's account and ignores CatalogId (design notes,
        # section 2), so the owner's catalog is modelled in the local account.
        glue = self.client("glue")
        for database in ("sales", "hr"):
            glue.create_database(DatabaseInput={"Name": database})

        def table(
            db: str,
            name: str,
            location: Optional[str],
            params: Optional[Dict[str, str]] = None,
            table_type: str = "EXTERNAL_TABLE",
        ) -> None:
            storage: Dict[str, Any] = {
                "Columns": [{"Name": "order_id", "Type": "bigint"}],
                "SerdeInfo": {"SerializationLibrary": PARQUET_SERDE},
            }
            if location:
                storage["Location"] = location
            glue.create_table(
                DatabaseName=db,
                TableInput={
                    "Name": name,
                    "TableType": table_type,
                    "Parameters": params or {},
                    "StorageDescriptor": storage,
                },
            )

        table("sales", "orders", "s3://partner-data/sales/orders/", {"classification": "parquet"})
        table("sales", "empty_orders", "s3://partner-data/sales/empty/")
        table("sales", "secret_orders", "s3://partner-data/sales/secret")
        table("sales", "locked_orders", "s3://partner-locked/sales/orders/")
        table("sales", "kms_orders", "s3://partner-kms/sales/orders/")
        table("sales", "broken_orders", "s3://partner-data/sales/broken/")
        table(
            "sales",
            "delta_orders",
            "s3://partner-data/sales/orders/",
            {"spark.sql.sources.provider": "delta"},
        )
        table("sales", "ghost_orders", "s3://no-such-bucket/sales/ghost/")
        table("sales", "nolocation_orders", None)
        table(
            "sales", "iceberg_orders", "s3://partner-data/sales/orders/", {"table_type": "ICEBERG"}
        )
        table(
            "sales",
            "governed_orders",
            "s3://partner-data/sales/orders/",
            {"table_type": "GOVERNED"},
        )
        table("sales", "orders_view", None, {"presto_view": "true"}, table_type="VIRTUAL_VIEW")
        table("hr", "salaries", "s3://partner-data/hr/salaries/")


def running(workdir: Path) -> Iterator[DoctorAws]:
    aws = DoctorAws(workdir).start()
    try:
        yield aws
    finally:
        aws.stop()


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.argv[2])
