"""A statement that fails inside the emulator's own Python code says so, with the Python
error and where it was raised, instead of Spark's wrapper ("PythonException: An exception was
thrown from the Python worker", "Py4JJavaError: An error occurred while calling o505.save"),
which was all dbt printed for a cast of a timestamp column.

The exceptions are real: a Python UDF that raises, run by local PySpark in a fresh process,
once as a query (collect: PythonException) and once as a write (save: Py4JJavaError, the
form a CTAS of dbt's takes).

Then through the Athena API, over the columns of a Hive table, an Iceberg table, a view over
each and an import CTE (schema ``failure_reasons``): a division by zero, an invalid cast, an
integer and a decimal overflow, a UDF's failure and a missing column end FAILED with Athena's
code and Trino's words, as a query and as a CTAS. Before the change each of the Spark ones
read only "Py4JJavaError: An error occurred while calling o189.collectToPython." (or
"o687.save"), and a missing column was Spark's AnalysisException text."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Dict, Iterator

import pytest

from athena_spark_emulator import Emulator
from athena_spark_emulator.aws.failure_text import python_failure
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

SCRIPT = r"""
import json, sys, tempfile
from pyspark.sql import SparkSession, functions as F, types as T
from athena_spark_emulator.aws.queries import _reason

spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.sql.shuffle.partitions", "1").getOrCreate())
spark.sparkContext.setLogLevel("OFF")

def tstz_text(value):
    return str(value[0])

broken = F.udf(tstz_text, T.StringType())
frame = spark.range(1).select(broken(F.current_timestamp()).alias("s"))
reasons = {}
try:
    frame.collect()
except Exception as exc:
    reasons["collect"] = _reason(exc)
try:
    frame.write.format("parquet").save(tempfile.mkdtemp() + "/out")
except Exception as exc:
    reasons["save"] = _reason(exc)
spark.stop()
print(json.dumps(reasons))
"""


@pytest.fixture(scope="module")
def reasons() -> Dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("how", ["collect", "save"])
def test_the_python_error_and_its_place_reach_the_reason(reasons: Dict[str, str], how: str) -> None:
    reason = reasons[how]
    assert reason.startswith("EMULATOR_ERROR: the emulator's own Python code failed"), reason
    assert "TypeError: 'datetime.datetime' object is not subscriptable" in reason
    assert "in tstz_text at " in reason
    assert "not an answer Athena would give" in reason
    assert "Py4JJavaError" not in reason and "Python worker" not in reason


def test_text_without_a_python_traceback_is_left_to_the_other_rules() -> None:
    assert (
        python_failure("org.apache.spark.SparkException: [DIVIDE_BY_ZERO] Division by zero") is None
    )


# ---- through the Athena API, over the columns of tables, views and CTEs ------------------
# Each failure happens inside a Spark job (the value that fails is in the second row of a
# table, not a literal Spark can fold), where Spark wraps its own error class in
# "Py4JJavaError: An error occurred while calling o123.collectToPython" (a query) or
# "... o456.save" (a CTAS) and a Java stack trace; the reason is Athena's code and text.
SCHEMA = "failure_reasons"
ROWS = (
    "select 1 as k, 1 as n, '7' as s, cast(1 as decimal(38, 0)) as d, "
    "'2020-01-01T00:00:00Z' as iso "
    "union all select 0, 2, 'abc', cast('99999999999999999999999999999999999999' as "
    "decimal(38, 0)), 'not a time'"
)
TABLES = {
    "hive": f"create table {SCHEMA}.rows_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/rows_hive/') as {ROWS}",
    "iceberg": f"create table {SCHEMA}.rows_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/rows_iceberg/') as {ROWS}",
}
SOURCES = [
    f"{SCHEMA}.rows_hive",
    f"{SCHEMA}.rows_iceberg",
    f"{SCHEMA}.v_hive",
    f"{SCHEMA}.v_iceberg",
]
# (expression, the start of Athena's reason); Trino 410's texts: IntegerOperators.divide and
# .multiply, VarcharOperators.castToInteger, DecimalOperators.addLongLongLong
FAILURES = {
    "division": ("1 / t.k", "DIVISION_BY_ZERO: Division by zero"),
    "cast": ("cast(t.s as integer)", "INVALID_CAST_ARGUMENT: Cannot cast 'abc' to INT"),
    "integer_overflow": (
        "t.n * 2147483647",
        "NUMERIC_VALUE_OUT_OF_RANGE: integer multiplication overflow",
    ),
    "decimal_overflow": ("t.d + t.d", "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow"),
    "udf": (
        "cast(from_iso8601_timestamp(t.iso) as varchar)",
        'INVALID_FUNCTION_ARGUMENT: Invalid format: "not a time"',
    ),
}
SPARK_WORDS = ("Py4JJavaError", "collectToPython", ".save", "Traceback", "org.apache", "Use `try")


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA, TABLES, f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.rows_{{kind}}"
    )


def statement(expression: str, source: str, cte: bool) -> str:
    if cte:  # the import-CTE style of dbt models
        return f"with t as (select * from {source}) select {expression} as x from t"
    return f"select {expression} as x from {source} t"


def assert_athena_reason(reason: str, expected: str) -> None:
    assert reason.startswith(expected), reason
    assert not any(word in reason for word in SPARK_WORDS), reason


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_failing_query_over_columns_gives_athenas_reason(
    emu: Emulator, failure: str, source: str, cte: bool
) -> None:
    expression, expected = FAILURES[failure]
    state, reason = run(emu, statement(expression, source, cte))
    assert state == "FAILED", reason
    assert_athena_reason(reason, expected)


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_a_failing_ctas_gives_athenas_reason(emu: Emulator, failure: str) -> None:
    expression, expected = FAILURES[failure]
    sql = (
        f"create table {SCHEMA}.out_{failure} with (format='PARQUET', external_location="
        f"'s3://dbt-data/{SCHEMA}/out_{failure}/') as "
        + statement(expression, f"{SCHEMA}.rows_hive", cte=True)
    )
    state, reason = run(emu, sql)
    assert state == "FAILED", reason
    assert_athena_reason(reason, expected)


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
def test_a_missing_column_is_column_not_found(emu: Emulator, source: str, cte: bool) -> None:
    sql = statement("t.k, nope", source, cte)
    state, reason = run(emu, sql)
    assert state == "FAILED", reason
    line, column = 1, sql.index("nope") + 1  # Trino's position: line and column, from 1
    assert reason == f"COLUMN_NOT_FOUND: line {line}:{column}: Column 'nope' cannot be resolved"
