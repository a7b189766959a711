"""One loopback endpoint that serves every AWS API a ``dbt deps && dbt build`` of an Athena
project calls: moto's server (Athena SQL, work groups, data catalogs, Glue, S3, STS, IAM)
plus the Spark Calculation API (``responses.py``, state in ``calculations.py``).

It counts calls per action, S3 included (``emulator.calls["GetDataCatalog"]``,
``emulator.calls["ListObjectsV2"]``), logs every request (``emulator.requests``), and can
inject latency (per action, or ``"*"`` for all) or AWS errors per action, optionally only
for calls with given parameters, signing key or a missing header. A served emulator offers
the same over HTTP (``control.py``).

Executors: the default ``calculations.completed_without_running`` completes every
calculation without running it; ``Emulator(executor="spark")`` (or
``emulator.using_executor("spark")``) runs the code in real local PySpark over the Glue
catalog of ``catalog.py``. Realism switches, off by default so the instant mode stays
plain moto: ``glue_owner_routing`` (Glue ``CatalogId`` -> the owner's Glue, with grants) and
``session_lifecycle`` (sessions CREATING -> IDLE, BUSY while calculating).
:meth:`Emulator.prepare` creates what a dbt-athena profile needs (buckets, the Spark work
group with its execution role).

    with Emulator(executor="spark") as emu:
        emu.prepare()
        emu.seed("integration_tests/fixtures/two_accounts.yml")
        env = emu.env()   # AWS_ENDPOINT_URL + dummy credentials for dbt

Several emulators can run in one process; each has its own counters, calculations,
grants and warehouse, but moto's AWS resources are shared (see ``backend.py``).
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union
from urllib.parse import parse_qs

from athena_spark_emulator.core.errors import require_extra

require_extra("moto")

import boto3  # noqa: E402
from moto.moto_server.threaded_moto_server import ThreadedMotoServer  # noqa: E402

from athena_spark_emulator import control, hooks, profile, responses  # noqa: E402
from athena_spark_emulator.accounts.catalog import Catalog, TableRef  # noqa: E402
from athena_spark_emulator.backend import Call, EmulatorBackend  # noqa: E402
from athena_spark_emulator.core.constants import (  # noqa: E402
    ACCESS_KEY,
    LOCAL_ACCOUNT,
    REGION,
    SECRET_KEY,
)
from athena_spark_emulator.core.errors import AwsError  # noqa: E402
from athena_spark_emulator.spark import calculations  # noqa: E402

ExecutorSpec = Union[str, calculations.Executor, None]


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


def _remember_backend_per_host(dispatcher: Any) -> None:
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


class _EmulatorApp:
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


class Emulator:
    """Start with ``Emulator().start()``; use as a context manager to stop it."""

    def __init__(
        self,
        port: int = 0,
        executor: ExecutorSpec = None,
        warehouse: Union[str, Path, None] = None,
    ) -> None:
        """``executor``: a callable, ``"spark"`` (real local PySpark, see spark_executor.py)
        or None for ``calculations.completed_without_running`` (nothing runs).
        ``warehouse``: the local directory standing for S3 (default: a temporary one)."""
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
        self._owned: List[Any] = []  # executors this emulator created, closed by stop()
        self.backend = EmulatorBackend(self._make_executor(executor), Catalog(warehouse))
        self.endpoint_url = ""
        self.stop_timeout = 120.0  # seconds stop() waits for running calculations
        self._prepared = False
        self._started = False

    # -- state, kept in the backend --------------------------------------------------
    @property
    def catalog(self) -> Catalog:
        return self.backend.catalog

    @property
    def calls(self) -> Any:
        return self.backend.calls

    @property
    def latency(self) -> Dict[str, float]:
        return self.backend.latency

    @property
    def glue_owner_routing(self) -> bool:
        return self.backend.glue_owner_routing

    @glue_owner_routing.setter
    def glue_owner_routing(self, value: bool) -> None:
        self.backend.glue_owner_routing = bool(value)

    @property
    def session_lifecycle(self) -> bool:
        return self.backend.calculations.session_lifecycle

    @session_lifecycle.setter
    def session_lifecycle(self, value: bool) -> None:
        self.backend.calculations.session_lifecycle = bool(value)

    @property
    def executor(self) -> calculations.Executor:
        return self.backend.executor

    @executor.setter
    def executor(self, value: ExecutorSpec) -> None:
        self.set_executor(value)

    @property
    def submissions(self) -> List[calculations.Calculation]:
        return self.backend.calculations.submissions

    # -- life cycle ----------------------------------------------------------------
    def start(self) -> Emulator:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        hooks.install()
        self._server.start()
        inner = self._server._server  # moto's werkzeug server: put our middleware in front
        _remember_backend_per_host(inner.app)
        inner.app = _EmulatorApp(inner.app, self.backend)
        host, port = self._server.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        self.catalog.endpoint_url = self.endpoint_url
        self._started = True
        return self

    def stop(self) -> None:
        """Stop serving, wait for running calculations, stop Spark, remove the directories.

        A calculation still running after ``stop_timeout`` seconds has its Spark jobs
        cancelled. Spark is stopped only if this emulator started it (``executor="spark"``)
        and no other executor in the process still uses it. Idempotent.
        """
        if not self._started:
            self.catalog.cleanup()
            return
        self._started = False
        store = self.backend.calculations
        store.stopping = True
        try:
            self._server.stop()
            if not store.wait(self.stop_timeout):
                for executor in {id(e): e for e in [self.executor, *self._owned]}.values():
                    cancel = getattr(executor, "cancel", None)
                    if cancel is not None:
                        cancel()
                store.wait(30)
            for executor in self._owned:
                executor.close()
            self._owned.clear()
        finally:
            hooks.uninstall()
            self.catalog.cleanup()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def reset(self) -> None:
        """Forget all AWS state (moto's, process-wide, and the local files standing for S3
        objects), counters, faults, grants, latency, sessions and calculations.

        What :meth:`prepare` created is created again if it had been called.
        """
        import requests

        requests.post(f"{self.endpoint_url}/moto-api/reset", timeout=30)
        self.backend.reset()
        self.catalog.forget_files()
        if self._prepared:
            self.prepare()

    def prepare(self, **overrides: Any) -> Emulator:
        """Create the buckets, the Spark work group (with its execution role) and the IAM
        role that a dbt-athena profile needs (see ``profile.prepare``). Idempotent."""
        profile.prepare(self, **overrides)
        self._prepared = True
        return self

    # -- executors --------------------------------------------------------------------
    def _make_executor(self, executor: ExecutorSpec) -> calculations.Executor:
        if executor is None or executor == "instant":
            return calculations.completed_without_running
        if executor == "spark":
            from athena_spark_emulator.spark.executor import SparkExecutor

            created = SparkExecutor()
            self._owned.append(created)
            return created
        if isinstance(executor, str):
            raise ValueError(f"unknown executor {executor!r}: use 'instant', 'spark' or a callable")
        return executor

    def set_executor(self, executor: ExecutorSpec) -> calculations.Executor:
        """Switch the executor of new calculations; returns the previous one."""
        previous = self.backend.executor
        self.backend.executor = self._make_executor(executor)
        return previous

    @contextlib.contextmanager
    def using_executor(self, executor: ExecutorSpec) -> Iterator[calculations.Executor]:
        """``with emulator.using_executor("spark"):`` ... then the previous executor again."""
        previous = self.set_executor(executor)
        try:
            yield self.executor
        finally:
            self.set_executor(previous)

    def start_spark(self) -> None:
        """Start the Spark executor's session now rather than on the first calculation."""
        warm = getattr(self.executor, "start", None)
        if warm is not None:
            warm()

    # -- seeding --------------------------------------------------------------------
    def register_data_catalog(
        self, name: str, catalog_type: str = "GLUE", parameters: Optional[Dict[str, str]] = None
    ) -> None:
        """Create (or replace) an Athena data catalog in the local account.

        Goes through the real CreateDataCatalog API (counted in ``calls``). The name is
        stored in lower case, as Athena stores it. moto has no UpdateDataCatalog, so an
        existing entry is dropped from moto's backend first.
        """
        from moto.athena.models import athena_backends

        athena_backends[LOCAL_ACCOUNT][REGION].data_catalogs.pop(name.lower(), None)
        kwargs: Dict[str, Any] = {"Name": name, "Type": catalog_type}
        if parameters is not None:
            kwargs["Parameters"] = parameters
        self.client("athena").create_data_catalog(**kwargs)

    def seed(self, spec: Union[str, Path, Dict[str, Any]]) -> Dict[str, Any]:
        """Apply a seed file or dict (see seed.py); returns the spec applied."""
        from athena_spark_emulator.accounts import seed

        return seed.apply(self, spec)

    # -- counting and faults ---------------------------------------------------
    def reset_counters(self) -> None:
        with self.backend.lock:
            self.backend.calls.clear()

    def inject_error(
        self,
        action: str,
        code: str,
        message: str = "",
        times: Optional[int] = 1,
        match: Optional[Dict[str, Any]] = None,
        access_key: Optional[str] = None,
        missing_header: Optional[str] = None,
    ) -> None:
        """Answer the next ``times`` calls of ``action`` (None: every call) with AWS error
        ``code``, in the request's protocol (S3 and STS too). With ``match`` only the calls
        whose parameters include it (``{"Name": "hr"}``; for S3 ``Bucket`` and the query,
        e.g. ``prefix``), with ``access_key`` only the calls signed with that key, with
        ``missing_header`` only the calls without that header."""
        self.backend.inject(action, code, message, times, match, access_key, missing_header)

    @property
    def requests(self) -> List[Dict[str, Any]]:
        """The request log: every request served (the newest ``REQUEST_LOG_SIZE``), oldest first, as
        ``{service, action, method, path, query, params, request_payer, access_key, start,
        end}``. ``clear_requests()`` empties it; ``reset()`` does too."""
        return self.backend.request_log()

    def clear_requests(self) -> None:
        self.backend.clear_requests()

    def clear_faults(self) -> None:
        """Forget the injected errors not yet answered (``inject_error``)."""
        self.backend.clear_faults()

    # -- clients, environment, dbt --------------------------------------------------
    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            region_name=REGION,
            endpoint_url=self.endpoint_url,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
        )

    def env(self) -> Dict[str, str]:
        """Environment variables that point boto3 (and so dbt) at this emulator."""
        return profile.emulator_env(self.endpoint_url)

    def dbt(
        self,
        args: Sequence[str],
        project_dir: Union[str, Path],
        profiles_dir: Union[str, Path, None] = None,
        env: Optional[Dict[str, str]] = None,
        timeout: int = 900,
    ) -> subprocess.CompletedProcess:
        """Run the real ``dbt ARGS`` CLI against this emulator (output captured).

        ``profiles_dir`` defaults to ``project_dir``; its profile reads the endpoint and
        credentials from ``env_var()`` as integration_tests/profiles.yml does.
        """
        project = Path(project_dir)
        return profile.dbt_cli(
            list(args),
            project,
            Path(profiles_dir) if profiles_dir is not None else project,
            {**self.env(), **(env or {})},
            timeout=timeout,
        )

    def rows(
        self, schema: str, table: str, account: str = LOCAL_ACCOUNT, order_by: Optional[str] = None
    ) -> List[Dict[str, Any]]:
        """The rows of ``account``'s Glue table ``schema.table``, read with local Spark."""
        from athena_spark_emulator.spark.executor import read_rows

        return read_rows(TableRef(account, schema.lower(), table.lower()), self.catalog, order_by)

    def wait_idle(self, timeout: float = 60) -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if all(c.done.is_set() for c in self.submissions):
                return
            time.sleep(0.05)
