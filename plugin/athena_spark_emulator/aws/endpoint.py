"""The emulator's HTTP endpoint: WSGI middleware in front of moto's app.

Each request is bound to its emulator (``backend.serving``), logged and counted; S3
requests, which bypass moto's ``call_action``, are counted, delayed or failed here; the
control API answers under ``/_emulator/`` (``control.py``); and with ``--data-dir`` a change
that could not be saved is answered with a 500 in its protocol (``accounts/persistence.py``).
:class:`athena_spark_emulator.Emulator` puts :class:`EmulatorApp` in front of moto's server.
"""

from __future__ import annotations

import time
from http import HTTPStatus
from typing import Any, Dict, List
from urllib.parse import parse_qs

from athena_spark_emulator.aws import control, responses
from athena_spark_emulator.aws.backend import Call, EmulatorBackend
from athena_spark_emulator.core.errors import AwsError

CONTROL_PATH = "/_emulator/"


def _credential_scope(environ: Dict[str, Any]) -> List[str]:
    """``[access key, date, region, service, "aws4_request"]`` of a SigV4-signed request."""
    auth = environ.get("HTTP_AUTHORIZATION", "")
    return auth.partition("Credential=")[2].split(",", 1)[0].split("/")


def _call(environ: Dict[str, Any]) -> Call:
    scope = _credential_scope(environ)
    return Call(
        service=scope[3] if len(scope) > 3 else "",
        method=environ.get("REQUEST_METHOD", ""),
        path=environ.get("PATH_INFO", ""),
        query=environ.get("QUERY_STRING", ""),
        headers={
            k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")
        },
        access_key=scope[0],
        start=time.time(),
    )


def remember_backend_per_host(dispatcher: Any) -> None:
    """moto's dispatcher finds each request's service by matching its host against the URL
    patterns of every service (hundreds of regular expressions); the answer for a host never
    changes, so it is looked up once (3.8 of 97 CPU s over tests/functional/test_dbt_run.py).
    moto calls it under its own lock."""
    lookup = dispatcher.get_backend_for_host
    found: Dict[Any, Any] = {}

    def get_backend_for_host(host: Any) -> Any:
        if host not in found:
            found[host] = lookup(host)
        return found[host]

    dispatcher.get_backend_for_host = get_backend_for_host


def _changes(environ: Dict[str, Any]) -> bool:
    """Whether a request may change state (anything but S3 GET/HEAD and Get/List/Describe)."""
    if responses.is_s3_request(environ):
        return environ.get("REQUEST_METHOD", "") not in ("GET", "HEAD")
    operation = environ.get("HTTP_X_AMZ_TARGET", "").rpartition(".")[2]
    return not operation.startswith(("Get", "List", "Describe", "BatchGet", "Search"))


def _not_saved(environ: Dict[str, Any], failure: str) -> Any:
    """The answer to a request whose change could not be saved, in its protocol (500)."""
    if responses.is_s3_request(environ):
        return AwsError("InternalError", failure).s3_answer()
    error = AwsError("InternalFailure", failure, 500)
    return error.json_answer() if environ.get("HTTP_X_AMZ_TARGET") else error.query_answer()


class EmulatorApp:
    """WSGI middleware in front of moto's app: binds each request to its emulator, logs it,
    counts (and delays, or fails) S3 requests, which bypass moto's ``call_action``, and
    answers the control API under ``/_emulator/`` (``control.py``)."""

    def __init__(self, app: Any, backend: EmulatorBackend) -> None:
        self.app = app
        self.backend = backend

    def __call__(self, environ: Dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO", "").startswith(CONTROL_PATH):
            return self._answer(control.answer(self.backend, environ), start_response)
        with self.backend.serving(_call(environ)) as call:
            store = self.backend.persistence
            # while saving fails, changes wait for a save that succeeds
            if store is not None and store.failure and _changes(environ) and store.checkpoint():
                return self._answer(_not_saved(environ, store.failure), start_response)
            if responses.is_s3_request(environ):
                answer = self._s3(call)
                if answer is not None:
                    return self._answer(answer, start_response)
            body = self.app(environ, start_response)
            failure = store.checkpoint() if store is not None else None
            if failure is None:  # what the answer says is on disk (persistence.py)
                return body
            getattr(body, "close", lambda: None)()
            status, headers, text = _not_saved(environ, failure)
            error = AwsError("InternalFailure", failure)
            start_response(
                f"{status} {HTTPStatus(status).phrase}",
                list(headers.items()),
                (AwsError, error, None),
            )
            return [text.encode("utf-8")]

    @staticmethod
    def _answer(answer: Any, start_response: Any) -> List[bytes]:
        status, headers, body = answer
        start_response(f"{status} {HTTPStatus(status).phrase}", list(headers.items()))
        return [body.encode("utf-8")]

    def _s3(self, call: Call) -> Any:
        action = responses.s3_action(call.method, call.path, call.query, call.headers)
        bucket = call.path.lstrip("/").split("/", 1)[0]
        params = {k: v[0] for k, v in parse_qs(call.query, keep_blank_values=True).items()}
        try:
            self.backend.before_call(action, {"Bucket": bucket, **params})
        except AwsError as error:  # the one place S3 errors are written
            return error.s3_answer()
        return None
