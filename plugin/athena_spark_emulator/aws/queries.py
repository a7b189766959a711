"""Athena SQL on the emulator: the moto hooks around ``StartQueryExecution``,
``GetQueryExecution`` and ``GetQueryResults``.

Every statement sent to an emulator's endpoint is parsed and run by its handler
(``statements.py``) before ``StartQueryExecution`` returns; moto only keeps the query
execution. The query then reports ``SUCCEEDED`` (with the statement type and the rows
``GetQueryResults`` pages through, typed as Athena types them) or ``FAILED`` with the
reason: a statement the emulator cannot translate or run names the statement and the
construct, and nothing is reported as done that was not done.

With the instant executor (no Spark) the statements that only change Glue metadata
(schemas, drops, renames, table properties) run; every statement that reads or writes data
fails, naming ``--spark``.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable, Dict, Optional

from athena_spark_emulator.aws import failure_text
from athena_spark_emulator.aws.backend import EmulatorBackend, current
from athena_spark_emulator.sql import results, syntax, udfs
from athena_spark_emulator.sql import statements as sql_statements
from athena_spark_emulator.sql.functions.table import Fails
from athena_spark_emulator.sql.statements import Engine, Outcome, Statement

NEEDS_SPARK = (
    "the emulator's instant executor runs no SQL that reads or writes data: start it with "
    "--spark (athena-spark-emulator run --spark ..., serve --spark, or "
    "Emulator(executor='spark')) to run {kind} statements"
)


TIME_PARSER = "spark.sql.legacy.timeParserPolicy"
# Athena SQL runs in a child session of the emulator's one SparkSession (same catalog,
# files and SparkContext; its own settings): Trino's semantics where Spark has a switch for
# them. Python models (calculations) keep the parent session and Spark's defaults, as on
# Athena for Apache Spark.
SQL_SETTINGS = {
    "spark.sql.ansi.enabled": "true",  # invalid casts, / 0, overflow, bad subscripts fail
    TIME_PARSER: "CORRECTED",  # an unparsable date is NULL under try(), as in Trino
    "spark.sql.session.timeZone": "UTC",
}
_SQL_SESSIONS: Dict[int, Any] = {}


def sql_session(spark: Any) -> Any:
    """The child session Athena SQL statements run in (one per parent session)."""
    child = _SQL_SESSIONS.get(id(spark))
    if child is None:
        child = spark.newSession()
        for key, value in SQL_SETTINGS.items():
            child.conf.set(key, value)
        _SQL_SESSIONS.clear()  # a new parent session (tests): the old child goes with it
        _SQL_SESSIONS[id(spark)] = child
    return child


def _spark_runner(backend: EmulatorBackend) -> Optional[Callable[[Callable[[Any], Any]], Any]]:
    return getattr(backend.calculations.executor, "run_with_spark", None)


def _context(args: Any, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    context = kwargs.get("context", args[0] if args else None)
    if isinstance(context, str):
        try:
            context = json.loads(context)
        except ValueError:
            context = None
    return context if isinstance(context, dict) else {}


def run(
    backend: EmulatorBackend, query: str, context: Dict[str, Any], caller: Optional[str] = None
) -> Outcome:
    """Parse and run one statement on ``backend``'s catalog (raises on failure)."""
    tree = syntax.parse(query)
    statement = Statement(
        query,
        tree,
        syntax.statement_kind(tree),
        str(context.get("Database") or "default"),
        str(context.get("Catalog") or sql_statements.DEFAULT_CATALOG),
    )
    handler = sql_statements.handler_for(statement)
    if not handler.needs_spark:
        return handler.run(Engine(backend.catalog, caller=caller), statement)
    runner = _spark_runner(backend)
    if runner is None:
        raise sql_statements.QueryFailed(NEEDS_SPARK.format(kind=statement.kind))

    def on_spark(spark: Any) -> Outcome:
        engine = Engine(backend.catalog, sql_session(spark), caller)
        try:
            return handler.run(engine, statement)
        finally:
            engine.close()

    return runner(on_spark)


def _reason(exc: Exception, query: str = "") -> str:
    """Why the statement ``query`` failed, as Athena says it: the emulator's own refusals and
    Athena errors as raised; a UDF's Athena error (udfs.py); Spark's error, read anywhere in
    its text for the innermost meaningful cause, or a Python traceback of the emulator's own
    code (failure_text.py); else the exception's first line."""
    if isinstance(exc, (syntax.Untranslatable, sql_statements.QueryFailed, Fails)):
        return str(exc)
    text = str(exc)
    athena = udfs.athena_error(text)
    if athena:  # a UDF's (udfs.py) failure, in Athena's words
        return athena
    reason = failure_text.athena_reason(text, query)
    if reason:
        return reason
    lines = text.strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")


