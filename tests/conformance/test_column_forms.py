"""The lifting of an entry's literals into columns (column_forms.py), without Spark: each
literal's Athena type and Glue column, the row, the rewritten statement, what stays a
literal and why, and what is not applicable; then every entry of both corpora."""

from __future__ import annotations

from typing import Any, List, Tuple

import pytest
import sqlglot

from athena_spark_emulator.accounts import glue_types
from tests.conformance.column_forms import HIVE, ICEBERG, Lifting, lift
from tests.conformance.harness import load_corpus


def lifted(sql: str, kind: str = HIVE) -> List[Tuple[str, str, str, Any]]:
    """(text, Athena type, Glue type, value) of each lifted literal."""
    lifting = lift(sql, kind)
    assert lifting.applicable, lifting.not_applicable
    return [(i.text, i.type.athena(kind), i.type.glue(), i.value) for i in lifting.lifted]


@pytest.mark.parametrize(
    "literal, athena, glue, value",
    [
        ("'abc'", "varchar", "string", "abc"),
        ("'it''s'", "varchar", "string", "it's"),
        ("1", "integer", "int", 1),
        ("3000000000", "bigint", "bigint", 3000000000),
        ("1.5", "decimal(2,1)", "decimal(2,1)", "1.5"),
        ("0.5", "decimal(1,1)", "decimal(1,1)", "0.5"),  # leading zeros: no digits
        ("1e0", "double", "double", 1.0),
        ("-7", "integer", "int", -7),
        ("-1.25", "decimal(3,2)", "decimal(3,2)", "-1.25"),
        ("0x10", "integer", "int", 16),  # read as the emulator reads it
        ("DATE '2001-08-22'", "date", "date", "2001-08-22"),
        ("DECIMAL '1.50'", "decimal(3,2)", "decimal(3,2)", "1.50"),
        ("REAL '1.5'", "real", "float", 1.5),
        ("DOUBLE '2.5'", "double", "double", 2.5),
        ("BIGINT '-123'", "bigint", "bigint", -123),
        ("TINYINT '7'", "tinyint", "tinyint", 7),
        ("TIMESTAMP '2020-01-01 10:00:00.123'", "timestamp(3)", "timestamp", None),
        ("TIMESTAMP '2020-01-01 10:00'", "timestamp(3)", "timestamp", None),
        ("X'0Aff'", "varbinary", "binary", b"\n\xff"),
        ("true", "boolean", "boolean", True),
        ("CAST(NULL AS bigint)", "bigint", "bigint", None),
        ("CAST(NULL AS decimal(5,2))", "decimal(5,2)", "decimal(5,2)", None),
        ("ARRAY[1, NULL, 3]", "array(integer)", "array<int>", [1, None, 3]),
        ("ARRAY[ARRAY['a'], ARRAY[]]", None, None, None),  # ARRAY[] has no type: inner kept
    ],
)
def test_a_literal_argument_and_its_column(
    literal: str, athena: Any, glue: Any, value: Any
) -> None:
    lifting = lift(f"SELECT f({literal})", HIVE)
    if athena is None:
        assert not any(i.text == literal for i in lifting.lifted)
        return
    [(text, got_athena, got_glue, got_value)] = lifted(f"SELECT f({literal})")
    assert (text, got_athena, got_glue) == (
        literal.replace("0x10", "16"),
        athena,
        glue,
    )
    if value is not None or "NULL" in literal:
        assert got_value == value
    glue_types.convert(got_value, got_glue)  # the value fits its column


def test_the_rewritten_statement_reads_the_columns_from_the_relation() -> None:
    lifting = lift("SELECT concat('a', 'b') AS c, abs(-5) -- a comment", HIVE)
    assert lifting.columns() == [("lit_0", "string"), ("lit_1", "string"), ("lit_2", "int")]
    assert lifting.row() == ["a", "b", -5]
    assert lifting.query("db.t") == (
        "SELECT concat(lit_0, lit_1) AS c, abs(lit_2) -- a comment\nFROM db.t"
    )
    assert lifting.cte_query("db.t") == (
        "WITH t AS (SELECT * FROM db.t)\n"
        "SELECT concat(lit_0, lit_1) AS c, abs(lit_2) -- a comment\nFROM t"
    )
    assert isinstance(
        sqlglot.parse_one(lifting.cte_query("db.t"), read="athena"), sqlglot.exp.Select
    )


def test_timestamps_go_where_a_column_holds_them_exactly() -> None:
    millis = "SELECT f(TIMESTAMP '2020-01-01 10:00:00.123')"
    micros = "SELECT f(TIMESTAMP '2020-01-01 10:00:00.123456')"
    whole = "SELECT f(TIMESTAMP '2020-01-01 10:00:00')"
    assert lift(millis, HIVE).applicable and not lift(millis, ICEBERG).applicable
    assert lift(micros, ICEBERG).applicable and not lift(micros, HIVE).applicable
    assert lift(whole, HIVE).applicable and not lift(whole, ICEBERG).applicable
    assert lift(micros, ICEBERG).athena_types() == {"lit_0": "timestamp(6)"}


