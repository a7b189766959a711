"""The Spark probe's Athena calls: per session group, StartSession in the profile's Spark
work group, one StartCalculationExecution, GetCalculationExecution until it ends, the
calculation's stdout from S3, then TerminateSession and GetSession (its DPU time).

Every session started is terminated: at the end, on an error, on the timeout and on
Ctrl-C (``KeyboardInterrupt`` stops the waiting, the sessions started so far are
terminated, and the interrupt goes on). The groups' sessions run at once, in threads.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from dbt_athena_cross_account.doctor.rows import Check, Identity
from dbt_athena_cross_account.doctor.spark_probe import (
    KIND,
    NO_RESULT,
    OTHER_FIX,
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


class Timeout(Exception):
    pass


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
        self.terminated: set = set()
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
            if session_id is None:
                problem = SESSION_REFUSED.format(work_group=self.work_group, error=exc)
                return None, (problem, SESSION_FIX)
            return None, (f"the probe session {session_id} failed: {exc}", SESSION_FIX)
        finally:
            if session_id is not None:
                self.facts.append(self._end(session_id, group.label, time.monotonic() - begun))

    # -- ending sessions -----------------------------------------------------------------
    def _terminate(self, session_id: str) -> None:
        with self.lock:
            if session_id in self.terminated:
                return
            self.terminated.add(session_id)
        with contextlib.suppress(Exception):  # already ended; GetSession below says its state
            self.athena.terminate_session(SessionId=session_id)

    def _end(self, session_id: str, label: str, wall: float) -> SessionFacts:
        self._terminate(session_id)
        state, dpu = "TERMINATED (requested)", None
        try:
            answer = self.athena.get_session(SessionId=session_id)
            state = answer["Status"]["State"]
            dpu = (answer.get("Statistics") or {}).get("DpuExecutionInMillis")
        except Exception:  # athena:GetSession not allowed: the DPU time is unknown
            pass
        return SessionFacts(label, session_id, state, wall, dpu)

    def terminate_all(self) -> None:
        for session_id in list(self.started):
            self._terminate(session_id)


def probe_groups(
    probe: Probe, groups: Sequence[SessionGroup], read_code: str, identity: Identity, region: str
) -> List[Check]:
    """Every group's session at once; the ``spark`` rows in group order. Ctrl-C terminates
    every session started and re-raises."""
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