# ---- the moto hooks (installed by hooks.py while an emulator runs) ------------------------
def start_query_execution(
    original: Callable[..., str], athena: Any, query: str, *args: Any, **kwargs: Any
) -> str:
    """moto's AthenaBackend.start_query_execution, then the statement, run."""
    exec_id = original(athena, query, *args, **kwargs)
    backend = current()
    if backend is None:
        return exec_id  # not an emulator request: moto's behaviour
    token = getattr(_REQUEST, "token", None)
    _REQUEST.token = None
    caller, _REQUEST.caller = getattr(_REQUEST, "caller", None), None
    if token:
        backend.sql.tokens[token] = exec_id  # a retry of this request gets this execution
    backend.sql.seen.append(query)
    backend.sql.running.add(exec_id)
    started = time.perf_counter()
    try:
        backend.sql.outcomes[exec_id] = run(backend, query, _context(args, kwargs), caller)
        backend.sql.applied.append(query)
    except Exception as exc:  # the query fails, as Athena's would
        backend.sql.failures[exec_id] = _reason(exc, query)
        athena.executions[exec_id].status = "FAILED"
    finally:
        backend.sql.running.discard(exec_id)
        backend.sql.millis[exec_id] = round((time.perf_counter() - started) * 1000)
    return exec_id


_REQUEST = threading.local()  # the ClientRequestToken of the StartQueryExecution being served


def start_query_request(
    backend: EmulatorBackend, response: Any, caller: Optional[str] = None
) -> Optional[str]:
    """``StartQueryExecution`` is idempotent per ``ClientRequestToken``, as on Athena
    (botocore fills the token once per call and sends it again on a retry): a token already
    seen answers with its execution and runs nothing; a new one goes to moto and is
    remembered by :func:`start_query_execution`. A statement queued behind the emulator's
    Spark for longer than the client's read timeout is then not run twice."""
    _REQUEST.caller = caller  # the statement reads as its caller, as on Athena
    token = response._get_param("ClientRequestToken")
    if not token:
        return None
    previous = backend.sql.tokens.get(token)
    if previous is not None:
        return json.dumps({"QueryExecutionId": previous})
    _REQUEST.token = token
    return None


def get_query_execution(original: Callable[[Any], Any], response: Any) -> Any:
    """moto's AthenaResponse.get_query_execution with the state, reason, statement type and
    execution time (``Statistics``) of the statement as the emulator ran it."""
    body = original(response)
    backend = current()
    if backend is None or not isinstance(body, str):
        return body
    exec_id = response._get_param("QueryExecutionId")
    reason = backend.sql.failures.get(exec_id)
    outcome = backend.sql.outcomes.get(exec_id)
    running = exec_id in backend.sql.running
    if reason is None and outcome is None and not running:
        return body
    data = json.loads(body)
    execution = data["QueryExecution"]
    if exec_id in backend.sql.millis:  # parse, translate and run: no queue, no planning
        millis = backend.sql.millis[exec_id]
        execution.setdefault("Statistics", {}).update(
            EngineExecutionTimeInMillis=millis, TotalExecutionTimeInMillis=millis
        )
    if running:  # still being run (a retried start found it): poll again, as on Athena
        execution["Status"]["State"] = "RUNNING"
        execution["Status"].pop("CompletionDateTime", None)
    elif reason is not None:
        execution["Status"]["State"] = "FAILED"
        execution["Status"]["StateChangeReason"] = reason
        execution["Status"]["AthenaError"] = {"ErrorCategory": 2, "ErrorType": 1006}
    elif outcome is not None:
        execution["StatementType"] = outcome.statement_type
    return json.dumps(data)


PAGE = 1000  # GetQueryResults' largest MaxResults


def column_info(name: str, athena: str) -> Dict[str, Any]:
    """One column's ``ColumnInfo`` as Athena gives it: its type's name, with a decimal's
    precision and scale, a varchar's length, a timestamp's fraction digits, and the
    precisions Athena gives the other types (results.column_info)."""
    kind, precision, scale = results.column_info(athena)
    return {
        "CatalogName": "hive",
        "SchemaName": "",
        "TableName": "",
        "Name": name,
        "Label": name,
        "Type": kind,
        "Precision": precision,
        "Scale": scale,
        "Nullable": "UNKNOWN",
        "CaseSensitive": kind in ("varchar", "char"),
    }


def get_query_results(backend: EmulatorBackend, response: Any) -> Optional[str]:
    """``GetQueryResults`` of a statement the emulator ran (None: leave it to moto).

    A DML result's first row holds the column labels, as on Athena; pages follow
    ``MaxResults`` / ``NextToken``.
    """
    exec_id = response._get_param("QueryExecutionId")
    outcome = backend.sql.outcomes.get(exec_id)
    if outcome is None:
        return None
    rows = list(outcome.rows)
    if outcome.statement_type == "DML" and outcome.columns:
        rows.insert(0, [name for name, _ in outcome.columns])
    start = int(response._get_param("NextToken") or 0)
    size = min(int(response._get_param("MaxResults") or PAGE), PAGE)
    page = rows[start : start + size]
    answer: Dict[str, Any] = {
        "ResultSet": {
            "Rows": [
                {"Data": [{} if v is None else {"VarCharValue": v} for v in row]} for row in page
            ],
            "ResultSetMetadata": {
                "ColumnInfo": [column_info(name, kind) for name, kind in outcome.columns]
            },
        },
        "UpdateCount": outcome.update_count if outcome.update_count is not None else 0,
    }
    if start + size < len(rows):
        answer["NextToken"] = str(start + size)
    return json.dumps(answer)
