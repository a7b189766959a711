"""Parsing and answering the requests moto does not handle the way Athena does.

moto's pattern: ``models.py`` keeps state, ``responses.py`` parses a request, calls the
backend and serialises the answer. Here the state is the emulator's
:class:`~athena_spark_emulator.backend.EmulatorBackend`; this module

* dispatches every request of an emulator's endpoint (:func:`dispatch`): counts it, applies
  injected latency and faults, routes Glue ``CatalogId`` calls to the owner's Glue, and
  answers the Athena actions below, leaving everything else to moto;
* answers the Spark Calculation API that dbt-athena 1.9-1.11 calls: StartSession,
  GetSessionStatus, ListSessions, TerminateSession, StartCalculationExecution,
  GetCalculationExecution, GetCalculationExecutionStatus, StopCalculationExecution; and
  GetSession (the doctor's Spark probe reads its DPU time). A finished calculation's
  stdout is written to S3 at its ``Result.StdOutS3Uri``, as Athena writes it;
* stores data catalog names in lower case and looks them up case-insensitively, as Athena
  does (CreateDataCatalog, GetDataCatalog);
* names S3 requests by their API action (:func:`s3_action`), so they are counted too.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union
from urllib.parse import parse_qs, unquote

from athena_spark_emulator.accounts.iceberg import SPARK_CLIENT, SPARK_CLIENT_HEADER
from athena_spark_emulator.accounts.sts_roles import StsRefusal
from athena_spark_emulator.backend import EmulatorBackend
from athena_spark_emulator.core.constants import EXECUTION_ROLE_ARN, REGION, STAGING_BUCKET
from athena_spark_emulator.core.errors import AwsError, invalid_request
from athena_spark_emulator.spark.calculations import (
    Calculation,
    Session,
    calculation_dpu_millis,
    session_dpu_millis,
)

Answer = Union[str, Tuple[int, Dict[str, str], str]]


# ---- every request ---------------------------------------------------------------------
def dispatch(backend: EmulatorBackend, response: Any, call_moto: Callable[[], Any]) -> Any:
    """Answer one request of a JSON/query-protocol service (Athena, Glue, STS, IAM, ...)."""
    action = response._get_action()
    json_protocol = bool((getattr(response, "headers", None) or {}).get("X-Amz-Target"))
    try:
        backend.before_call(action, request_params(response, json_protocol))
        check_iam(response)
        answer = _answer(backend, response, action)
    except AwsError as error:  # the one place JSON- and query-protocol errors are written
        return error.json_answer() if json_protocol else error.query_answer()
    if answer is None:  # not one the emulator answers (e.g. a query it did not run)
        return call_moto()
    if isinstance(answer, str):
        return 200, {"Content-Type": "application/x-amz-json-1.1"}, answer
    return answer


def request_params(response: Any, json_protocol: bool) -> Dict[str, Any]:
    """A request's parameters: its JSON body, or its query-protocol form (first values)."""
    if json_protocol:
        try:
            body = json.loads(response.body or "{}")
        except (TypeError, ValueError):
            return {}
        return body if isinstance(body, dict) else {}
    form = getattr(response, "querystring", None) or {}
    return {k: v[0] if isinstance(v, list) and v else v for k, v in form.items()}


def check_iam(response: Any) -> None:
    """:class:`AwsError` when moto's IAM enforcement refuses this request (moto's code and
    message, written in the request's protocol: moto writes XML even for JSON services).
    Off unless enforcement was switched on (``INITIAL_NO_AUTH_ACTION_COUNT``, moto's
    process-wide switch; ``control.enforce_iam``).

    Checked here, as the signing caller, before the emulator answers or routes it: the
    actions the emulator answers itself never reach moto's check, and a Glue request routed
    to the owner's account (``CatalogId``) must be checked against the caller's IAM user,
    not looked up in the owner's account. A request that passes is not checked again."""
    from moto import settings
    from moto.core.responses import ActionAuthenticatorMixin
    from werkzeug.exceptions import HTTPException

    if ActionAuthenticatorMixin.request_count < settings.INITIAL_NO_AUTH_ACTION_COUNT:
        return
    resource = response._determine_resource() if hasattr(response, "_determine_resource") else "*"
    try:
        response._authenticate_and_authorize_normal_action(resource)
    except HTTPException as refused:
        code = getattr(refused, "error_type", "") or "AccessDenied"
        raise AwsError(
            code, getattr(refused, "message", str(refused)), refused.code or 403
        ) from None
    response._authenticate_and_authorize_normal_action = _checked


