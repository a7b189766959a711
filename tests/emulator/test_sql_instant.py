"""Athena SQL under the instant executor (no Spark): statements that only change Glue run,
every statement that reads or writes data fails naming --spark, never a success that
did nothing (a `dbt run` without --spark that reported models built when no data was
written)."""

from __future__ import annotations

import time
from typing import Any, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef
from athena_spark_emulator.sql import statements as sql_statements
from tests.stack import prepare_base


def run(emulator: Emulator, sql: str) -> Tuple[str, str]:
    athena = emulator.client("athena")
    started = athena.start_query_execution(
        QueryString=sql, QueryExecutionContext={"Database": "instant_sql"}, WorkGroup="primary"
    )
    status = athena.get_query_execution(QueryExecutionId=started["QueryExecutionId"])
    state = status["QueryExecution"]["Status"]
    return state["State"], state.get("StateChangeReason", "")


def test_data_statements_fail_naming_spark_and_metadata_ones_run(emulator: Emulator) -> None:
    prepare_base(emulator)
    assert run(emulator, "create schema if not exists instant_sql") == ("SUCCEEDED", "")
    assert emulator.catalog.database_exists(LOCAL_ACCOUNT, "instant_sql")
    for sql in (
        "select count(*) as failures from (select 1 as x) dbt_internal_test",
        "create table instant_sql.t with (format='parquet') as select 1 as x",
        "create or replace view instant_sql.v as select 1 as x",
    ):
        state, reason = run(emulator, sql)
        assert state == "FAILED", sql
        assert "the emulator's instant executor runs no SQL that reads or writes data" in reason
        assert "start it with --spark" in reason
    assert not emulator.catalog.table_exists(TableRef(LOCAL_ACCOUNT, "instant_sql", "t"))
    assert run(emulator, "drop schema if exists instant_sql cascade") == ("SUCCEEDED", "")


def test_a_statement_without_handler_fails_naming_it(emulator: Emulator) -> None:
    prepare_base(emulator)
    state, reason = run(emulator, "vacuum instant_sql.t")
    assert state == "FAILED"
    assert reason == (
        "NOT_SUPPORTED: the Athena emulator cannot run VACUUM statements. "
        "Statement: vacuum instant_sql.t"
    )


def test_statistics_give_the_time_the_emulator_spent_on_the_statement(
    emulator: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GetQueryExecution's EngineExecutionTimeInMillis / TotalExecutionTimeInMillis are the
    time the emulator spent parsing and running the statement (bench/project_build.py reads
    them), not moto's constant 0: a handler that takes 80 ms reports at least 80."""
    prepare_base(emulator)
    real = sql_statements.HANDLERS.kinds("athena")["CREATE SCHEMA"]

    def slow(engine: sql_statements.Engine, statement: sql_statements.Statement) -> Any:
        time.sleep(0.08)
        return real.run(engine, statement)

    monkeypatch.setitem(
        sql_statements.HANDLERS._handlers,
        ("athena", "CREATE SCHEMA"),
        sql_statements.Handler(slow, needs_spark=False),
    )
    athena = emulator.client("athena")
    exec_id = athena.start_query_execution(
        QueryString="create schema if not exists instant_timed", WorkGroup="primary"
    )["QueryExecutionId"]
    execution = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]
    assert execution["Status"]["State"] == "SUCCEEDED", execution["Status"]
    stats = execution["Statistics"]
    assert 80 <= stats["EngineExecutionTimeInMillis"] < 10_000, stats
    assert stats["TotalExecutionTimeInMillis"] == stats["EngineExecutionTimeInMillis"], stats
    assert run(emulator, "drop schema if exists instant_timed cascade") == ("SUCCEEDED", "")
