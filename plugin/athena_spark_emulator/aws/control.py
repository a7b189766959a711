"""The emulator's control API: what a test sets and reads over HTTP when the emulator runs
in another process (``athena-spark-emulator serve``). Answered by the middleware of
``server.py`` under ``/_emulator/``, before any AWS handling (never logged, never refused):

* ``GET /_emulator/requests``: the request log (JSON list, oldest first);
  ``DELETE``: empty it.
* ``POST /_emulator/faults``: add faults, a JSON list of ``{"action", "code", "message",
  "times" (absent or null: every call), "match", "access_key", "missing_header"}`` (see
  ``Emulator.inject_error``); ``DELETE``: forget them.
* ``PUT /_emulator/latency``: ``{"ACTION" or "*": seconds}`` replaces the injected
  latency; ``GET`` reads it.
* ``PUT /_emulator/iam``: ``{"enforce": true}`` makes moto check every following AWS
  request against the signing IAM user's policies (``false``: stop). It is moto's
  process-wide switch (``INITIAL_NO_AUTH_ACTION_COUNT``, as ``/moto-api/reset-auth``):
  use it on an emulator that has its process to itself.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Tuple

from athena_spark_emulator.backend import EmulatorBackend

Answer = Tuple[int, Dict[str, str], str]
JSON = {"Content-Type": "application/json"}


def _ok(value: Any = None) -> Answer:
    return 200, JSON, json.dumps(value)


def enforce_iam(enforce: bool) -> None:
    """moto's IAM enforcement on (every following request) or off, process-wide."""
    from moto import settings
    from moto.core.responses import ActionAuthenticatorMixin

    settings.INITIAL_NO_AUTH_ACTION_COUNT = 0 if enforce else float("inf")
    ActionAuthenticatorMixin.request_count = 0


def _requests(backend: EmulatorBackend, method: str, body: Any) -> Answer:
    if method == "DELETE":
        backend.clear_requests()
        return _ok()
    return _ok(backend.request_log())


def _faults(backend: EmulatorBackend, method: str, body: Any) -> Answer:
    if method == "DELETE":
        backend.clear_faults()
        return _ok()
    if not isinstance(body, list) or not all(
        isinstance(f, dict) and {"action", "code"} <= set(f) for f in body
    ):
        raise ValueError('POST /_emulator/faults takes a JSON list of {"action", "code", ...}')
    for fault in body:
        backend.inject(
            fault["action"],
            fault["code"],
            fault.get("message") or "",
            fault.get("times"),
            fault.get("match"),
            fault.get("access_key"),
            fault.get("missing_header"),
        )
    return _ok()


def _latency(backend: EmulatorBackend, method: str, body: Any) -> Answer:
    if method == "PUT":
        if not isinstance(body, dict):
            raise ValueError('PUT /_emulator/latency takes {"ACTION" or "*": seconds}')
        backend.latency.clear()
        backend.latency.update({str(k): float(v) for k, v in body.items()})
    return _ok(dict(backend.latency))


def _iam(backend: EmulatorBackend, method: str, body: Any) -> Answer:
    if not isinstance(body, dict) or not isinstance(body.get("enforce"), bool):
        raise ValueError('PUT /_emulator/iam takes {"enforce": true} or {"enforce": false}')
    enforce_iam(body["enforce"])
    return _ok()


ROUTES: Dict[str, Callable[[EmulatorBackend, str, Any], Answer]] = {
    "requests": _requests,
    "faults": _faults,
    "latency": _latency,
    "iam": _iam,
}


def answer(backend: EmulatorBackend, environ: Dict[str, Any]) -> Answer:
    """The answer to one control request (400 naming what is wrong with a bad one)."""
    name = environ.get("PATH_INFO", "").split("/_emulator/", 1)[1].strip("/")
    route = ROUTES.get(name)
    if route is None:
        return (
            404,
            JSON,
            json.dumps({"error": f"no /_emulator/{name}: use one of {sorted(ROUTES)}"}),
        )
    length = int(environ.get("CONTENT_LENGTH") or 0)
    raw = environ["wsgi.input"].read(length) if length else b""
    try:
        return route(backend, environ.get("REQUEST_METHOD", "GET"), json.loads(raw or b"null"))
    except ValueError as error:  # a bad JSON body, or the wrong shape
        return 400, JSON, json.dumps({"error": str(error)})
