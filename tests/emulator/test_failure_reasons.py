"""A statement that fails inside the emulator's own Python code says so, with the Python
error and where it was raised, instead of Spark's wrapper ("PythonException: An exception was
thrown from the Python worker", "Py4JJavaError: An error occurred while calling o505.save"),
which was all dbt printed for a cast of a timestamp column.

The exceptions are real: a Python UDF that raises, run by local PySpark in a fresh process,
once as a query (collect: PythonException) and once as a write (save: Py4JJavaError, the
form a CTAS of dbt's takes)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Dict

import pytest

from athena_spark_emulator.aws.queries import python_failure

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
