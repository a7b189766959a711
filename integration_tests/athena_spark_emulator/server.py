"""One loopback endpoint that serves every AWS API a ``dbt deps && dbt run`` of an Athena
project calls: moto's server (Athena SQL, work groups, data catalogs, Glue, S3, STS) plus
the Spark Calculation API from ``calculations.py``.

It also counts calls per action (``emulator.calls["GetDataCatalog"]``) and can inject
latency or AWS errors per action, for tests and benchmarks.

Executors: the default ``calculations.completed_without_running`` completes every
calculation without running it; ``Emulator(executor="spark")`` (or
``emulator.using_executor("spark")``) runs the code in real local PySpark over the Glue
catalog of ``catalog.py``. Realism switches, off by default so the instant mode stays
plain moto: ``glue_owner_routing`` (Glue ``CatalogId`` -> the owner's Glue, with grants) and
``session_lifecycle`` (sessions CREATING -> IDLE, BUSY while calculating).

    with Emulator(executor="spark") as emu:
        emu.seed("integration_tests/fixtures/two_accounts.yml")
        env = emu.env()   # AWS_ENDPOINT_URL + dummy credentials for dbt
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Union

import boto3
from moto.core.responses import BaseResponse
from moto.moto_server.threaded_moto_server import ThreadedMotoServer

from athena_spark_emulator import calculations, sql
from athena_spark_emulator import catalog as catalog_module
from athena_spark_emulator.catalog import LOCAL_ACCOUNT, REGION, Catalog

_original_call_action = BaseResponse.call_action
_ACTIVE: Optional[Emulator] = None


class _Fault:
    def __init__(self, code: str, message: str, times: int) -> None:
        self.code, self.message, self.times = code, message, times


def _recording_call_action(self: BaseResponse) -> Any:
    emulator = _ACTIVE
    if emulator is None:
        return _original_call_action(self)
    action = self._get_action()
    if emulator.glue_owner_routing and getattr(self, "service_name", "") == "glue":
        denied = emulator._route_glue_catalog_id(self, action)
        if denied is not None:
            emulator.calls[action] += 1
            return denied
    return emulator._handle(action, lambda: _original_call_action(self))


class Emulator:
    """Start with ``Emulator().start()``; use as a context manager to stop it."""

    def __init__(
        self,
        port: int = 0,
        executor: Union[str, calculations.Executor, None] = None,
        warehouse: Union[str, Path, None] = None,
    ) -> None:
        """``executor``: a callable, ``"spark"`` (real local PySpark, see spark_executor.py)
        or None for ``calculations.completed_without_running`` (nothing runs).
        ``warehouse``: the local directory standing for S3 (default: a temporary one)."""
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        self.executor = self._make_executor(executor)
        self.catalog = Catalog(warehouse)
        # Glue API calls with CatalogId=<owner> go to the owner's Glue (moto ignores
        # CatalogId), refused unless the owner granted the caller. Off by default so the
        # instant mode stays plain moto; the demo and the Spark tests turn it on.
        self.glue_owner_routing = False
        # Athena's session life cycle (CREATING -> IDLE, BUSY while calculating); see
        # calculations.CalculationStore. Off by default; the demo and Spark tests turn it on.
        self._session_lifecycle = False
        self.calls: collections.Counter = collections.Counter()
        self.latency: Dict[str, float] = {}
        self._faults: Dict[str, List[_Fault]] = collections.defaultdict(list)
        self._lock = threading.Lock()
        self.endpoint_url = ""

    # -- life cycle ----------------------------------------------------------------
    def start(self) -> Emulator:
        global _ACTIVE
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        calculations.install()
        sql.install()
        calculations.STORE.__init__(self.executor)  # fresh sessions for this emulator
        calculations.STORE.session_lifecycle = self._session_lifecycle
        catalog_module.CATALOG = self.catalog
        BaseResponse.call_action = _recording_call_action  # type: ignore[method-assign]
        self._server.start()
        host, port = self._server.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        _ACTIVE = self
        return self

    def stop(self) -> None:
        global _ACTIVE
        self._server.stop()
        if _ACTIVE is self or _ACTIVE is None:  # another emulator started since keeps its hooks
            _ACTIVE = None
            BaseResponse.call_action = _original_call_action  # type: ignore[method-assign]
            sql.uninstall()
        self.catalog.cleanup()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget all AWS state, counters, faults and calculations."""
        import requests

        requests.post(f"{self.endpoint_url}/moto-api/reset", timeout=30)
        calculations.STORE.__init__(self.executor)
        calculations.STORE.session_lifecycle = self._session_lifecycle
        self.catalog.grants.clear()
        self.reset_counters()
        self.latency.clear()
        self._faults.clear()

    @property
    def session_lifecycle(self) -> bool:
        return self._session_lifecycle

    @session_lifecycle.setter
    def session_lifecycle(self, value: bool) -> None:
        self._session_lifecycle = bool(value)
        calculations.STORE.session_lifecycle = self._session_lifecycle

    # -- executors --------------------------------------------------------------------
    @staticmethod
    def _make_executor(executor: Union[str, calculations.Executor, None]) -> calculations.Executor:
        if executor is None or executor == "instant":
            return calculations.completed_without_running
        if executor == "spark":
            from athena_spark_emulator.spark_executor import SparkExecutor

            return SparkExecutor()
        if isinstance(executor, str):
            raise ValueError(f"unknown executor {executor!r}: use 'instant', 'spark' or a callable")
        return executor

    def set_executor(
        self, executor: Union[str, calculations.Executor, None]
    ) -> calculations.Executor:
        """Switch the executor of new calculations; returns the previous one."""
        previous = self.executor
        self.executor = self._make_executor(executor)
        calculations.STORE.executor = self.executor
        return previous

    @contextlib.contextmanager
    def using_executor(
        self, executor: Union[str, calculations.Executor, None]
    ) -> Iterator[calculations.Executor]:
        """``with emulator.using_executor("spark"):`` ... then the previous executor again."""
        previous = self.set_executor(executor)
        try:
            yield self.executor
        finally:
            self.set_executor(previous)

    # -- seeding --------------------------------------------------------------------
    def register_data_catalog(
        self, name: str, catalog_type: str = "GLUE", parameters: Optional[Dict[str, str]] = None
    ) -> None:
        """Create (or replace) an Athena data catalog in the local account.

        Goes through the real CreateDataCatalog API (counted in ``calls``); moto has no
        UpdateDataCatalog, so an existing entry is dropped from moto's backend first.
        """
        from moto.athena.models import athena_backends

        athena_backends[LOCAL_ACCOUNT][REGION].data_catalogs.pop(name, None)
        kwargs: Dict[str, Any] = {"Name": name, "Type": catalog_type}
        if parameters is not None:
            kwargs["Parameters"] = parameters
        self.client("athena").create_data_catalog(**kwargs)

    def seed(self, spec: Union[str, Path, Dict[str, Any]]) -> Dict[str, Any]:
        """Apply a seed file or dict (see seed.py); returns the spec applied."""
        from athena_spark_emulator import seed

        return seed.apply(self, spec)

    # -- counting and faults ---------------------------------------------------
    def reset_counters(self) -> None:
        with self._lock:
            self.calls.clear()

    def inject_error(self, action: str, code: str, message: str = "", times: int = 1) -> None:
        """Answer the next ``times`` calls of ``action`` with AWS error ``code``."""
        with self._lock:
            self._faults[action].append(_Fault(code, message or f"{code} (injected)", times))

    def _handle(self, action: str, call: Any) -> Any:
        with self._lock:
            self.calls[action] += 1
            fault = None
            queue = self._faults.get(action)
            if queue:
                fault = queue[0]
                fault.times -= 1
                if fault.times <= 0:
                    queue.pop(0)
        delay = self.latency.get(action, 0.0)
        if delay:
            time.sleep(delay)
        if fault is not None:
            body = json.dumps({"__type": fault.code, "Message": fault.message})
            return 400, {"Content-Type": "application/x-amz-json-1.1"}, body
        return call()

    def _route_glue_catalog_id(self, response: BaseResponse, action: str) -> Any:
        """Point a Glue request at ``CatalogId``'s account, or answer AccessDenied."""
        try:
            catalog_id = response._get_param("CatalogId")
        except Exception:  # a body that is not JSON: leave it to moto
            return None
        caller = response.current_account
        if not catalog_id or catalog_id == caller or not str(catalog_id).isdigit():
            return None
        if caller not in self.catalog.grants.get(str(catalog_id), set()):
            message = (
                f"User: arn:aws:sts::{caller}:assumed-role/dbt/dbt-athena "
                "is not authorized to perform: "
                f"glue:{action} on resource: arn:aws:glue:{REGION}:{catalog_id}:catalog "
                "because no resource-based policy allows the glue:" + action + " action"
            )
            body = json.dumps({"__type": "AccessDeniedException", "Message": message})
            return 400, {"Content-Type": "application/x-amz-json-1.1"}, body
        response.current_account = str(catalog_id)
        return None

    @property
    def submissions(self) -> List[calculations.Calculation]:
        return calculations.STORE.submissions

    # -- clients and environment ------------------------------------------------------
    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            region_name=REGION,
            endpoint_url=self.endpoint_url,
            aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )

    def env(self) -> Dict[str, str]:
        """Environment variables that point boto3 (and so dbt) at this emulator."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": REGION,
            "AWS_REGION": REGION,
        }

    def wait_idle(self, timeout: float = 60) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if all(c.done.is_set() for c in self.submissions):
                return
            time.sleep(0.05)

