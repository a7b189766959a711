"""StartQueryExecution is idempotent per ClientRequestToken, as on Athena: botocore sends the
same token again when it retries a call (e.g. after its read timeout, while the emulator was
still running the statement behind its Spark lock), and the retry must not run it twice."""

from __future__ import annotations

import uuid

from athena_spark_emulator import Emulator


def start(athena, statement: str, token: str) -> str:
    return athena.start_query_execution(
        QueryString=statement, ClientRequestToken=token, WorkGroup="primary"
    )["QueryExecutionId"]


def state(athena, exec_id: str) -> str:
    return athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]["Status"]["State"]


def test_a_retried_start_gets_the_same_execution_and_runs_nothing_again(emulator: Emulator):
    athena = emulator.client("athena")
    token = str(uuid.uuid4())
    first = start(athena, "create schema idempotent_schema", token)
    again = start(athena, "create schema idempotent_schema", token)
    assert again == first
    assert state(athena, first) == "SUCCEEDED"
    assert emulator.backend.sql.seen.count("create schema idempotent_schema") == 1


def test_a_new_token_is_a_new_execution(emulator: Emulator):
    athena = emulator.client("athena")
    start(athena, "create schema twice_schema", str(uuid.uuid4()))
    second = start(athena, "create schema twice_schema", str(uuid.uuid4()))
    assert state(athena, second) == "FAILED"  # SCHEMA_ALREADY_EXISTS: it really ran again


def test_a_statement_still_running_reads_as_running(emulator: Emulator):
    athena = emulator.client("athena")
    exec_id = start(athena, "create schema running_schema", str(uuid.uuid4()))
    emulator.backend.sql.running.add(exec_id)  # as while a retried start waits on Spark
    try:
        assert state(athena, exec_id) == "RUNNING"
    finally:
        emulator.backend.sql.running.discard(exec_id)
    assert state(athena, exec_id) == "SUCCEEDED"