def _checked(resource: str = "*") -> None:
    """moto's IAM check for a request :func:`check_iam` already let through."""


def _answer(backend: EmulatorBackend, response: Any, action: str) -> Optional[Answer]:
    """The emulator's answer to ``action``; None to let moto answer."""
    service = getattr(response, "service_name", "")
    if service == "glue":
        check_catalog_id(response)
    if service == "glue" and (backend.glue_owner_routing or from_spark_catalog(response)):
        route_glue_catalog_id(backend, response, action)
    if service == "athena" and action == "StartQueryExecution":
        check_sql_work_group(response)
    if service == "sts" and action == "AssumeRole":
        check_assume_role(backend, response)
    handler = ATHENA_ACTIONS.get(action) if service == "athena" else None
    return None if handler is None else handler(backend, response)


def check_assume_role(backend: EmulatorBackend, response: Any) -> None:
    """STS AssumeRole into a role of an account's seed (``accounts.<id>.roles``), as STS
    decides it (``sts_roles.Roles.assume``: the trust, the external id, the hour of a
    chained session): an :class:`AwsError` with STS's text when refused. moto grants any
    AssumeRole; it still answers those allowed, and those into roles no seed names."""
    params = request_params(response, False)
    arn = str(params.get("RoleArn") or "")
    if backend.catalog.roles.get(arn) is None:
        return
    caller = caller_arn(response)
    try:
        backend.catalog.roles.assume(
            caller,
            arn,
            params.get("ExternalId"),
            int(params.get("DurationSeconds") or 3600),
            chained=":assumed-role/" in caller,
        )
    except StsRefusal as refusal:  # the Java SDK's text: STS's message inside it
        text = str(refusal).split("StsException: ", 1)[-1].rsplit(" (Service: Sts", 1)[0]
        denied = "is not authorized to perform" in text
        raise AwsError(
            "AccessDenied" if denied else "ValidationError", text, 403 if denied else 400
        ) from None


def from_spark_catalog(response: Any) -> bool:
    """A Glue request of a Spark Iceberg catalog inside a calculation (``iceberg.py``): its
    ``glue.id`` always reaches the owner, as on AWS, whatever ``glue_owner_routing`` says."""
    headers = getattr(response, "headers", None) or {}
    return headers.get(SPARK_CLIENT_HEADER) == SPARK_CLIENT


def caller_arn(response: Any) -> str:
    """The ARN of the request's signer, as STS GetCallerIdentity names it; a Spark Iceberg
    catalog's request acts as the work group's execution role."""
    if from_spark_catalog(response):
        return EXECUTION_ROLE_ARN
    from moto.sts.models import sts_backends

    account = response.current_account
    try:
        return str(
            sts_backends[account]["aws"].get_caller_identity(response.get_access_key(), REGION)[1]
        )
    except Exception:  # no credentials to name: the account
        return f"arn:aws:iam::{account}:root"


ACCOUNT_ID = re.compile(r"\d{12}")
BAD_CATALOG_ID = (
    "1 validation error detected: Value '{value}' at 'catalogId' failed to satisfy "
    "constraint: Member must be a 12-digit AWS account ID"
)
FEDERATED_CATALOG_ID = (
    "NOT_SUPPORTED: CatalogId '{value}' names a federated or S3 Tables catalog of account "
    "{account}; the emulator serves only accounts' own Glue catalogs (a 12-digit CatalogId)"
)


def check_catalog_id(response: Any) -> None:
    """A Glue request's ``CatalogId``, when it has one, is an account id (AWS validates it):
    :class:`AwsError` ValidationException otherwise, never the local account's answer."""
    try:
        catalog_id = response._get_param("CatalogId")
    except Exception:  # a body that is not JSON: moto answers it
        return
    if catalog_id is None:
        return
    value = str(catalog_id)
    if isinstance(catalog_id, str) and ACCOUNT_ID.fullmatch(value):
        return
    account, colon, _rest = value.partition(":")
    if isinstance(catalog_id, str) and colon and ACCOUNT_ID.fullmatch(account):
        raise AwsError(
            "InvalidInputException", FEDERATED_CATALOG_ID.format(value=value, account=account)
        )
    raise AwsError("ValidationException", BAD_CATALOG_ID.format(value=value))


def _engine(response: Any, work_group: str) -> Optional[str]:
    """The work group's selected engine ("" when unset: Athena SQL); None: no such group."""
    group = response.athena_backend.work_groups.get(work_group)
    if group is None:
        return None
    config: Mapping[str, Any] = group.configuration or {}
    return str((config.get("EngineVersion") or {}).get("SelectedEngineVersion") or "")


