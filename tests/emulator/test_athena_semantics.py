"""Where Spark's answer differs from Athena's (integer division, date_add units, NULL in
greatest, bad casts, 1/0, ordered array_agg, ISO day of week, _col0 names), row by row,
through the emulator's Athena API on local Spark: each
statement gives Athena's (Trino's) answer, fails where Athena fails, or is refused with
NOT_SUPPORTED naming the construct (and writes nothing). Python models' Spark session keeps
Spark's own semantics.

On main 80dadb0 (before the change) these printed: 5/2 -> 2.5; date_add('hour', ...) ->
2020-03-10; greatest(1, null, 3) -> 3; cast('abc' as integer) and 1/0 -> NULL, SUCCEEDED;
the ordered array_agg -> 1,3,2; day_of_week -> 6; the column of 5/2 named '(5 / 2)'."""

from __future__ import annotations

import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(executor="spark") as emulator:
        emulator.prepare()
        yield emulator


def settled(athena: Any, exec_id: str) -> Dict[str, Any]:
    """The execution's final Status. The emulator runs a statement within
    StartQueryExecution; on a loaded machine the client's read timeout can end that call
    first (botocore retries with the same token and gets the execution id), so the statement
    may still be RUNNING: wait for it, as Athena's clients poll."""
    deadline = time.monotonic() + 900
    while True:
        status = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]["Status"]
        if status["State"] not in ("QUEUED", "RUNNING") or time.monotonic() > deadline:
            return dict(status)
        time.sleep(0.2)


def run(emu: Emulator, sql: str) -> Tuple[str, Any]:
    athena = emu.client("athena")
    exec_id = athena.start_query_execution(
        QueryString=sql, QueryExecutionContext={"Database": "default"}, WorkGroup="primary"
    )["QueryExecutionId"]
    status = settled(athena, exec_id)
    if status["State"] != "SUCCEEDED":
        return status["State"], status.get("StateChangeReason", "")
    result = athena.get_query_results(QueryExecutionId=exec_id)["ResultSet"]
    rows: List[List[Optional[str]]] = [
        [d.get("VarCharValue") for d in r["Data"]] for r in result["Rows"]
    ]
    return "SUCCEEDED", rows


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("select 5/2", "2"),
        # Spark's variable substitution would empty ${...} in the statement's text
        ("select '${xyz}'", "${xyz}"),
        ("select concat(s, '$${a}b') from (values 'x') t(s)", "x$${a}b"),
        (
            "select date_add('hour', 9, timestamp '2020-03-01 00:00:00')",
            "2020-03-01 09:00:00.000",
        ),
        ("select greatest(1, null, 3)", None),
        (
            "select array_join(array_agg(x order by x desc), ',') from (values 1,3,2) t(x)",
            "3,2,1",
        ),
        ("select day_of_week(date '2022-10-20')", "4"),
        ("select split_part('a,b', ',', 3)", None),
        ("select decimal '1.5' / 3", "0.5"),
        ("select try(cast('abc' as integer))", None),
        ("select try(1/0)", None),
        ("select element_at(array[1, 2], 5)", None),
        ("select timestamp '2020-01-01 00:00:00.123456'", "2020-01-01 00:00:00.123456"),
        # sqlglot 30 parses second() as its own node, which the table did not know
        # (dbt-athena's datediff macro calls it): NOT_SUPPORTED before
        ("select second(timestamp '2024-01-01 10:00:05')", "5"),
    ],
)
def test_athena_value(emu: Emulator, sql: str, expected: Optional[str]) -> None:
    state, rows = run(emu, sql)
    assert state == "SUCCEEDED", rows
    assert rows[1] == [expected]


@pytest.mark.parametrize(
    "sql, error",
    [
        ("select cast('abc' as integer)", "INVALID_CAST_ARGUMENT: Cannot cast 'abc' to INT"),
        ("select 1/0", "DIVISION_BY_ZERO: Division by zero"),
        (
            "select array[1, 2][5]",
            "INVALID_FUNCTION_ARGUMENT: Array subscript must be less than or equal to array "
            "length: 5 > 2",
        ),
        (  # Trino's DecimalCasts: INVALID_CAST_ARGUMENT, not an overflow
            "select cast(12345 as decimal(3,0))",
            "INVALID_CAST_ARGUMENT: Cannot cast INTEGER '12345' to DECIMAL(3, 0)",
        ),
        (  # Trino has no natural join; Spark ran it (dbt_utils.deduplicate passed locally)
            "select * from (values (1, 'a')) l(k, v) natural join (values (1, 'b')) r(k, w)",
            "NOT_SUPPORTED: Natural join not supported",
        ),
    ],
)
def test_fails_where_athena_fails(emu: Emulator, sql: str, error: str) -> None:
    state, reason = run(emu, sql)
    assert state == "FAILED"
    assert reason.startswith(error), reason
    # Spark's advice names settings and functions an Athena query has not got
    assert "spark.sql" not in reason and "try_" not in reason and "[" not in reason, reason


