"""moto's own WSGI app with IAM enforcement on, behind a thin recording layer.

AccessDenied answers for Athena, STS and S3 (per bucket and per key) come from moto's real
policy evaluation. The layer in front of it

* records every request as ``{"service", "action", "method", "path"}`` (one JSON line per
  request), so a test can prove that only read APIs were called; and
* answers requests that match a *fault rule* (``POST /doctor-api/rules``) with an AWS error
  body. moto does not model the owner account's Glue resource policy (it ignores
  ``CatalogId``) nor requester-pays buckets, so the rules play those parts: e.g.
  ``glue:GetDatabase`` on database ``hr`` is refused exactly as AWS refuses it;
* delays every AWS request by ``POST /doctor-api/latency`` seconds (0 by default), as a
  remote endpoint would, and logs when each request started and ended.

Run as ``python -m tests.doctor_support.server PORT LOG_PATH``.
"""

from __future__ import annotations

import io
import json
import sys
import threading
import time
from typing import Any, Dict, List, Tuple
from urllib.parse import parse_qs

JSON_CONTENT = "application/x-amz-json-1.1"


def _service(environ: Dict[str, Any]) -> str:
    auth = environ.get("HTTP_AUTHORIZATION", "")
    if "Credential=" in auth:
        scope = auth.split("Credential=", 1)[1].split(",", 1)[0].split("/")
        if len(scope) >= 4:
            return scope[3]
    return ""


def _access_key(environ: Dict[str, Any]) -> str:
    return environ.get("HTTP_AUTHORIZATION", "").partition("Credential=")[2].split("/", 1)[0]


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


def _action_and_params(environ: Dict[str, Any], body: bytes) -> Tuple[str, Dict[str, Any]]:
    """The API action of a request and its parameters (JSON body, S3 query or form)."""
    target = environ.get("HTTP_X_AMZ_TARGET", "")
    query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
    if target:
        try:
            return target.rsplit(".", 1)[-1], json.loads(body or b"{}")
        except ValueError:
            return target.rsplit(".", 1)[-1], {}
    if _service(environ) == "s3":
        path = environ.get("PATH_INFO", "")
        action = _s3_action(environ.get("REQUEST_METHOD", ""), path, query)
        bucket = path.lstrip("/").split("/", 1)[0]
        return action, {"Bucket": bucket, **{k: v[0] for k, v in query.items()}}
    form = parse_qs(body.decode("utf-8", "replace")) if body else {}
    action = (form.get("Action") or query.get("Action") or [""])[0]
    return action, {k: v[0] for k, v in form.items()}


def _error(rule: Dict[str, Any], json_protocol: bool) -> Tuple[str, List[Tuple[str, str]], bytes]:
    if json_protocol:  # Athena, Glue
        payload = json.dumps({"__type": rule["code"], "Message": rule["message"]}).encode()
        content_type = JSON_CONTENT
    else:  # query protocol (STS) and S3
        payload = (
            "<ErrorResponse><Error><Type>Sender</Type>"
            f"<Code>{rule['code']}</Code><Message>{rule['message']}</Message>"
            "</Error><RequestId>doctor</RequestId></ErrorResponse>"
        ).encode()
        content_type = "text/xml"
    status = "403 Forbidden" if "AccessDenied" in rule["code"] else "400 Bad Request"
    return status, [("Content-Type", content_type), ("Content-Length", str(len(payload)))], payload


class Recorder:
    """WSGI middleware: record each request, answer fault rules, else pass to moto."""

    def __init__(self, app: Any, log_path: str) -> None:
        self.app, self.log_path = app, log_path
        self.rules: List[Dict[str, Any]] = []
        self.latency = 0.0
        self.lock = threading.Lock()

    def _configure(self, environ: Dict[str, Any], start_response: Any) -> List[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        value = json.loads(environ["wsgi.input"].read(length) or b"null")
        if environ["PATH_INFO"] == "/doctor-api/rules":
            self.rules = value or []
        else:
            self.latency = float(value or 0)
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    @staticmethod
    def _matches(rule: Dict[str, Any], action: str, params: Dict[str, Any], environ: Any) -> bool:
        missing = rule.get("missing_header")
        return (
            rule["action"] == action
            and all(params.get(k) == v for k, v in rule.get("match", {}).items())
            and rule.get("access_key", _access_key(environ)) == _access_key(environ)
            and not (missing and environ.get("HTTP_" + missing.upper().replace("-", "_")))
        )

    def _answer(
        self, environ: Dict[str, Any], start_response: Any, action: str, params: Dict[str, Any]
    ) -> Any:
        for rule in self.rules:
            if self._matches(rule, action, params, environ):
                status, headers, payload = _error(rule, bool(environ.get("HTTP_X_AMZ_TARGET")))
                start_response(status, headers)
                return [payload]
        return self.app(environ, start_response)

    def __call__(self, environ: Dict[str, Any], start_response: Any) -> Any:
        path = environ.get("PATH_INFO", "")
        if path in ("/doctor-api/rules", "/doctor-api/latency"):  # set by the test side
            return self._configure(environ, start_response)
        if path.startswith("/moto-api"):
            return self.app(environ, start_response)
        started = time.time()
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = io.BytesIO(body)
        if self.latency:
            time.sleep(self.latency)
        action, params = _action_and_params(environ, body)
        response = self._answer(environ, start_response, action, params)
        record = {
            "service": _service(environ),
            "action": action,
            "method": environ.get("REQUEST_METHOD", ""),
            "path": path,
            "query": environ.get("QUERY_STRING", ""),
            "params": params if environ.get("HTTP_X_AMZ_TARGET") else {},
            "request_payer": environ.get("HTTP_X_AMZ_REQUEST_PAYER", ""),
            "start": started,
            "end": time.time(),
        }
        with self.lock, open(self.log_path, "a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")
        return response


def serve(port: int, log_path: str) -> None:
    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    app = Recorder(DomainDispatcherApplication(create_backend_app), log_path)
    server = make_server("127.0.0.1", port, app, True, request_handler=MotoRequestHandler)
    server.serve_forever()


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.argv[2])
