"""State of the Athena Spark Calculation API: sessions, calculations and the executor.

moto serves Athena SQL, work groups and data catalogs but not the Spark sessions and
calculations that dbt-athena's Python models use (``dbt/adapters/athena/session.py`` and
``python_submissions.py``). ``responses.py`` parses and answers those API calls; this
module holds their state, as moto keeps state in ``models.py``. Each calculation is handed
to the executor on a worker thread; its state moves CREATING -> RUNNING -> COMPLETED or
FAILED (or CANCELED by StopCalculationExecution, or by TerminateSession of its session).

A calculation runs as its session's execution role (the work group's): while it runs,
``core.context.current_principal`` names that role on the worker thread, so the catalog checks the
owner's grants for the role, not for dbt's identity. Sessions and calculations report the
DPU time Athena bills (``Statistics.DpuExecutionInMillis``), modelled by :func:`session_dpu_millis`
and :func:`calculation_dpu_millis`.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Dict, List, Optional, Tuple

from athena_spark_emulator.core import context

# An executor runs one CodeBlock with the session's Spark properties and returns
# (succeeded, text): stdout on success, the Python traceback on failure.
Executor = Callable[[str, Dict[str, str]], Tuple[bool, str]]


@dataclass
class Session:
    session_id: str
    work_group: str
    description: str
    engine_configuration: Dict[str, Any]
    state: str = "IDLE"
    created: float = field(default_factory=time.time)
    execution_role: str = ""  # the work group's ExecutionRole: what its calculations run as
    ended: Optional[float] = None  # when it was terminated

    @property
    def spark_properties(self) -> Dict[str, str]:
        return dict(self.engine_configuration.get("SparkProperties") or {})


@dataclass
class Calculation:
    calculation_id: str
    session_id: str
    code: str
    spark_properties: Dict[str, str]
    state: str = "CREATING"
    reason: str = ""
    stdout: str = ""
    submitted: float = field(default_factory=time.time)
    done: threading.Event = field(default_factory=threading.Event)
    started: Optional[float] = None  # RUNNING from
    finished: Optional[float] = None  # COMPLETED, FAILED or CANCELED at


def _dpus(engine: Dict[str, Any], key: str) -> int:
    try:
        return max(1, int(engine.get(key) or 1))
    except (TypeError, ValueError):
        return 1


def calculation_dpu_millis(calc: Calculation, engine: Dict[str, Any]) -> int:
    """The emulator's model of a calculation's DPU time: its running wall time times the
    session's ``DefaultExecutorDpuSize`` (1 unless set)."""
    if calc.started is None:
        return 0
    end = calc.finished if calc.finished is not None else time.time()
    return int((end - calc.started) * 1000 * _dpus(engine, "DefaultExecutorDpuSize"))


def session_dpu_millis(session: Session, calcs: List[Calculation]) -> int:
    """The emulator's model of a session's DPU time: its coordinator for as long as the
    session lived (``CoordinatorDpuSize``, 1 unless set), plus its calculations' DPU time."""
    end = session.ended if session.ended is not None else time.time()
    engine = session.engine_configuration
    coordinator = int((end - session.created) * 1000 * _dpus(engine, "CoordinatorDpuSize"))
    return coordinator + sum(calculation_dpu_millis(c, engine) for c in calcs)


def completed_without_running(code: str, spark_properties: Dict[str, str]) -> Tuple[bool, str]:
    """The 'instant' executor: every calculation completes at once, nothing runs."""
    return True, ""


class CalculationStore:
    """Sessions and calculations of one emulator, plus the executor that runs them.

    ``bind`` returns a context manager entered around each calculation on its worker
    thread; the emulator uses it to make itself the thread's current emulator, so the
    executor finds the right catalog.
    """

    def __init__(
        self,
        executor: Executor = completed_without_running,
        bind: Optional[Callable[[], ContextManager[Any]]] = None,
    ) -> None:
        self.executor = executor
        self._bind = bind or contextlib.nullcontext
        self.sessions: Dict[str, Session] = {}
        self.calculations: Dict[str, Calculation] = {}
        self.lock = threading.Lock()
        # Off: sessions start IDLE and stay IDLE (plain and fast, the default).
        # On: as Athena, a session starts CREATING (IDLE from the first GetSessionStatus on)
        # and is BUSY while one of its calculations runs, so dbt-athena's polling runs.
        self.session_lifecycle = False
        # Set by Emulator.stop(): new calculations are refused, running ones finish.
        self.stopping = False
        self._threads: List[threading.Thread] = []

    def reset(self) -> None:
        """Forget the calculations; the sessions end ``TERMINATED``, as an old world's sessions
        do on Athena: a client still holding one (dbt-athena keeps its sessions in-process
        across invocations) is told ``Session is in the TERMINATED state`` and starts a new
        one, instead of failing on ``Session not found``."""
        with self.lock:
            for session in self.sessions.values():
                session.state = "TERMINATED"
            self.calculations.clear()

    @property
    def submissions(self) -> List[Calculation]:
        with self.lock:
            return sorted(self.calculations.values(), key=lambda c: c.submitted)

    def running(self) -> List[Calculation]:
        return [c for c in self.submissions if not c.done.is_set()]

    def start_session(
        self, work_group: str, description: str, engine: Dict[str, Any], execution_role: str = ""
    ) -> Session:
        session = Session(
            str(uuid.uuid4()), work_group, description, engine, execution_role=execution_role
        )
        if self.session_lifecycle:
            session.state = "CREATING"
        with self.lock:
            self.sessions[session.session_id] = session
        return session

    def start_calculation(self, session: Session, code: str) -> Calculation:
        calc = Calculation(str(uuid.uuid4()), session.session_id, code, session.spark_properties)
        thread = threading.Thread(target=self._run, args=(calc,), daemon=True, name="calc")
        with self.lock:
            self.calculations[calc.calculation_id] = calc
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return calc

    def cancel(self, calc: Calculation) -> None:
        calc.state = "CANCELED"
        calc.finished = calc.finished or time.time()
        calc.done.set()

    def of_session(self, session: Session) -> List[Calculation]:
        return [c for c in self.submissions if c.session_id == session.session_id]

    def terminate(self, session: Session) -> None:
        """TERMINATED, as Athena ends a session: its unfinished calculations are CANCELED."""
        for calc in self.of_session(session):
            if not calc.done.is_set():
                self.cancel(calc)
        session.state = "TERMINATED"
        session.ended = session.ended or time.time()

    def wait(self, timeout: float) -> bool:
        """Wait until every calculation's worker thread has ended; False on timeout."""
        deadline = time.monotonic() + timeout
        with self.lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in threads)

    def _run(self, calc: Calculation) -> None:
        calc.state, calc.started = "RUNNING", time.time()
        session = self.sessions.get(calc.session_id)
        context.set_principal(session.execution_role if session is not None else None)
        busy = self.session_lifecycle and session is not None and session.state == "IDLE"
        if busy:
            session.state = "BUSY"  # type: ignore[union-attr]
        try:
            with self._bind():
                ok, text = self.executor(calc.code, calc.spark_properties)
        except BaseException as exc:  # an executor bug must still end the calculation
            ok, text = False, f"emulator executor crashed: {exc!r}"
        finally:
            context.set_principal(None)
            if busy and session is not None and session.state == "BUSY":
                session.state = "IDLE"
        if calc.state == "CANCELED":
            return
        calc.finished = time.time()
        if ok:
            calc.stdout, calc.state = text, "COMPLETED"
        else:
            calc.reason, calc.state = text, "FAILED"
        calc.done.set()