def test_iceberg_holds_no_tinyint_or_smallint() -> None:
    assert not lift("SELECT f(TINYINT '1', SMALLINT '2')", ICEBERG).applicable
    assert lifted("SELECT f(TINYINT '1', SMALLINT '2')", HIVE)[1][1] == "smallint"


@pytest.mark.parametrize(
    "sql, kept",
    [
        ("SELECT 1 + 2", []),  # both lifted: operands of +
        ("SELECT date_trunc('day', DATE '2020-01-05')", ["'day'"]),
        ("SELECT date_add('hour', 9, TIMESTAMP '2020-03-01 00:00:00')", ["'hour'"]),
        ("SELECT date_format(DATE '2020-01-05', '%Y')", ["'%Y'"]),
        ("SELECT regexp_like('abc', 'b+')", ["'b+'"]),
        ("SELECT json_extract_scalar('{\"a\": 1}', '$.a')", ["'$.a'"]),
        (
            "SELECT TIMESTAMP '2020-01-01 00:00:00' AT TIME ZONE 'UTC' = TIMESTAMP '2020-01-01 00:00:00 UTC'",
            ["'UTC'"],
        ),
        ("SELECT CAST('1.5' AS decimal(3,1))", ["3", "1"]),
        (
            "SELECT f(TIME '10:00', JSON '[1]', INTERVAL '1' DAY, IPADDRESS '::1', 2)",
            ["'10:00'", "'[1]'", "'1'"],
        ),
        ("SELECT f(-2147483648, 1)", ["2147483648"]),
        ("SELECT f(x IS TRUE, false)", ["TRUE"]),
        ("SELECT f(U&'a', 'b')", ["U&'a'"]),
        ("SELECT 'a%' LIKE 'a!%' ESCAPE '!'", ["'!'"]),
        ("SELECT U&'a#0041' UESCAPE '#' || 'b'", ["'#'"]),
        ("SELECT ROW(1, 2.0)[1]", ["[1]"]),
        ("SELECT CAST(ROW(1, 'a') AS JSON)", ["ROW(lit_0, lit_1)"]),
        ("SELECT typeof(current_timestamp(6)) = 'x'", ["(6)"]),
        ("SELECT f(ARRAY[1, 2.5], 3)", ["ARRAY[lit_0, lit_1]"]),
        ("SELECT f(DECIMAL '007.5', 1)", ["DECIMAL '007.5'"]),
        ("SELECT f((SELECT 1), 2)", ["(SELECT 1)"]),
    ],
)
def test_what_stays_a_literal(sql: str, kept: List[str]) -> None:
    lifting = lift(sql, HIVE)
    body = lifting.body()
    for text in kept:
        assert text in body, (text, body)
    assert lifting.applicable


@pytest.mark.parametrize(
    "sql, reason",
    [
        ("SELECT 1", "no literal argument"),  # a whole select item is nobody's argument
        ("SELECT x + 1 FROM (VALUES 1) t(x)", "its own FROM"),
        ("VALUES 1, 2", "not a single SELECT"),
        ("SELECT 1 UNION SELECT 2", "not a single SELECT"),
        ("SELECT json_query('[1]', 'lax $[0]')", "SQL/JSON"),
        ("SELECT f(TIME '10:00')", "no literal argument"),
        ("SELECT (", "cannot parse"),
    ],
)
def test_not_applicable(sql: str, reason: str) -> None:
    lifting = lift(sql, HIVE)
    assert not lifting.applicable and reason in lifting.not_applicable


def test_true_and_false_are_placed_by_their_tokens() -> None:
    assert lifted("SELECT true AND false, NOT true") == [
        ("true", "boolean", "boolean", True),
        ("false", "boolean", "boolean", False),
        ("true", "boolean", "boolean", True),
    ]
    assert lift("SELECT CAST(null AS boolean) OR true", HIVE).body() == "SELECT lit_0 OR lit_1"


@pytest.mark.parametrize("corpus", ["docs", "trino"])
def test_every_entry_lifts_into_a_statement_and_a_row_that_fit(corpus: str) -> None:
    """Every applicable lifting parses, and each value fits its column's Glue type."""
    count = 0
    for example in load_corpus(corpus):
        for kind in (HIVE, ICEBERG):
            lifting: Lifting = lift(example.sql, kind)
            if not lifting.applicable:
                continue
            count += 1
            sqlglot.parse_one(lifting.cte_query("db.t"), read="athena")
            for name, glue in lifting.columns():
                value = lifting.row()[int(name.rsplit("_", 1)[1])]
                glue_types.convert(value, glue)
    assert count > {"docs": 700, "trino": 9000}[corpus]