def is_spark_engine(engine: Optional[str]) -> bool:
    return "spark" in (engine or "").lower()


def check_sql_work_group(response: Any) -> None:
    """Athena SQL runs only in SQL work groups: :class:`AwsError` for a Spark one."""
    work_group = str(response._get_param("WorkGroup") or "primary")
    engine = _engine(response, work_group)
    if is_spark_engine(engine):
        raise invalid_request(
            f"Work group {work_group} runs Apache Spark ({engine}): it accepts sessions and "
            "calculations, not SQL queries. Run the query in an Athena SQL work group (for "
            "dbt-athena: work_group, not spark_work_group)"
        )


def route_glue_catalog_id(backend: EmulatorBackend, response: Any, action: str) -> None:
    """Point a Glue request at ``CatalogId``'s account; :class:`AwsError` AccessDenied when
    the owner has not granted the caller (its account, or its role or user ARN)."""
    try:
        catalog_id = response._get_param("CatalogId")
    except Exception:  # a body that is not JSON: leave it to moto
        return
    caller = response.current_account
    if not catalog_id or catalog_id == caller or not str(catalog_id).isdigit():
        return
    principal = caller_arn(response)
    if not backend.catalog.granted(str(catalog_id), principal):
        raise AwsError(
            "AccessDeniedException",
            f"User: {principal} is not authorized to "
            f"perform: glue:{action} on resource: arn:aws:glue:{REGION}:{catalog_id}:catalog "
            f"because no resource-based policy allows the glue:{action} action",
        )
    response.current_account = str(catalog_id)


# ---- data catalogs: lower-case names, as Athena ---------------------------------------------
CATALOG_TYPES = ("LAMBDA", "GLUE", "HIVE", "FEDERATED")


def create_data_catalog(backend: EmulatorBackend, response: Any) -> Answer:
    name = str(response._get_param("Name") or "").lower()
    kind = response._get_param("Type")
    if kind not in CATALOG_TYPES:
        raise AwsError(
            "ValidationException",
            f"1 validation error detected: Value '{kind}' at 'type' failed to satisfy "
            f"constraint: Member must satisfy enum value set: [{', '.join(CATALOG_TYPES)}]",
        )
    created = response.athena_backend.create_data_catalog(
        name,
        response._get_param("Type"),
        response._get_param("Description"),
        response._get_param("Parameters"),
        response._get_param("Tags"),
    )
    if not created:
        raise invalid_request(f"DataCatalog {name} already exists")
    return json.dumps({})


def get_data_catalog(backend: EmulatorBackend, response: Any) -> Answer:
    name = str(response._get_param("Name") or "").lower()
    return json.dumps({"DataCatalog": response.athena_backend.get_data_catalog(name)})


# ---- the Spark Calculation API ------------------------------------------------------------
def _session_status(session: Session) -> Dict[str, Any]:
    return {
        "State": session.state,
        "StateChangeReason": "",
        "StartDateTime": session.created,
        "LastModifiedDateTime": session.created,
    }


def _calc_status(calc: Calculation) -> Dict[str, Any]:
    return {
        "State": calc.state,
        "StateChangeReason": calc.reason,
        "SubmissionDateTime": calc.submitted,
    }


def _execution_role(response: Any, work_group: str) -> str:
    group = response.athena_backend.work_groups.get(work_group)
    return str(
        ((group.configuration or {}) if group is not None else {}).get("ExecutionRole") or ""
    )


def _missing_execution_role(response: Any, work_group: str) -> Optional[str]:
    """Why a Spark session cannot start in ``work_group``: it has no execution role."""
    group = response.athena_backend.work_groups.get(work_group)
    if group is None:
        return None
    config: Mapping[str, Any] = group.configuration or {}
    engine = str((config.get("EngineVersion") or {}).get("SelectedEngineVersion", ""))
    if "spark" in engine.lower() and not config.get("ExecutionRole"):
        return (
            f"Work group {work_group} has no execution role (Configuration.ExecutionRole); "
            "Athena for Apache Spark runs sessions as that role"
        )
    return None


def start_session(backend: EmulatorBackend, response: Any) -> Answer:
    work_group = response._get_param("WorkGroup")
    engine = _engine(response, work_group)
    if engine is None:
        raise invalid_request(f"WorkGroup {work_group} is not found.")
    if not is_spark_engine(engine):
        raise invalid_request(
            f"Work group {work_group} runs Athena SQL ({engine or 'its default engine'}): "
            "sessions start only in an Apache Spark work group (EngineVersion "
            "'PySpark engine version 3')"
        )
    problem = _missing_execution_role(response, work_group)
    if problem:
        raise invalid_request(problem)
    session = backend.calculations.start_session(
        work_group,
        response._get_param("Description") or "",
        response._get_param("EngineConfiguration") or {},
        _execution_role(response, work_group),
    )
    return json.dumps({"SessionId": session.session_id, "State": session.state})


