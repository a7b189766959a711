"""Athena's reason read from a failed statement's exception text (aws/failure_text.py), on the
texts the emulator really raised (tests/unit/spark_failure_texts.py): the Spark error inside a
job is found below Py4J's first line ("An error occurred while calling o123.collectToPython",
which was all the reason held), and worded as Trino 410 words it."""

from __future__ import annotations

import pytest

from athena_spark_emulator.aws.failure_text import athena_reason, position, spark_fault
from tests.unit.spark_failure_texts import TEXTS

ATHENA = {
    "division": "DIVISION_BY_ZERO: Division by zero.",
    "ctas_division": "DIVISION_BY_ZERO: Division by zero.",
    "cast": "INVALID_CAST_ARGUMENT: Cannot cast 'abc' to INT",
    "ctas_cast": "INVALID_CAST_ARGUMENT: Cannot cast 'abc' to INT",
    "integer_overflow": "NUMERIC_VALUE_OUT_OF_RANGE: integer multiplication overflow",
    "decimal_overflow": "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow",
    "missing_column": "COLUMN_NOT_FOUND: line 1:13: Column 'nope' cannot be resolved",
    "missing_column_cte": "COLUMN_NOT_FOUND: line 1:65: Column 'nope' cannot be resolved",
}


@pytest.mark.parametrize("name", sorted(ATHENA))
def test_captured_spark_failures_read_as_athenas(name: str) -> None:
    sql, _, text = TEXTS[name]
    assert athena_reason(text, sql) == ATHENA[name]


@pytest.mark.parametrize(
    "message, athena",
    [
        (
            'The value \'x\' of the type "STRING" cannot be cast to "FLOAT"',
            "Cannot cast 'x' to REAL",
        ),
        (
            'The value \'x\' of the type "STRING" cannot be cast to "DECIMAL(5,2)"',
            "Cannot cast VARCHAR 'x' to DECIMAL(5, 2). Value is not a number.",
        ),
        (
            'The value \'x\' of the type "STRING" cannot be cast to "DATE"',
            "Value cannot be cast to date: 'x'",
        ),
    ],
)
def test_cast_failures_in_trinos_words(message: str, athena: str) -> None:
    text = f"An error occurred while calling o1.save.\n: x: [CAST_INVALID_INPUT] {message} because"
    assert athena_reason(text) == f"INVALID_CAST_ARGUMENT: {athena}"


@pytest.mark.parametrize(
    "advice, kind, athena",
    [
        ("try_add", "long", "bigint addition overflow"),
        ("try_subtract", "integer", "integer subtraction overflow"),
        ("", "short", "smallint overflow"),
    ],
)
def test_overflow_names_the_type_and_operation(advice: str, kind: str, athena: str) -> None:
    use = f" Use '{advice}' to tolerate overflow." if advice else ""
    text = f"[ARITHMETIC_OVERFLOW] {kind} overflow.{use}"
    assert athena_reason(text) == f"NUMERIC_VALUE_OUT_OF_RANGE: {athena}"


def test_missing_tables_and_schemas_in_athenas_words() -> None:
    sql = "select *\nfrom  sales.Orders"
    table = "[TABLE_OR_VIEW_NOT_FOUND] The table or view `sales`.`orders` cannot be found."
    assert athena_reason(table, sql) == (
        "TABLE_NOT_FOUND: line 2:7: Table 'sales.orders' does not exist"
    )
    schema = "[SCHEMA_NOT_FOUND] The schema `sales` cannot be found. Verify the spelling"
    assert athena_reason(schema, sql) == "SCHEMA_NOT_FOUND: Schema 'sales' does not exist"


def test_a_position_is_a_name_outside_strings() -> None:
    assert position("select 'nope', nope from t", ["nope"]) == "line 1:16: "
    assert position('select t."nope" from t', ["t", "nope"]) == "line 1:8: "
    assert position("select nopes from t", ["nope"]) == ""


def test_an_unmapped_spark_failure_names_its_innermost_cause() -> None:
    text = (
        "An error occurred while calling o7.collectToPython.\n"
        ": org.apache.spark.SparkException: Job aborted due to stage failure: Lost task 0.0 in "
        "stage 1.0 (TID 1) (localhost executor driver): java.lang.IllegalStateException: outer\n"
        "\tat x.y(Z.java:1)\n"
        "Caused by: java.lang.IllegalStateException: the real cause\n"
        "\tat x.y(Z.java:2)\n"
    )
    reason = spark_fault(text)
    assert reason is not None
    assert reason.startswith("EMULATOR_ERROR: Spark failed while running this statement's")
    assert "(IllegalStateException: the real cause)" in reason
    assert athena_reason(text) == reason
    assert spark_fault("AnalysisException text") is None


