"""The state of one emulator, in one object (moto's pattern: state in backends).

:class:`EmulatorBackend` holds everything an :class:`~athena_spark_emulator.Emulator`
knows beyond moto's own backends: call counters, the request log, injected latency and
faults, the
realism switches, the Spark sessions and calculations, the Glue catalog's accounts and
grants, and the log of the Athena SQL applied to Glue. ``reset()`` forgets it.

Which emulator a piece of code works for is the thread's *current* backend: the request
thread of each emulator's HTTP server and each of its calculation threads are bound to it
(:meth:`EmulatorBackend.bound`), so several emulators can run in one process. Code outside
those threads is given the backend (or its catalog) explicitly; there is no "most recently
started emulator". moto's own
backends (S3 buckets, Glue tables, work groups, ...) are process-wide, as in moto: two
emulators in one process see the same AWS resources.
"""

from __future__ import annotations

import collections
import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Deque, Dict, Iterator, List, Optional, Set

from athena_spark_emulator.accounts.catalog import Catalog
from athena_spark_emulator.core import context
from athena_spark_emulator.core.errors import AwsError
from athena_spark_emulator.spark.calculations import CalculationStore, Executor

REQUEST_LOG_SIZE = 20000


@dataclass
class Call:
    """One request an emulator served, as its request log keeps it (see :attr:`requests`).

    ``action`` and ``params`` (a JSON body, a query-protocol form, or an S3 request's
    ``Bucket`` plus its query) are filled in by whoever names the action (``dispatch`` or
    the S3 middleware); ``end`` when the answer is written."""

    service: str
    method: str
    path: str
    query: str
    headers: Dict[str, str]  # lower-case names
    access_key: str
    start: float
    action: str = ""
    params: Dict[str, Any] = field(default_factory=dict)
    end: float = 0.0

    def record(self) -> Dict[str, Any]:
        logged = {name: getattr(self, name) for name in LOGGED}
        return {**logged, "request_payer": self.headers.get("x-amz-request-payer", "")}


LOGGED = ("service", "action", "method", "path", "query", "params", "access_key", "start", "end")


@dataclass
class Fault:
    """An injected error: the answer to the calls of one action that match.

    ``times``: how many matching calls it answers (None: every one). A call matches when its
    parameters include ``match``, it was signed with ``access_key`` (if given), and it lacks
    the header ``missing_header`` (if given, e.g. ``x-amz-request-payer``)."""

    code: str
    message: str
    times: Optional[int]
    match: Dict[str, Any] = field(default_factory=dict)
    access_key: Optional[str] = None
    missing_header: Optional[str] = None

    def matches(self, call: Optional[Call]) -> bool:
        if not (self.match or self.access_key or self.missing_header):
            return True
        if call is None:
            return False
        return (
            all(call.params.get(k) == v for k, v in self.match.items())
            and self.access_key in (None, call.access_key)
            and not (self.missing_header and call.headers.get(self.missing_header.lower()))
        )

    def status(self) -> int:
        return 403 if "AccessDenied" in self.code else 400


@dataclass
class SqlLog:
    """The Athena SQL an emulator ran (see sql/execution.py)."""

    failures: Dict[str, str] = field(default_factory=dict)  # query execution id -> reason
    outcomes: Dict[str, Any] = field(default_factory=dict)  # id -> sql.statements.Outcome
    applied: List[str] = field(default_factory=list)  # statements that succeeded, in order
    seen: List[str] = field(default_factory=list)  # every statement seen
    tokens: Dict[str, str] = field(default_factory=dict)  # ClientRequestToken -> id
    running: Set[str] = field(default_factory=set)  # ids of statements being run
    millis: Dict[str, int] = field(default_factory=dict)  # id -> parse + run, milliseconds

    def reset(self) -> None:
        self.failures.clear()
        self.outcomes.clear()
        self.applied.clear()
        self.seen.clear()
        self.tokens.clear()
        self.running.clear()
        self.millis.clear()


