"""The Spark probe's Athena calls: per session group, StartSession in the profile's Spark
work group, one StartCalculationExecution, GetCalculationExecution until it ends, the
calculation's stdout from S3, then TerminateSession and GetSession (its DPU time).

Every session started is terminated: at the end, on an error, on the timeout, on Ctrl-C
(``KeyboardInterrupt`` stops the waiting, the sessions started so far are terminated, and
the interrupt goes on) and on SIGTERM or SIGHUP (what CI systems send on cancel: the same,
then the signal goes on to the process as it would have). The groups' sessions run at
once, in threads. A session whose TerminateSession failed is reported as NOT terminated,
and a failure to reach the endpoint is reported as one, with its fix.
"""

from __future__ import annotations

import contextlib
import re
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from botocore.exceptions import ConnectionError as BotoConnectionError
from botocore.exceptions import HTTPClientError

from dbt_athena_cross_account.doctor.rows import Check, Identity
from dbt_athena_cross_account.doctor.spark_probe import (
    KIND,
    NO_RESULT,
    NOT_TERMINATED,
    OTHER_FIX,
    REQUESTED,
    TIMED_OUT,
    TIMEOUT_FIX,
    SessionFacts,
    SessionGroup,
    calculation_code,
    name_sessions,
    parse_output,
    table_rows,
)
from dbt_athena_cross_account.errors import FAIL

POLL_SECONDS = 0.5
DESCRIPTION = "dbt-athena-cross-account cross_account_doctor Spark probe (reads only)"
ENDED = {"COMPLETED", "FAILED", "CANCELED"}
SESSION_DOWN = {"TERMINATED", "FAILED", "DEGRADED"}
NO_WORK_GROUP = (
    "the profile sets no spark_work_group, so no Spark session can start",
    "add spark_work_group to the dbt profile (the work group dbt-athena runs Python models in)",
)
SESSION_REFUSED = "StartSession in work group '{work_group}' failed ({error}), so nothing was read"
SESSION_FIX = (
    "allow athena:StartSession, athena:GetSessionStatus, athena:StartCalculationExecution, "
    "athena:GetCalculationExecution, athena:GetSession and athena:TerminateSession on the "
    "work group for your dbt role, and s3:GetObject on its calculation results"
)

# Athena's Apache Spark 3.5 engine serves Spark Connect and has no Calculation API
# (docs/compatibility.md): there the session starts and its first calculation is refused.
NO_CALCULATION = (
    "StartCalculationExecution in the probe session {session} was refused ({error}), so "
    "nothing was read. If work group '{work_group}' runs Athena's Apache Spark 3.5 engine, "
    "it has no Calculation API, and neither dbt-athena's Python models nor the probe run there"
)
NO_CALCULATION_FIX = (
    "run the probe in the Spark work group your Python models run in (PySpark engine v3); "
    "if it is that one, " + SESSION_FIX
)


NO_CONNECTION = "the probe could not reach Athena ({error}), so {what}"
NO_CONNECTION_FIX = (
    "check that the Athena endpoint is reachable from where dbt runs (network, proxy, VPC "
    "endpoint; AWS_ENDPOINT_URL when it is set), then run the doctor again; sessions the "
    "report lists as NOT terminated are still running: stop them in the Athena console "
    "(work group '{work_group}')"
)
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def unreachable(exc: BaseException) -> bool:
    """True for a failure to reach the endpoint (no answer from AWS at all)."""
    return isinstance(exc, (BotoConnectionError, HTTPClientError))


class Timeout(Exception):
    pass