def _session(backend: EmulatorBackend, response: Any) -> Session:
    session = backend.calculations.sessions.get(response._get_param("SessionId"))
    if session is None:
        raise invalid_request("Session not found")
    return session


def _calculation(backend: EmulatorBackend, response: Any) -> Calculation:
    calc = backend.calculations.calculations.get(response._get_param("CalculationExecutionId"))
    if calc is None:
        raise invalid_request("Calculation not found")
    return calc


def get_session_status(backend: EmulatorBackend, response: Any) -> Answer:
    session = _session(backend, response)
    status = _session_status(session)
    if session.state == "CREATING":  # ready from now on
        session.state = "IDLE"
    return json.dumps({"SessionId": session.session_id, "Status": status})


def get_session(backend: EmulatorBackend, response: Any) -> Answer:
    session = _session(backend, response)
    dpu = session_dpu_millis(session, backend.calculations.of_session(session))
    return json.dumps(
        {
            "SessionId": session.session_id,
            "Description": session.description,
            "WorkGroup": session.work_group,
            "EngineVersion": "PySpark engine version 3",
            "EngineConfiguration": session.engine_configuration,
            "SessionConfiguration": {"ExecutionRole": session.execution_role},
            "Status": _session_status(session),
            "Statistics": {"DpuExecutionInMillis": dpu},
        }
    )


def list_sessions(backend: EmulatorBackend, response: Any) -> Answer:
    work_group = response._get_param("WorkGroup")
    if _engine(response, work_group) is None:
        raise invalid_request(f"WorkGroup {work_group} is not found.")
    sessions = [s for s in backend.calculations.sessions.values() if s.work_group == work_group]
    listed = [
        {"SessionId": s.session_id, "Description": s.description, "Status": _session_status(s)}
        for s in sessions
    ]
    return json.dumps({"Sessions": listed})


def terminate_session(backend: EmulatorBackend, response: Any) -> Answer:
    session = _session(backend, response)
    backend.calculations.terminate(session)
    return json.dumps({"State": session.state})


def start_calculation_execution(backend: EmulatorBackend, response: Any) -> Answer:
    session = _session(backend, response)
    if backend.calculations.stopping:
        raise invalid_request("The emulator is stopping")
    if session.state != "IDLE":
        # dbt-athena matches this text to decide to poll until the session is IDLE
        raise invalid_request(
            f"Session is in the {session.state} state; needs to be IDLE to accept Calculations."
        )
    calc = backend.calculations.start_calculation(session, response._get_param("CodeBlock") or "")
    return json.dumps({"CalculationExecutionId": calc.calculation_id, "State": calc.state})


def get_calculation_execution(backend: EmulatorBackend, response: Any) -> Answer:
    calc = _calculation(backend, response)
    prefix = f"s3://{STAGING_BUCKET}/athena-calculations/{calc.session_id}/{calc.calculation_id}"
    if calc.done.is_set():  # as Athena, the stdout of a finished calculation is in S3
        backend.catalog.put_object(f"{prefix}/stdout.txt", calc.stdout.encode())
    session = backend.calculations.sessions.get(calc.session_id)
    engine = session.engine_configuration if session is not None else {}
    return json.dumps(
        {
            "CalculationExecutionId": calc.calculation_id,
            "SessionId": calc.session_id,
            "WorkingDirectory": prefix,
            "Status": _calc_status(calc),
            "Statistics": {
                "DpuExecutionInMillis": calculation_dpu_millis(calc, engine),
                "Progress": calc.state,
            },
            "Result": {
                "StdOutS3Uri": f"{prefix}/stdout.txt",
                "StdErrorS3Uri": f"{prefix}/stderr.txt",
                "ResultS3Uri": f"{prefix}/result.json",
                "ResultType": "application/json",
            },
        }
    )


def get_calculation_execution_status(backend: EmulatorBackend, response: Any) -> Answer:
    calc = _calculation(backend, response)
    return json.dumps({"Status": _calc_status(calc)})


def stop_calculation_execution(backend: EmulatorBackend, response: Any) -> Answer:
    calc = _calculation(backend, response)
    backend.calculations.cancel(calc)
    return json.dumps({"State": calc.state})


