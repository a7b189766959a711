"""The conformance harness's classifier and normalisation rules (harness.py's docstring),
without an emulator: each rule that lets two texts match, and the differences it must not
hide."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import pytest

from tests.conformance.harness import (
    ERROR,
    MATCH,
    SUCCESS_ON_ERROR,
    WRONG,
    Example,
    Run,
    classify,
    clean_not_supported,
    load_examples,
    parse_example,
    single_expression,
    type_query,
    value_equal,
)


def example(
    sql: str = "SELECT abs(-5)",
    expect: Optional[List[List[Optional[str]]]] = None,
    fails: Optional[str] = None,
    ordered: bool = False,
) -> Example:
    return Example(
        "math",
        0,
        "docs/src/main/sphinx/functions/math.md",
        sql,
        expect if fails is None else None,
        fails,
        ordered=ordered,
    )


@pytest.mark.parametrize(
    "expected, actual, column_type",
    [
        ("5", "5", "integer"),
        ("0.01613008990009257", "0.016130089900092572", "double"),  # a double's last digit
        ("1.0E10", "1e10", "double"),  # Java's and the doc's exponent spelling
        ("[1.0, 2.8284271247461903]", "[1.0, 2.82842712474619]", "array"),
        ("2020-03-01 09:00:00", "2020-03-01 09:00:00.000", "timestamp"),
        ("{k1=20, k3=15}", "{k3=15, k1=20}", "map"),
        ("{1=[x, z], 2=[y]}", "{2=[y], 1=[x, z]}", "map"),
        (None, None, "integer"),
    ],
)
def test_values_that_match(
    expected: Optional[str], actual: Optional[str], column_type: str
) -> None:
    assert value_equal(expected, actual, column_type)


@pytest.mark.parametrize(
    "expected, actual, column_type",
    [
        ("5", "5.0", "double"),  # integer vs double
        ("2.50", "2.5", "decimal"),  # a decimal's scale
        ("0.1", "0.1000001", "double"),  # few digits: no tolerance
        ("0.01613008990009257", "0.0161300899", "double"),  # beyond 1e-12
        ("1e3", "1000", "varchar"),  # text is text
        ("null", None, "varchar"),  # the text 'null' is not NULL
        (None, "null", "varchar"),
        (None, "", "varchar"),
        # the doc's fraction counts
        ("2020-03-01 09:00:00.000", "2020-03-01 09:00:00", "timestamp"),
        ("2020-03-01 09:00:00", "2020-03-01 09:00:00.001", "timestamp"),  # non-zero fraction
        ("2020-05-11 00:00:00.000 UTC", "2020-05-11 00:00:00.000", "timestamp with time zone"),
        ("[1, 2]", "[2, 1]", "array"),  # arrays keep their order
        ("{k1=20, k3=15}", "{k3=15, k1=20}", "varchar"),  # only a map column is unordered
        ("{k1=20, k3=15}", "{k1=20, k3=15, k4=1}", "map"),
        ("{a=1}", "{a=1.0}", "map"),
    ],
)
def test_values_that_differ(
    expected: Optional[str], actual: Optional[str], column_type: str
) -> None:
    assert not value_equal(expected, actual, column_type)


def test_rows_compare_as_a_multiset_unless_ordered() -> None:
    run = Run(True, [["b"], ["a"]], ["varchar"])
    assert classify(example(expect=[["a"], ["b"]]), run).outcome == MATCH
    assert classify(example(expect=[["a"], ["b"]], ordered=True), run).outcome == WRONG
    assert classify(example(expect=[["a"], ["a"]]), run).outcome == WRONG


def test_row_and_column_counts_must_agree() -> None:
    assert (
        classify(example(expect=[["1"]]), Run(True, [["1"], ["1"]], ["integer"])).outcome == WRONG
    )
    assert (
        classify(example(expect=[["1"]]), Run(True, [["1", "2"]], ["integer", "integer"])).outcome
        == WRONG
    )
    assert classify(example(expect=[["1"]]), Run(True, [], ["integer"])).outcome == WRONG


def test_success_where_the_doc_says_it_fails() -> None:
    outcome = classify(example(fails="Division by zero"), Run(True, [[None]], ["integer"]))
    assert outcome.outcome == SUCCESS_ON_ERROR


def test_a_failure_the_doc_states() -> None:
    athena_like = "DIVISION_BY_ZERO: Division by zero"
    assert (
        classify(example(fails="Division by zero"), Run(False, reason=athena_like)).outcome == MATCH
    )
    assert classify(example(fails=""), Run(False, reason=athena_like)).outcome == MATCH
    other = classify(
        example(fails="Division by zero"), Run(False, reason="ArithmeticException: / by zero")
    )
    assert (other.outcome, other.clean) == (ERROR, False)


def test_not_supported_is_clean_only_when_it_names_a_construct_of_the_statement() -> None:
    sql = "SELECT url_extract_protocol('http://x')"
    named = (
        "NOT_SUPPORTED: the Athena emulator cannot run function url_extract_protocol. Statement: "
        + sql
    )
    vague = "NOT_SUPPORTED: the Athena emulator cannot run this. Statement: " + sql
    assert clean_not_supported(named, sql)
    # the statement's own text, after "Statement:", does not count
    assert not clean_not_supported(vague, sql)
    assert not clean_not_supported("AnalysisException: url_extract_protocol", sql)
    outcome = classify(example(sql=sql, expect=[["http"]]), Run(False, reason=named))
    assert (outcome.outcome, outcome.clean) == (ERROR, True)
    # a NOT_SUPPORTED where the doc says the query fails is still an ERROR, not a MATCH
    outcome = classify(example(sql=sql, fails=""), Run(False, reason=named))
    assert (outcome.outcome, outcome.clean) == (ERROR, True)


def test_words_inside_string_literals_do_not_count_as_constructs() -> None:
    sql = "SELECT upper('translate')"
    assert not clean_not_supported("NOT_SUPPORTED: cannot run translate", sql)
    assert clean_not_supported("NOT_SUPPORTED: cannot run function upper", sql)


def test_parse_example_reads_scalars_as_text_and_order_by() -> None:
    raw = {"doc": "d.md", "sql": "SELECT x FROM t ORDER BY x;", "expect": [[True, 5, None]]}
    parsed = parse_example("logical", 3, raw)
    assert parsed.expect == [["true", "5", None]]
    assert parsed.sql.endswith("ORDER BY x") and parsed.ordered
    assert parsed.id == "logical/d:3"
    inner = parse_example(
        "array", 0, {"doc": "d.md", "sql": "SELECT array_agg(x ORDER BY x)", "expect": 1}
    )
    assert not inner.ordered  # an ORDER BY inside a call does not order the rows
    with pytest.raises(ValueError):
        parse_example("x", 0, {"doc": "d.md", "sql": "SELECT 1", "expect": 1, "fails": True})
    with pytest.raises(ValueError):
        parse_example("x", 0, {"doc": "d.md", "sql": "SELECT 1", "expected": 1})


def test_the_corpus_loads_and_names_its_doc_files() -> None:
    examples = load_examples()
    assert len({e.id for e in examples}) == len(examples)
    for e in examples:
        trino = e.doc_repo == "trinodb/trino"
        assert e.doc.startswith("docs/src/main/sphinx/" if trino else "doc_source/"), e.id
        # Markdown pages; an .rst page only at the earlier commit that holds the example
        assert e.doc.endswith(".md") or (e.doc.endswith(".rst") and e.doc_commit), e.id
        assert Path(e.doc).stem in e.id


def test_clean_not_supported_accepts_a_literal_quoted_verbatim() -> None:
    """A refused literal (``0o40``, ``U&'...'``) has no word of two letters to name it; the
    refusal is clean when it quotes the literal as the statement wrote it, and not when it
    quotes sqlglot's rewriting of it or a single character."""
    assert clean_not_supported(
        "NOT_SUPPORTED: the Athena emulator cannot run the number literal 0o40 (...). "
        "Statement: SELECT 0 AS o40",
        "SELECT 0o40",
    )
    assert clean_not_supported(
        "NOT_SUPPORTED: the Athena emulator cannot run the Unicode string literal "
        "U&'Hello winter \\2603 !' (...). Statement: ...",
        "SELECT U&'Hello winter \\2603 !'",
    )
    assert not clean_not_supported(
        "NOT_SUPPORTED: the Athena emulator cannot run HexString (x'0A'). Statement: SELECT x'0A'",
        "SELECT 0x0A",
    )
    assert not clean_not_supported(
        "NOT_SUPPORTED: the Athena emulator cannot run a statement sqlglot cannot parse "
        "(near '.') (Unexpected token). Statement: SELECT 123_456.789_123",
        "SELECT 123_456.789_123",
    )
    # the refusal's own vocabulary never counts as naming the statement
    assert not clean_not_supported(
        "NOT_SUPPORTED: the Athena emulator cannot run the number literal. Statement: x",
        "SELECT 'the number literal'",
    )


def test_single_expression_and_the_type_query() -> None:
    assert single_expression("SELECT concat('a, b', 'c')") == "concat('a, b', 'c')"
    assert single_expression("SELECT 1, 2") is None
    assert single_expression("SELECT x FROM t") is None
    one = Example("f", 0, "", "SELECT abs(-5)", [["5"]], type=["integer"])
    assert type_query(one) == "SELECT typeof(abs(-5))"
    two = Example("f", 0, "", "SELECT 1, 'a'", [["1", "a"]], type=["integer", "varchar(1)"])
    assert type_query(two) == (
        "SELECT typeof(c0), typeof(c1) FROM (SELECT 1, 'a') t(c0, c1) LIMIT 1"
    )


def test_a_run_keeps_column_info_on_its_outcome() -> None:
    info = [{"Type": "integer", "Precision": 10, "Scale": 0}]
    outcome = classify(example(expect=[["5"]]), Run(True, [["5"]], ["integer"], column_info=info))
    assert outcome.outcome == MATCH and outcome.column_info == info