class Signalled(BaseException):
    """SIGTERM or SIGHUP arrived while the probe waited (raised in the main thread)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Signalled` in the main thread for the block (the
    first one; another while the sessions are being terminated is ignored). Python's own
    default for them ends the process at once, with no ``finally`` run."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread can handle signals; dbt runs operations there
        return
    fired: List[int] = []

    def handler(signum: int, _frame: Any) -> None:
        if not fired:
            fired.append(signum)
            raise Signalled(signum)

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class Probe:
    """One probe run: the sessions it started (so all can be terminated), their facts."""

    def __init__(
        self,
        athena: Any,
        s3: Any,
        work_group: str,
        timeout: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.athena, self.s3, self.work_group = athena, s3, work_group
        self.timeout, self.sleep = float(timeout), sleep
        self.started: Dict[str, str] = {}  # session id -> label
        self.terminated: Dict[str, Optional[str]] = {}  # session id -> TerminateSession's error
        self.facts: List[SessionFacts] = []
        self.stop = threading.Event()
        self.lock = threading.Lock()

    # -- one session ---------------------------------------------------------------------
    def _wait(self, deadline: float, poll: Callable[[], Optional[Any]]) -> Any:
        while True:
            found = poll()
            if found is not None:
                return found
            if self.stop.is_set() or time.monotonic() >= deadline:
                raise Timeout()
            self.sleep(POLL_SECONDS)

    def _idle(self, session_id: str) -> Optional[str]:
        state = self.athena.get_session_status(SessionId=session_id)["Status"]["State"]
        if state in SESSION_DOWN:
            raise RuntimeError(f"the session became {state}")
        return state if state == "IDLE" else None

    def _calculation(self, calc_id: str) -> Optional[Dict[str, Any]]:
        answer = self.athena.get_calculation_execution(CalculationExecutionId=calc_id)
        return answer if answer["Status"]["State"] in ENDED else None

    def _stdout(self, answer: Dict[str, Any]) -> str:
        uri = (answer.get("Result") or {}).get("StdOutS3Uri") or ""
        match = re.match(r"s3://([^/]+)/(.+)", uri)
        if not match:
            return ""
        body = self.s3.get_object(Bucket=match.group(1), Key=match.group(2))["Body"].read()
        return body.decode("utf-8", "replace")

    def run(
        self, group: SessionGroup, read_code: str
    ) -> Tuple[Optional[Dict[str, Any]], Optional[Tuple[str, str]]]:
        """(results by plan key, or a problem failing every table of the group)."""
        begun = time.monotonic()
        deadline = begun + self.timeout
        session_id = None
        try:
            session_id = self.athena.start_session(
                WorkGroup=self.work_group,
                Description=DESCRIPTION,
                EngineConfiguration=group.engine_config,
            )["SessionId"]
            with self.lock:
                self.started[session_id] = group.label
            self._wait(deadline, lambda: self._idle(session_id))
            try:
                calc_id = self.athena.start_calculation_execution(
                    SessionId=session_id, CodeBlock=calculation_code(read_code, group)
                )["CalculationExecutionId"]
            except Exception as exc:
                problem = NO_CALCULATION.format(
                    session=session_id, error=exc, work_group=self.work_group
                )
                return None, (problem, NO_CALCULATION_FIX)
            answer = self._wait(deadline, lambda: self._calculation(calc_id))
            state = answer["Status"]["State"]
            results = parse_output(self._stdout(answer)) if state == "COMPLETED" else None
            if results is None:
                why = str(answer["Status"].get("StateChangeReason") or "").strip()
                return None, (
                    NO_RESULT.format(state=state, why=f": {why[:2000]}" if why else ""),
                    OTHER_FIX,
                )
            return results, None
        except Timeout:
            return None, (
                TIMED_OUT.format(timeout=f"{self.timeout:g}"),
                TIMEOUT_FIX.format(session=session_id),
            )
        except Exception as exc:  # a refused call: the group's rows say which
            if unreachable(exc):
                what = (
                    "nothing was read"
                    if session_id is None
                    else f"session {session_id} read nothing"
                )
                problem = NO_CONNECTION.format(error=exc, what=what)
                return None, (problem, NO_CONNECTION_FIX.format(work_group=self.work_group))
            if session_id is None:
                problem = SESSION_REFUSED.format(work_group=self.work_group, error=exc)
                return None, (problem, SESSION_FIX)
            return None, (f"the probe session {session_id} failed: {exc}", SESSION_FIX)
        finally:
            if session_id is not None:
                self.facts.append(self._end(session_id, group.label, time.monotonic() - begun))

    # -- ending sessions -----------------------------------------------------------------
    def _terminate(self, session_id: str) -> Optional[str]:
        """TerminateSession, once per session: None when Athena accepted it, else its error."""
        with self.lock:
            if session_id in self.terminated:
                return self.terminated[session_id]
            self.terminated[session_id] = None
        try:
            self.athena.terminate_session(SessionId=session_id)
        except Exception as exc:  # already ended, or not sent: GetSession below tells
            with self.lock:
                self.terminated[session_id] = str(exc) or type(exc).__name__
        return self.terminated[session_id]

    def _end(self, session_id: str, label: str, wall: float) -> SessionFacts:
        refused = self._terminate(session_id)
        try:
            answer = self.athena.get_session(SessionId=session_id)
        except Exception as exc:  # athena:GetSession not allowed, or no answer
            unread = f"GetSession failed: {exc}"
            if refused is None:  # Athena accepted the TerminateSession
                state = f"{REQUESTED} ({unread})"
            else:
                state = f"{NOT_TERMINATED} (TerminateSession failed: {refused}; {unread})"
            return SessionFacts(label, session_id, state, wall, None)
        state = answer["Status"]["State"]
        dpu = (answer.get("Statistics") or {}).get("DpuExecutionInMillis")
        return SessionFacts(label, session_id, state, wall, dpu)

    def terminate_all(self) -> None:
        for session_id in list(self.started):
            self._terminate(session_id)


def probe_groups(
    probe: Probe, groups: Sequence[SessionGroup], read_code: str, identity: Identity, region: str
) -> List[Check]:
    """Every group's session at once; the ``spark`` rows in group order. Ctrl-C, SIGTERM
    and SIGHUP terminate every session started, then go on (the signal to the process)."""
    try:
        with signals_raise():
            return _probe_groups(probe, groups, read_code, identity, region)
    except Signalled as signalled:  # the sessions are terminated; the handlers restored
        signal.raise_signal(signalled.signum)
        raise SystemExit(128 + signalled.signum) from None  # its handler let the process live


def _probe_groups(
    probe: Probe, groups: Sequence[SessionGroup], read_code: str, identity: Identity, region: str
) -> List[Check]:
    if not groups:
        return []
    rows: Dict[int, List[Check]] = {}
    with ThreadPoolExecutor(max_workers=len(groups), thread_name_prefix="probe") as pool:
        jobs: Dict[Future, int] = {
            pool.submit(probe.run, g, read_code): i for i, g in enumerate(groups)
        }
        pending = set(jobs)
        try:
            while pending:
                done, pending = wait(pending, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
                for job in done:
                    results, problem = job.result()
                    rows[jobs[job]] = table_rows(
                        groups[jobs[job]], results, identity, region, problem
                    )
        except BaseException:
            probe.stop.set()
            probe.terminate_all()
            raise
    return name_sessions(groups, [rows[i] for i in range(len(groups))])


def no_work_group_rows(groups: Sequence[SessionGroup]) -> List[Check]:
    return [Check(FAIL, KIND, t.subject, *NO_WORK_GROUP) for g in groups for t in g.tables.values()]