class EmulatorBackend:
    def __init__(self, executor: Executor, catalog: Catalog) -> None:
        self.catalog = catalog
        self.calculations = CalculationStore(executor, bind=self.bound)
        self.sql = SqlLog()
        self.calls: collections.Counter = collections.Counter()
        self.latency: Dict[str, float] = {}
        self.faults: Dict[str, List[Fault]] = collections.defaultdict(list)
        # every request served (the newest REQUEST_LOG_SIZE), as Call objects
        self.requests: Deque[Call] = collections.deque(maxlen=REQUEST_LOG_SIZE)
        self.lock = threading.Lock()
        # Glue API calls with CatalogId=<owner> go to the owner's Glue (moto ignores
        # CatalogId), refused unless the owner granted the caller.
        self.glue_owner_routing = False
        # --data-dir: the durable store (persistence.Store), checkpointed after each request
        self.persistence: Optional[Any] = None

    @property
    def executor(self) -> Executor:
        return self.calculations.executor

    @executor.setter
    def executor(self, value: Executor) -> None:
        self.calculations.executor = value

    def reset(self) -> None:
        """Forget counters, faults, latency, sessions, calculations, grants, roles and the SQL log."""
        self.calculations.reset()
        self.catalog.grants.clear()
        self.catalog.roles.clear()
        self.sql.reset()
        self.latency.clear()
        with self.lock:
            self.calls.clear()
        self.clear_requests()
        self.clear_faults()

    # -- counting, latency and faults: one mechanism for every API, S3 included ---------------
    def before_call(self, action: str, params: Optional[Dict[str, Any]] = None) -> None:
        """Count one call of ``action``, wait its injected latency (``latency[action]``, else
        ``latency["*"]``), and raise the first injected fault that matches it
        (:class:`~athena_spark_emulator.core.errors.AwsError`), if any. Called for every request:
        by ``responses.dispatch`` (JSON and query protocols) and by the S3 middleware of
        ``server.py``, which write the error in the request's protocol. ``params`` are the
        request's parameters, kept in the request log and matched by the faults."""
        call = current_call()
        if call is not None:
            call.action, call.params = action, dict(params or {})
        with self.lock:
            self.calls[action] += 1
            queue = self.faults.get(action) or []
            fault = next((f for f in queue if f.matches(call)), None)
            if fault is not None and fault.times is not None:
                fault.times -= 1
                if fault.times <= 0:
                    queue.remove(fault)
        delay = self.latency.get(action, self.latency.get("*", 0.0))
        if delay:
            time.sleep(delay)
        if fault is not None:
            raise AwsError(fault.code, fault.message, fault.status())

    def inject(
        self,
        action: str,
        code: str,
        message: str = "",
        times: Optional[int] = 1,
        match: Optional[Dict[str, Any]] = None,
        access_key: Optional[str] = None,
        missing_header: Optional[str] = None,
    ) -> None:
        message = message or f"{code} (injected)"
        fault = Fault(code, message, times, dict(match or {}), access_key, missing_header)
        with self.lock:
            self.faults[action].append(fault)

    @contextlib.contextmanager
    def serving(self, call: Call) -> Iterator[Call]:
        """One request: bound to this backend, ``call`` current while it is answered, then
        logged (unless no action was named: the emulator's and moto's own endpoints)."""
        try:
            with context.bound("call", call), self.bound():
                yield call
        finally:
            call.end = time.time()
            if call.action:
                with self.lock:
                    self.requests.append(call)

    def request_log(self) -> List[Dict[str, Any]]:
        with self.lock:
            return [call.record() for call in self.requests]

    def clear_requests(self) -> None:
        with self.lock:
            self.requests.clear()

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    # -- which emulator a thread works for --------------------------------------------------
    @contextlib.contextmanager
    def bound(self) -> Iterator[EmulatorBackend]:
        with context.bound("backend", self):
            yield self


def current_call() -> Optional[Call]:
    """The request this thread is answering (see :meth:`EmulatorBackend.serving`)."""
    return context.current_call()


def current() -> Optional[EmulatorBackend]:
    """The backend this thread works for (an emulator's request or calculation thread)."""
    return context.current_backend()
