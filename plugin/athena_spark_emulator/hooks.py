"""The process-wide hooks into moto, installed while at least one emulator runs.

moto's classes are shared by the whole process, so the hooks are installed once (reference
counted) and each one asks :func:`athena_spark_emulator.backend.current` which emulator the
request belongs to. A request that no emulator serves (moto's ``mock_aws`` in the same
process, for example) gets moto's behaviour unchanged.

* ``BaseResponse.call_action``: every JSON/query-protocol request (Athena, Glue, STS, IAM)
  goes through :func:`athena_spark_emulator.responses.dispatch`.
* ``AthenaBackend.start_query_execution`` / ``AthenaResponse.get_query_execution``: the
  Athena SQL that dbt-athena's materializations need is applied to Glue (``sql.py``).
"""

from __future__ import annotations

import threading
from typing import Any, Dict

from athena_spark_emulator import backend as backend_module
from athena_spark_emulator import responses, sql

_LOCK = threading.Lock()
_INSTALLED = 0
_ORIGINALS: Dict[str, Any] = {}


def _call_action(self: Any) -> Any:
    original = _ORIGINALS["call_action"]
    backend = backend_module.current()
    if backend is None:
        return original(self)
    return responses.dispatch(backend, self, lambda: original(self))


def _start_query_execution(self: Any, query: str, *args: Any, **kwargs: Any) -> str:
    return sql.start_query_execution(
        _ORIGINALS["start_query_execution"], self, query, *args, **kwargs
    )


def _get_query_execution(self: Any) -> Any:
    return sql.get_query_execution(_ORIGINALS["get_query_execution"], self)


def install() -> None:
    global _INSTALLED
    from moto.athena.models import AthenaBackend
    from moto.athena.responses import AthenaResponse
    from moto.core.responses import BaseResponse

    with _LOCK:
        if _INSTALLED == 0:
            _ORIGINALS["call_action"] = BaseResponse.call_action
            _ORIGINALS["start_query_execution"] = AthenaBackend.start_query_execution
            _ORIGINALS["get_query_execution"] = AthenaResponse.get_query_execution
            BaseResponse.call_action = _call_action  # type: ignore[method-assign]
            AthenaBackend.start_query_execution = _start_query_execution  # type: ignore[method-assign]
            AthenaResponse.get_query_execution = _get_query_execution  # type: ignore[method-assign]
        _INSTALLED += 1


def uninstall() -> None:
    global _INSTALLED
    from moto.athena.models import AthenaBackend
    from moto.athena.responses import AthenaResponse
    from moto.core.responses import BaseResponse

    with _LOCK:
        if _INSTALLED == 0:
            return
        _INSTALLED -= 1
        if _INSTALLED == 0:
            BaseResponse.call_action = _ORIGINALS.pop("call_action")  # type: ignore[method-assign]
            AthenaBackend.start_query_execution = _ORIGINALS.pop("start_query_execution")  # type: ignore[method-assign]
            AthenaResponse.get_query_execution = _ORIGINALS.pop("get_query_execution")  # type: ignore[method-assign]
