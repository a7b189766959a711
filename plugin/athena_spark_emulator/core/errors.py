"""Errors of the emulator: :class:`AwsError` (an AWS API error answer) and the two
writers of AWS error bodies (one per protocol), plus the emulator's own errors (:class:`EmulatorError`).

Code that serves a request *raises* :class:`AwsError` (an injected fault, a refused Glue
``CatalogId``, an unknown session, ...); exactly two places turn it into an HTTP answer:
``responses.dispatch`` for the JSON-protocol services (Athena, Glue) with
:meth:`AwsError.json_answer` and the query-protocol ones (STS, IAM) with
:meth:`AwsError.query_answer`, and the S3 middleware in ``server.py`` with
:meth:`AwsError.s3_answer`. Athena SQL failures are not HTTP errors: a query that cannot
run ends ``FAILED`` (``sql.py``), as on Athena."""

from __future__ import annotations

import json
from typing import Dict, Tuple

from athena_spark_emulator.core.constants import INSTALL_HINT

JSON_CONTENT_TYPE = "application/x-amz-json-1.1"


def aws_error(code: str, message: str, status: int = 400) -> Tuple[int, Dict[str, str], str]:
    """An AWS JSON-protocol error answer (Athena, Glue): ``(status, headers, body)``.

    botocore reads the error code from ``__type`` and the text from ``Message``.
    """
    body = json.dumps({"__type": code, "Message": message})
    return status, {"Content-Type": JSON_CONTENT_TYPE}, body


def s3_error(code: str, message: str) -> Tuple[int, Dict[str, str], str]:
    """An S3 (REST-XML) error answer with the HTTP status S3 uses for ``code``."""
    status = S3_ERROR_STATUS.get(code, 400)
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{_xml_escape(message)}</Message></Error>"
    )
    return status, {"Content-Type": "application/xml"}, body


def query_error(code: str, message: str, status: int = 400) -> Tuple[int, Dict[str, str], str]:
    """An AWS query-protocol error answer (STS, IAM: form-encoded requests, XML answers)."""
    body = (
        "<ErrorResponse><Error><Type>Sender</Type>"
        f"<Code>{code}</Code><Message>{_xml_escape(message)}</Message></Error>"
        "<RequestId>emulator</RequestId></ErrorResponse>"
    )
    return status, {"Content-Type": "text/xml"}, body


S3_ERROR_STATUS = {
    "AccessDenied": 403,
    "NoSuchBucket": 404,
    "NoSuchKey": 404,
    "InternalError": 500,
    "SlowDown": 503,
    "ServiceUnavailable": 503,
}


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class AwsError(Exception):
    """An AWS error answer: ``code`` (``__type`` / S3 ``Code``), ``message`` and, for the
    JSON protocol, the HTTP ``status`` (S3 answers use the status S3 gives ``code``)."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status

    def json_answer(self) -> Tuple[int, Dict[str, str], str]:
        return aws_error(self.code, self.message, self.status)

    def s3_answer(self) -> Tuple[int, Dict[str, str], str]:
        return s3_error(self.code, self.message)

    def query_answer(self) -> Tuple[int, Dict[str, str], str]:
        return query_error(self.code, self.message, self.status)


def invalid_request(message: str) -> AwsError:
    """Athena's ``InvalidRequestException`` (its usual 400 answer)."""
    return AwsError("InvalidRequestException", message)


class EmulatorError(Exception):
    """A problem the user can fix (bad seed, missing Java, missing extra); printed as is."""


class MissingExtra(EmulatorError, ImportError):
    """The ``[emulator]`` extra (moto, pyspark, ...) is not installed."""


def require_extra(module: str) -> None:
    """Raise :class:`MissingExtra` naming the install line when ``module`` is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise MissingExtra(
            f"the Athena-for-Spark emulator needs '{module}', which is not installed. "
            f"Install the emulator extra: {INSTALL_HINT}"
        )


def require_json_athena() -> None:
    """Raise :class:`EmulatorError` when the installed botocore calls Athena over REST-JSON.

    botocore 1.44.18 moved Athena from the JSON protocol (``X-Amz-Target``) to REST-JSON
    (``GET /workgroups``, ...); moto answers only the JSON protocol, so every Athena call
    would end in a bare 404. The ``[emulator]`` extra pins botocore below that release."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("athena")
    if model.protocol != "json":
        import botocore

        raise EmulatorError(
            f"botocore {botocore.__version__} calls Athena over its {model.protocol!r} protocol, "
            "which moto (the emulator's AWS) does not answer: every Athena call would fail with "
            "404. Install a botocore that still speaks Athena's JSON protocol: "
            "pip install 'botocore<1.44.18' (the emulator extra pins it: "
            f"{INSTALL_HINT})"
        )


def require_java() -> str:
    """The Java that PySpark will start (``$JAVA_HOME/bin/java`` or ``java`` on PATH) and
    its version line; :class:`EmulatorError` with what to install when there is none."""
    import os
    import shutil
    import subprocess

    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    where = f"$JAVA_HOME/bin/java ({java})" if home else "`java` on PATH"
    if not java or not os.path.exists(java):
        raise EmulatorError(
            f"--spark runs local PySpark 3.5, which needs Java 17 (or 8/11), but {where} was "
            "not found. Install a JDK (e.g. `apt-get install openjdk-17-jre-headless`) or set "
            "JAVA_HOME; without --spark the emulator runs no Spark (calculations complete "
            "without running)."
        )
    try:
        probe = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except OSError as exc:
        raise EmulatorError(f"{where} cannot run: {exc}") from None
    if probe.returncode != 0:
        raise EmulatorError(f"{where} failed: {(probe.stderr or probe.stdout).strip()[:300]}")
    return (
        (probe.stderr or probe.stdout).strip().splitlines()[0]
        if (probe.stderr or probe.stdout).strip()
        else java
    )
