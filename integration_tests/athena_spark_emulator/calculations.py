"""The Athena Spark Calculation API, added to moto's AthenaResponse.

moto serves Athena SQL, work groups and data catalogs but not the Spark sessions and
calculations that dbt-athena's Python models use (``dbt/adapters/athena/session.py`` and
``python_submissions.py``). This module adds exactly the actions dbt-athena 1.9-1.11 call:
StartSession, GetSessionStatus, ListSessions, TerminateSession,
StartCalculationExecution, GetCalculationExecution, GetCalculationExecutionStatus and
StopCalculationExecution. Each calculation is handed to the emulator's executor on a
worker thread; its state moves CREATING -> RUNNING -> COMPLETED or FAILED.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from moto.athena.responses import AthenaResponse

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


class CalculationStore:
    """Sessions and calculations of one emulator, plus the executor that runs them."""

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.sessions: Dict[str, Session] = {}
        self.calculations: Dict[str, Calculation] = {}
        self.lock = threading.Lock()
        # Off: sessions start IDLE and stay IDLE (plain and fast, the default).
        # On: as Athena, a session starts CREATING (IDLE from the first GetSessionStatus on)
        # and is BUSY while one of its calculations runs, so dbt-athena's polling runs.
        self.session_lifecycle = False

    @property
    def submissions(self) -> List[Calculation]:
        with self.lock:
            return sorted(self.calculations.values(), key=lambda c: c.submitted)

    def start_session(self, work_group: str, description: str, engine: Dict[str, Any]) -> Session:
        session = Session(str(uuid.uuid4()), work_group, description, engine)
        if self.session_lifecycle:
            session.state = "CREATING"
        with self.lock:
            self.sessions[session.session_id] = session
        return session

    def start_calculation(self, session: Session, code: str) -> Calculation:
        calc = Calculation(str(uuid.uuid4()), session.session_id, code, session.spark_properties)
        with self.lock:
            self.calculations[calc.calculation_id] = calc
        threading.Thread(target=self._run, args=(calc,), daemon=True, name="calc").start()
        return calc

    def _run(self, calc: Calculation) -> None:
        calc.state = "RUNNING"
        session = self.sessions.get(calc.session_id)
        busy = self.session_lifecycle and session is not None and session.state == "IDLE"
        if busy:
            session.state = "BUSY"  # type: ignore[union-attr]
        try:
            ok, text = self.executor(calc.code, calc.spark_properties)
        except BaseException as exc:  # an executor bug must still end the calculation
            ok, text = False, f"emulator executor crashed: {exc!r}"
        finally:
            if busy and session is not None and session.state == "BUSY":
                session.state = "IDLE"
        if calc.state == "CANCELED":
            return
        if ok:
            calc.stdout, calc.state = text, "COMPLETED"
        else:
            calc.reason, calc.state = text, "FAILED"
        calc.done.set()


def completed_without_running(code: str, spark_properties: Dict[str, str]) -> Tuple[bool, str]:
    """The 'instant' executor: every calculation completes at once, nothing runs."""
    return True, ""


# The store that the patched AthenaResponse methods use. One emulator per process.
STORE = CalculationStore(completed_without_running)


def _error(code: str, message: str) -> Tuple[str, Dict[str, int]]:
    return json.dumps({"__type": code, "Message": message}), {"status": 400}


def _session_status(session: Session) -> Dict[str, Any]:
    return {
        "State": session.state,
        "StateChangeReason": "",
        "StartDateTime": session.created,
        "LastModifiedDateTime": session.created,
    }


def _calc_status(calc: Calculation) -> Dict[str, Any]:
    return {
        "State": calc.state,
        "StateChangeReason": calc.reason,
        "SubmissionDateTime": calc.submitted,
    }


# ---- the actions, bound onto moto's AthenaResponse -------------------------------------
def start_session(self: AthenaResponse) -> Any:
    session = STORE.start_session(
        self._get_param("WorkGroup"),
        self._get_param("Description") or "",
        self._get_param("EngineConfiguration") or {},
    )
    return json.dumps({"SessionId": session.session_id, "State": session.state})


def _find_session(self: AthenaResponse) -> Optional[Session]:
    return STORE.sessions.get(self._get_param("SessionId"))


def get_session_status(self: AthenaResponse) -> Any:
    session = _find_session(self)
    if session is None:
        return _error("InvalidRequestException", "Session not found")
    status = _session_status(session)
    if session.state == "CREATING":  # ready from now on
        session.state = "IDLE"
    return json.dumps({"SessionId": session.session_id, "Status": status})


def list_sessions(self: AthenaResponse) -> Any:
    work_group = self._get_param("WorkGroup")
    sessions = [s for s in STORE.sessions.values() if s.work_group == work_group]
    return json.dumps(
        {
            "Sessions": [
                {
                    "SessionId": s.session_id,
                    "Description": s.description,
                    "Status": _session_status(s),
                }
                for s in sessions
            ]
        }
    )


def terminate_session(self: AthenaResponse) -> Any:
    session = _find_session(self)
    if session is None:
        return _error("InvalidRequestException", "Session not found")
    session.state = "TERMINATED"
    return json.dumps({"State": session.state})


def start_calculation_execution(self: AthenaResponse) -> Any:
    session = _find_session(self)
    if session is None:
        return _error("InvalidRequestException", "Session not found")
    if session.state != "IDLE":
        # dbt-athena matches this text to decide to poll until the session is IDLE
        return _error(
            "InvalidRequestException",
            f"Session is in the {session.state} state; needs to be IDLE to accept Calculations.",
        )
    code = self._get_param("CodeBlock") or ""
    calc = STORE.start_calculation(session, code)
    return json.dumps({"CalculationExecutionId": calc.calculation_id, "State": calc.state})


def _find_calc(self: AthenaResponse) -> Optional[Calculation]:
    return STORE.calculations.get(self._get_param("CalculationExecutionId"))


def get_calculation_execution(self: AthenaResponse) -> Any:
    calc = _find_calc(self)
    if calc is None:
        return _error("InvalidRequestException", "Calculation not found")
    return json.dumps(
        {
            "CalculationExecutionId": calc.calculation_id,
            "SessionId": calc.session_id,
            "Status": _calc_status(calc),
            "Result": {
                "StdOutS3Uri": f"s3://emulator/calculations/{calc.calculation_id}/stdout.txt",
                "StdErrorS3Uri": f"s3://emulator/calculations/{calc.calculation_id}/stderr.txt",
                "ResultS3Uri": f"s3://emulator/calculations/{calc.calculation_id}/result.json",
                "ResultType": "application/json",
            },
        }
    )


def get_calculation_execution_status(self: AthenaResponse) -> Any:
    calc = _find_calc(self)
    if calc is None:
        return _error("InvalidRequestException", "Calculation not found")
    return json.dumps({"Status": _calc_status(calc)})


def stop_calculation_execution(self: AthenaResponse) -> Any:
    calc = _find_calc(self)
    if calc is None:
        return _error("InvalidRequestException", "Calculation not found")
    calc.state = "CANCELED"
    calc.done.set()
    return json.dumps({"State": calc.state})


ACTIONS = {
    fn.__name__: fn
    for fn in (
        start_session,
        get_session_status,
        list_sessions,
        terminate_session,
        start_calculation_execution,
        get_calculation_execution,
        get_calculation_execution_status,
        stop_calculation_execution,
    )
}


def install() -> None:
    """Bind the actions onto moto's AthenaResponse (idempotent)."""
    for name, fn in ACTIONS.items():
        setattr(AthenaResponse, name, fn)