def test_raise_error_keeps_athenas_text() -> None:
    text = 'An error occurred\nCaused by: java.lang.RuntimeException: Invalid format: "x"\n'
    assert athena_reason(text) == 'INVALID_FUNCTION_ARGUMENT: Invalid format: "x"'


OUT_OF_RANGE = (
    "[NUMERIC_VALUE_OUT_OF_RANGE] {value} cannot be represented as Decimal({p}, {s}). If "
    'necessary set "spark.sql.ansi.enabled" to "false" to bypass this error, and return NULL '
    "instead.\n== SQL(line 1, position {at}) ==\n{sql}\n{marks}\n"
)


def spark_context(value: str, p: int, s: int, sql: str, expression: str) -> str:
    """Spark's text for a decimal out of range, with its SQL context (captured form)."""
    at = sql.index(expression)
    marks = " " * at + "^" * len(expression)
    return OUT_OF_RANGE.format(value=value, p=p, s=s, at=at + 1, sql=sql, marks=marks)


@pytest.mark.parametrize(
    "value, p, s, expression, athena",
    [
        (
            "10",
            38,
            37,
            "CAST(CAST('10' AS BIGINT) AS DECIMAL(38, 37))",
            "INVALID_CAST_ARGUMENT: Cannot cast BIGINT '10' to DECIMAL(38, 37)",
        ),
        (
            "234.0",
            2,
            0,
            "CAST(ATHENA_FINITE_FOR_DECIMAL(CAST('234.0' AS DOUBLE), 'DOUBLE', 'DECIMAL(2, 0)') "
            "AS DECIMAL(2, 0))",
            "INVALID_CAST_ARGUMENT: Cannot cast DOUBLE '234.0' to DECIMAL(2, 0)",
        ),
        (
            "1000.01",
            5,
            2,
            "CAST('1000.01' AS DECIMAL(5, 2))",
            "INVALID_CAST_ARGUMENT: Cannot cast VARCHAR '1000.01' to DECIMAL(5, 2). Value too large.",
        ),
        (
            "12345.6",
            4,
            0,
            "CAST(CAST('12345.6' AS DECIMAL(6, 1)) AS DECIMAL(4, 0))",
            "INVALID_CAST_ARGUMENT: Cannot cast DECIMAL(6, 1) '12345.6' to DECIMAL(4, 0)",
        ),
        (  # arithmetic whose result is cast to another type: Decimal overflow
            "10000000000000000000000000000000001.5",
            38,
            6,
            "CAST((CAST('5' AS DECIMAL(36, 0))) / (CAST('50' AS DECIMAL(2, 0))) AS DECIMAL(36, 0))",
            "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow",
        ),
        ("3", 38, 0, "t.d + t.d", "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow"),
    ],
)
def test_a_decimal_out_of_range_is_a_cast_or_an_overflow(
    value: str, p: int, s: int, expression: str, athena: str
) -> None:
    text = spark_context(value, p, s, f"SELECT {expression} AS _col0", expression)
    assert athena_reason(text) == athena


def test_an_invalid_date_literal_is_invalid_literal() -> None:
    text = (
        "[CAST_INVALID_INPUT] The value '2013-02-30' of the type \"STRING\" cannot be cast to "
        '"DATE" because it is malformed.'
    )
    assert athena_reason(text, "SELECT DATE '2013-02-30'") == (
        "INVALID_LITERAL: line 1:8: '2013-02-30' is not a valid date literal"
    )
    assert athena_reason(text, "SELECT cast(s AS date) FROM t") == (
        "INVALID_CAST_ARGUMENT: Value cannot be cast to date: '2013-02-30'"
    )


@pytest.mark.parametrize(
    "text, athena",
    [
        (
            "ArithmeticException: [BINARY_ARITHMETIC_OVERFLOW] 32767S + 1S caused overflow.",
            "NUMERIC_VALUE_OUT_OF_RANGE: addition overflow: 32767 + 1",
        ),
        (
            "[BINARY_ARITHMETIC_OVERFLOW] -128S - 1S caused overflow.",
            "NUMERIC_VALUE_OUT_OF_RANGE: subtraction overflow: -128 - 1",
        ),
        (  # str() of PySpark's ArithmeticException, and a Java text
            "- -32768 caused overflow.",
            "NUMERIC_VALUE_OUT_OF_RANGE: negation overflow: -32768",
        ),
        (
            "Caused by: java.lang.ArithmeticException: - -128 caused overflow.",
            "NUMERIC_VALUE_OUT_OF_RANGE: negation overflow: -128",
        ),
    ],
)
def test_small_integer_overflows_keep_their_operands(text: str, athena: str) -> None:
    assert athena_reason(text) == athena
