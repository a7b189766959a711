"""The process-wide hooks into moto, installed while at least one emulator runs.

moto's classes are shared by the whole process, so the hooks are installed once (reference
counted) and each one asks :func:`athena_spark_emulator.backend.current` which emulator the
request belongs to. A request that no emulator serves (moto's ``mock_aws`` in the same
process, for example) gets moto's behaviour unchanged.

* ``BaseResponse.call_action``: every JSON/query-protocol request (Athena, Glue, STS, IAM)
  goes through :func:`athena_spark_emulator.responses.dispatch`.
* ``AthenaBackend.start_query_execution`` / ``AthenaResponse.get_query_execution``: every
  Athena SQL statement is run (``sql/``).
* ``S3Backend.delete_object``: deleting an object (dbt-athena deletes a table location's
  objects before it rebuilds or drops the table) removes the local file standing for it,
  so the warehouse directory holds exactly what Glue points to (with ``--data-dir``, a
  file a table of the saved state still points at is kept aside until none does:
  ``persistence.Store.remove``).
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


def _delete_object(self: Any, bucket_name: str, key_name: str, *args: Any, **kwargs: Any) -> Any:
    answer = _ORIGINALS["delete_object"](self, bucket_name, key_name, *args, **kwargs)
    backend = backend_module.current()
    if backend is not None and backend.persistence is not None:
        backend.persistence.remove(bucket_name, key_name)  # kept while a table points at it
    elif backend is not None:
        backend.catalog.remove_local(bucket_name, key_name)
    return answer


def install() -> None:
    global _INSTALLED
    from moto.athena.models import AthenaBackend
    from moto.athena.responses import AthenaResponse
    from moto.core.responses import BaseResponse
    from moto.s3.models import S3Backend

    with _LOCK:
        if _INSTALLED == 0:
            _ORIGINALS["delete_object"] = S3Backend.delete_object
            S3Backend.delete_object = _delete_object  # type: ignore[method-assign]
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
    from moto.s3.models import S3Backend

    with _LOCK:
        if _INSTALLED == 0:
            return
        _INSTALLED -= 1
        if _INSTALLED == 0:
            S3Backend.delete_object = _ORIGINALS.pop("delete_object")  # type: ignore[method-assign]
            BaseResponse.call_action = _ORIGINALS.pop("call_action")  # type: ignore[method-assign]
            AthenaBackend.start_query_execution = _ORIGINALS.pop("start_query_execution")  # type: ignore[method-assign]
            AthenaResponse.get_query_execution = _ORIGINALS.pop("get_query_execution")  # type: ignore[method-assign]
