"""The state of one emulator, in one object (moto's pattern: state in backends).

:class:`EmulatorBackend` holds everything an :class:`~athena_spark_emulator.Emulator`
knows beyond moto's own backends: call counters, injected latency and faults, the
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
from typing import Any, Dict, Iterator, List, Optional, Set

from athena_spark_emulator.calculations import CalculationStore, Executor
from athena_spark_emulator.catalog import Catalog
from athena_spark_emulator.errors import AwsError

_CURRENT = threading.local()


@dataclass
class Fault:
    code: str
    message: str
    times: int


@dataclass
class SqlLog:
    """The Athena SQL an emulator ran (see sql.py)."""

    failures: Dict[str, str] = field(default_factory=dict)  # query execution id -> reason
    outcomes: Dict[str, Any] = field(default_factory=dict)  # id -> sql_statements.Outcome
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
        self.lock = threading.Lock()
        # Glue API calls with CatalogId=<owner> go to the owner's Glue (moto ignores
        # CatalogId), refused unless the owner granted the caller.
        self.glue_owner_routing = False

    @property
    def executor(self) -> Executor:
        return self.calculations.executor

    @executor.setter
    def executor(self, value: Executor) -> None:
        self.calculations.executor = value

    def reset(self) -> None:
        """Forget counters, faults, latency, sessions, calculations, grants and the SQL log."""
        self.calculations.reset()
        self.catalog.grants.clear()
        self.sql.reset()
        self.latency.clear()
        with self.lock:
            self.calls.clear()
        self.clear_faults()

    # -- counting, latency and faults: one mechanism for every API, S3 included ---------------
    def before_call(self, action: str) -> None:
        """Count one call of ``action``, wait its injected latency, and raise the injected
        fault it must answer with (:class:`~athena_spark_emulator.errors.AwsError`), if any.
        Called for every request: by ``responses.dispatch`` (JSON protocols) and by the S3
        middleware of ``server.py``, which write the error in their protocol."""
        with self.lock:
            self.calls[action] += 1
            queue = self.faults.get(action) or []
            fault = queue[0] if queue else None
            if fault is not None:
                fault.times -= 1
                if fault.times <= 0:
                    queue.pop(0)
        delay = self.latency.get(action, 0.0)
        if delay:
            time.sleep(delay)
        if fault is not None:
            raise AwsError(fault.code, fault.message)

    def inject(self, action: str, code: str, message: str, times: int) -> None:
        with self.lock:
            self.faults[action].append(Fault(code, message, times))

    def clear_faults(self) -> None:
        with self.lock:
            self.faults.clear()

    # -- which emulator a thread works for --------------------------------------------------
    @contextlib.contextmanager
    def bound(self) -> Iterator[EmulatorBackend]:
        previous = getattr(_CURRENT, "backend", None)
        _CURRENT.backend = self
        try:
            yield self
        finally:
            _CURRENT.backend = previous


def current() -> Optional[EmulatorBackend]:
    """The backend this thread works for (an emulator's request or calculation thread)."""
    return getattr(_CURRENT, "backend", None)