def test_unaliased_columns_are_named_by_position(emu: Emulator) -> None:
    state, rows = run(emu, "select 5/2, 1 as one, 3 + 4")
    assert state == "SUCCEEDED", rows
    assert rows[0] == ["_col0", "one", "_col2"]


def test_ctas_names_unaliased_columns_by_position(emu: Emulator) -> None:
    emu.catalog.ensure_database(LOCAL_ACCOUNT, "analytics")
    state, _ = run(emu, "create table analytics.named as select 5/2, 'x' as label")
    assert state == "SUCCEEDED", _
    columns = emu.catalog.get_table(TableRef(LOCAL_ACCOUNT, "analytics", "named"))[
        "StorageDescriptor"
    ]["Columns"]
    assert [c["Name"] for c in columns] == ["_col0", "label"]


def test_a_refused_function_names_itself_and_writes_nothing(emu: Emulator) -> None:
    emu.catalog.ensure_database(LOCAL_ACCOUNT, "analytics")
    state, reason = run(
        emu, "create table analytics.refused as select bing_tile_at(47.26, -122.32, 10) ok"
    )
    assert state == "FAILED"
    assert reason.startswith(
        "NOT_SUPPORTED: the Athena emulator cannot run the function bing_tile_at "
        "(the emulator does not run it"
    ), reason
    assert not emu.catalog.table_exists(TableRef(LOCAL_ACCOUNT, "analytics", "refused"))


def test_python_models_keep_sparks_semantics(emu: Emulator) -> None:
    """SQL statements run in a child session with ANSI mode; the session Python models
    (calculations) get is the parent, with Spark's defaults: 1/0 is NULL there."""
    assert run(emu, "select 1/0")[0] == "FAILED"
    from athena_spark_emulator.spark.executor import SPARK

    spark = SPARK.session
    assert spark is not None
    assert spark.conf.get("spark.sql.ansi.enabled") == "false"
    assert spark.sql("select 1/0 as x").collect()[0].x is None


FAILING_QUERY = """
from athena_spark_emulator import Emulator
with Emulator(executor="spark") as emu:
    emu.prepare()
    athena = emu.client("athena")
    for sql in ("select 1/0", "select json_object('a': 1, 'a': 2 WITH UNIQUE KEYS)"):
        exec_id = athena.start_query_execution(QueryString=sql, WorkGroup="primary")[
            "QueryExecutionId"
        ]
        status = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]["Status"]
        print(status["State"], status.get("StateChangeReason", ""))
"""


def test_a_failing_query_is_reported_once_not_as_spark_stack_traces(tmp_path: Any) -> None:
    """A query that fails in a Spark task (Spark's own error, or an Athena error a Python UDF
    raises) reaches the caller with Athena's reason; the emulator's terminal gets no Java
    stack trace from Spark's executor and scheduler (there were two per failed query)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    done = subprocess.run(
        [sys.executable, "-c", FAILING_QUERY],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**env, "TMPDIR": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "FAILED DIVISION_BY_ZERO: Division by zero.",
        "FAILED INVALID_FUNCTION_ARGUMENT: duplicate key passed to JSON_OBJECT function",
    ], done.stdout + done.stderr[-3000:]
    assert "Executor" not in done.stderr and "at org.apache" not in done.stderr, done.stderr


def test_a_udf_is_registered_when_a_statement_first_calls_it(emu: Emulator) -> None:
    """The SQL session registers a Python UDF when a statement first calls it, not all of
    them when it starts (140 took 4-6 s of the first statement's time)."""
    from athena_spark_emulator.aws import queries as execution

    state, _ = run(emu, "select 1")
    assert state == "SUCCEEDED"
    (session,) = execution._SQL_SESSIONS.values()
    assert not session.catalog.functionExists("athena_human_readable_seconds")
    state, rows = run(emu, "select human_readable_seconds(96)")
    assert state == "SUCCEEDED" and rows[1] == ["1 minute, 36 seconds"], rows
    assert session.catalog.functionExists("athena_human_readable_seconds")
    assert not session.catalog.functionExists("athena_try_human_readable_seconds")
    state, rows = run(emu, "select try(human_readable_seconds(96))")
    assert state == "SUCCEEDED" and rows[1] == ["1 minute, 36 seconds"], rows
    assert session.catalog.functionExists("athena_try_human_readable_seconds")
