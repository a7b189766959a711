"""The emulator's Python UDFs (athena_spark_emulator/sql/udfs.py): registration, the
NULL-on-error twin that ``try(...)`` uses, Athena's error text out of a Python traceback.
The end-to-end path (a UDF inside a statement on Spark) is the conformance corpus's."""

from __future__ import annotations

import pytest

pytest.importorskip("sqlglot")

from sqlglot import exp

from athena_spark_emulator.sql import udfs
from athena_spark_emulator.sql.functions import string


def test_each_udf_has_a_null_on_error_twin():
    assert "athena_luhn_check" in udfs.UDFS
    assert udfs.UDFS["athena_try_luhn_check"].fn("12a") is None
    with pytest.raises(udfs.AthenaError):
        udfs.UDFS["athena_luhn_check"].fn("12a")


def test_try_form_swaps_only_udf_calls():
    call = udfs.udf_call("luhn_check", exp.Literal.string("1"))
    assert udfs.try_form(call).name == "athena_try_luhn_check"
    other = exp.Anonymous(this="abs", expressions=[])
    assert udfs.try_form(other) is other


def test_unknown_udf_is_a_programming_error():
    with pytest.raises(KeyError, match="no UDF named 'nope'"):
        udfs.udf_call("nope")


def test_a_name_registered_twice_is_refused():
    with pytest.raises(ValueError, match="two UDFs named athena_luhn_check"):
        udfs.udf("luhn_check", "boolean")(lambda x: x)


def test_athena_error_text_is_found_inside_a_python_traceback():
    error = udfs.AthenaError("INVALID_FUNCTION_ARGUMENT: bad")
    trace = f"PythonException: An exception was thrown\nTraceback ...\n  {error}\n"
    assert udfs.athena_error(trace) == "INVALID_FUNCTION_ARGUMENT: bad"
    assert udfs.athena_error("AnalysisException: other") == ""


@pytest.mark.parametrize(
    ("digits", "valid"), [("79927398713", True), ("79927398714", False), ("0", True)]
)
def test_luhn_check(digits, valid):
    assert string.luhn_check(digits) is valid
