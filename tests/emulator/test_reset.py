"""Emulator.reset(): a new, empty AWS, which a client still holding state of the old one
can go on talking to, as it would on AWS."""

from __future__ import annotations

import botocore.exceptions
import pytest

from athena_spark_emulator import Emulator
from tests.stack import SPARK_WORK_GROUP, prepare_base


def test_a_session_of_the_old_world_reads_terminated_and_refuses_calculations(
    emulator: Emulator,
) -> None:
    """dbt-athena keeps its Spark sessions in a module-level list across in-process
    invocations (dbt/adapters/athena/session.py: spark_session_list). After a reset, its
    next calculation must get the answer it recovers from: a message naming TERMINATED
    (python_submissions.py then drops the session and starts a new one), not
    'Session not found', on which it gives up."""
    prepare_base(emulator)
    athena = emulator.client("athena")
    old = athena.start_session(
        WorkGroup=SPARK_WORK_GROUP, EngineConfiguration={"MaxConcurrentDpus": 2}
    )["SessionId"]
    emulator.reset()
    assert athena.get_session_status(SessionId=old)["Status"]["State"] == "TERMINATED"
    with pytest.raises(botocore.exceptions.ClientError) as refused:
        athena.start_calculation_execution(SessionId=old, CodeBlock="print(1)")
    error = refused.value.response["Error"]
    assert error["Code"] == "InvalidRequestException"
    assert "TERMINATED" in error["Message"], error
    new = athena.start_session(
        WorkGroup=SPARK_WORK_GROUP, EngineConfiguration={"MaxConcurrentDpus": 2}
    )
    started = athena.start_calculation_execution(SessionId=new["SessionId"], CodeBlock="print(1)")
    assert started["CalculationExecutionId"]