def get_query_results(backend: EmulatorBackend, response: Any) -> Optional[Answer]:
    from athena_spark_emulator import sql

    return sql.get_query_results(backend, response)


def start_query_execution(backend: EmulatorBackend, response: Any) -> Optional[Answer]:
    """SQL runs in SQL work groups only (:func:`check_sql_work_group`, at dispatch)."""
    from athena_spark_emulator import sql

    return sql.start_query_request(backend, response)


ATHENA_ACTIONS: Dict[str, Callable[[EmulatorBackend, Any], Optional[Answer]]] = {
    "GetQueryResults": get_query_results,
    "StartQueryExecution": start_query_execution,
    "CreateDataCatalog": create_data_catalog,
    "GetDataCatalog": get_data_catalog,
    "StartSession": start_session,
    "GetSession": get_session,
    "GetSessionStatus": get_session_status,
    "ListSessions": list_sessions,
    "TerminateSession": terminate_session,
    "StartCalculationExecution": start_calculation_execution,
    "GetCalculationExecution": get_calculation_execution,
    "GetCalculationExecutionStatus": get_calculation_execution_status,
    "StopCalculationExecution": stop_calculation_execution,
}


# ---- S3: which API action a REST request is -------------------------------------------------
_BUCKET_SUBRESOURCES = {
    "acl": "BucketAcl",
    "cors": "BucketCors",
    "encryption": "BucketEncryption",
    "lifecycle": "BucketLifecycleConfiguration",
    "location": "BucketLocation",
    "logging": "BucketLogging",
    "notification": "BucketNotificationConfiguration",
    "ownershipControls": "BucketOwnershipControls",
    "policy": "BucketPolicy",
    "policyStatus": "BucketPolicyStatus",
    "publicAccessBlock": "PublicAccessBlock",
    "replication": "BucketReplication",
    "requestPayment": "BucketRequestPayment",
    "tagging": "BucketTagging",
    "versioning": "BucketVersioning",
    "website": "BucketWebsite",
}


def _bucket_action(method: str, query: Mapping[str, Any]) -> str:
    for key, name in _BUCKET_SUBRESOURCES.items():
        if key in query:
            verb = {"GET": "Get", "PUT": "Put", "DELETE": "Delete"}.get(method, method.title())
            return verb + name
    if method == "GET":
        if "uploads" in query:
            return "ListMultipartUploads"
        if "versions" in query:
            return "ListObjectVersions"
        return "ListObjectsV2" if query.get("list-type") == ["2"] else "ListObjects"
    if method == "POST" and "delete" in query:
        return "DeleteObjects"
    return {"HEAD": "HeadBucket", "PUT": "CreateBucket", "DELETE": "DeleteBucket"}.get(
        method, f"{method.title()}Bucket"
    )


def _key_action(method: str, query: Mapping[str, Any], headers: Mapping[str, str]) -> str:
    if "uploadId" in query:
        return {
            "PUT": "UploadPart",
            "POST": "CompleteMultipartUpload",
            "DELETE": "AbortMultipartUpload",
            "GET": "ListParts",
        }.get(method, "UploadPart")
    if method == "POST" and "uploads" in query:
        return "CreateMultipartUpload"
    for key in ("acl", "tagging", "retention", "legal-hold"):
        if key in query:
            suffix = "".join(p.title() for p in key.split("-"))
            return {"GET": "Get", "PUT": "Put", "DELETE": "Delete"}.get(method, "") + (
                "Object" + suffix
            )
    if method == "PUT" and headers.get("x-amz-copy-source"):
        return "CopyObject"
    return {
        "GET": "GetObject",
        "HEAD": "HeadObject",
        "PUT": "PutObject",
        "DELETE": "DeleteObject",
    }.get(method, f"{method.title()}Object")


def s3_action(method: str, path: str, query_string: str, headers: Mapping[str, str]) -> str:
    """The S3 API action of a path-style request, e.g. ``GET /b?list-type=2`` -> ListObjectsV2."""
    query = parse_qs(query_string, keep_blank_values=True)
    parts = unquote(path).lstrip("/").split("/", 1)
    if not parts[0]:
        return "ListBuckets"
    if len(parts) == 1 or not parts[1]:
        return _bucket_action(method, query)
    return _key_action(method, query, headers)


def is_s3_request(environ: Mapping[str, Any]) -> bool:
    """Signed for S3 (SigV4 credential scope ``.../s3/aws4_request``, header or presigned)."""
    scope = environ.get("HTTP_AUTHORIZATION", "") + environ.get("QUERY_STRING", "")
    return "/s3/aws4_request" in scope or "%2Fs3%2Faws4_request" in scope
