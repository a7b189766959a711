"""The extractor of Trino's unit-test assertions (trino_tests.py) on small Java snippets,
one per assertion form and per skip reason; its determinism; the harness's reading of its
entries (types checked exactly, expected errors); and that the committed corpus is what
the extractor makes of the recorded commit (when the Trino mirror is on this machine).
No Spark: the harness runs against a fake Athena client."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
import yaml

from tests.conformance import trino_tests as T
from tests.conformance.harness import (
    ERROR,
    MATCH,
    SUCCESS_ON_ERROR,
    TRINO_EXAMPLES_DIR,
    WRONG,
    Run,
    classify,
    load_corpus,
    parse_example,
    run_example,
    type_query,
)
from tests.conformance.java_source import text_block, tokenize
from tests.conformance.trino_values import java_double, java_float, sql_literal, values_rows

PATH = T.TEST_ROOT + "operator/scalar/TestMathFunctions.java"


def java(body: str, members: str = "") -> str:
    return (
        "package io.trino.operator.scalar;\n"
        "public class TestX\n{\n"
        f"{members}\n"
        "    @Test\n    public void test()\n    {\n"
        f"{body}\n"
        "    }\n}\n"
    )


def extract(body: str, members: str = "", path: str = PATH) -> T.Extraction:
    return T.extract({path: java(body, members)}, "0" * 40)


def only(body: str, members: str = "", path: str = PATH) -> Dict[str, Any]:
    result = extract(body, members, path)
    assert not result.skips, result.skips
    assert len(result.entries) == 1
    return result.entries[0].as_yaml()


def skipped(body: str, members: str = "", path: str = PATH) -> List[str]:
    result = extract(body, members, path)
    assert not result.entries, [e.as_yaml() for e in result.entries]
    return list(result.skips)


# ---------------------------------------------------------------------------------------
# Each assertion form


def test_function_with_a_long() -> None:
    entry = only('assertThat(assertions.function("abs", "BIGINT \'-123\'"))\n.isEqualTo(123L);')
    assert entry == {
        "source": PATH + ":8",
        "sql": "SELECT abs(BIGINT '-123')",
        "expect": "123",
        "type": "bigint",
    }


@pytest.mark.parametrize(
    "java_value, text, type_name",
    [
        ("(byte) 123", "123", "tinyint"),
        ("(short) -5", "-5", "smallint"),
        ("123", "123", "integer"),
        ("123.45", "123.45", "double"),
        ("1.0E10", "1.0E10", "double"),
        ("Double.NaN", "NaN", "double"),
        ("754.1985f", "754.1985", "real"),
        ("true", "true", "boolean"),
        ('decimal("12345", createDecimalType(5, 2))', "123.45", "decimal(5,2)"),
        ('decimal("-5", createDecimalType(3, 2))', "-0.05", "decimal(3,2)"),
        ('ImmutableMap.of("a", 1)', "{a=1}", None),
        ('sqlVarbinaryFromHex("5B74")', "5b 74", "varbinary"),
    ],
)
def test_java_values(java_value: str, text: str, type_name: Optional[str]) -> None:
    entry = only(f'assertThat(assertions.expression("x")).isEqualTo({java_value});')
    assert entry["expect"] == text
    assert entry.get("type") == type_name


def test_lists_are_arrays_or_rows_by_their_type() -> None:
    array = only(
        'assertThat(assertions.expression("x")).hasType(new ArrayType(VARCHAR))'
        '.isEqualTo(asList("a", null));'
    )
    assert (array["expect"], array["type"]) == ("[a, null]", "array(varchar)")
    row = only(
        'assertThat(assertions.expression("x")).hasType(anonymousRow(BIGINT, DOUBLE))'
        ".isEqualTo(ImmutableList.of(1L, 2.0));"
    )
    assert (row["expect"], row["type"]) == ("{field0=1, field1=2.0}", "row(bigint, double)")
    assert skipped('assertThat(assertions.expression("x")).isEqualTo(ImmutableList.of(1L));') == [
        "a Java list of unknown type (array or row)"
    ]


def test_has_type_and_string_value() -> None:
    entry = only(
        'assertThat(assertions.function("lower", "\'ABC\'"))\n'
        '        .hasType(createVarcharType(3))\n        .isEqualTo("abc");'
    )
    assert (entry["expect"], entry["type"]) == ("abc", "varchar(3)")


def test_empty_string_is_not_null() -> None:
    entry = only('assertThat(assertions.function("substr", "\'abc\'", "4")).isEqualTo("");')
    assert entry["expect"] == ""
    null = only('assertThat(assertions.function("substr", "NULL", "1")).isNull(VARCHAR);')
    assert null["expect"] is None and null["type"] == "varchar"


def test_expression_with_bindings() -> None:
    entry = only(
        'assertThat(assertions.expression("a + b")\n.binding("a", "1")\n.binding("b", "BIGINT \'2\'"))'
        ".isEqualTo(3L);"
    )
    assert entry["sql"] == "SELECT 1 + BIGINT '2'"
    entry = only('assertThat(assertions.expression("a * 2").binding("a", "-1 + 1")).isEqualTo(0);')
    assert entry["sql"] == "SELECT (-1 + 1) * 2"


def test_operator() -> None:
    entry = only('assertThat(assertions.operator(ADD, "1", "2")).isEqualTo(3);')
    assert entry["sql"] == "SELECT (1) + (2)"
    assert skipped('assertThat(assertions.operator(HASH_CODE, "1")).isEqualTo(3L);') == [
        "operator HASH_CODE has no SQL syntax"
    ]


def test_matches_a_literal_gives_its_type() -> None:
    entry = only(
        "assertThat(assertions.expression(\"TIMESTAMP '2020-05-01 12:34:56.1' + INTERVAL '1' DAY\"))"
        "\n.matches(\"TIMESTAMP '2020-05-02 12:34:56.1'\");"
    )
    assert (entry["expect"], entry["type"]) == ("2020-05-02 12:34:56.1", "timestamp(1)")


def test_formatted_and_text_blocks() -> None:
    body = (
        'assertThat(assertions.query("""\n'
        "        SELECT %s\n"
        '        FROM (VALUES 1) t(x)\n        """.formatted("x + 1")))\n'
        '    .matches("VALUES 2");'
    )
    entry = only(body, path=T.TEST_ROOT + "sql/query/TestX.java")
    assert entry["sql"] == "SELECT x + 1\nFROM (VALUES 1) t(x)"
    assert entry["expect"] == [["2"]] and entry["type"] == "integer"


def test_query_rows_ordered_and_types() -> None:
    entry = only(
        "assertThat(assertions.query(\"SELECT * FROM (VALUES (1, 'a'), (2, 'bc')) t(x, y) ORDER BY x\"))"
        "\n.ordered()\n.matches(\"VALUES (1, 'a'), (2, 'bc')\");",
        path=T.TEST_ROOT + "sql/query/TestX.java",
    )
    assert entry["expect"] == [["1", "a"], ["2", "bc"]]
    assert entry["type"] == ["integer", "varchar(2)"] and entry["ordered"] is True
    entry = only(
        'assertThat(assertions.query("SELECT 1")).skippingTypesCheck().matches("VALUES 1");',
        path=T.TEST_ROOT + "sql/query/TestX.java",
    )
    assert "type" not in entry


def test_query_returns_empty_result() -> None:
    entry = only('assertions.assertQueryReturnsEmptyResult("SELECT 1 WHERE false");')
    assert entry["expect"] == []


def test_expected_errors() -> None:
    entry = only(
        'assertTrinoExceptionThrownBy(() -> assertions.function("abs", "TINYINT \'-128\'").evaluate())'
        '\n.hasErrorCode(NUMERIC_VALUE_OUT_OF_RANGE)\n.hasMessage("line 1:8: Value -128 is out of range");'
    )
    assert entry == {
        "source": PATH + ":8",
        "sql": "SELECT abs(TINYINT '-128')",
        "fails": "NUMERIC_VALUE_OUT_OF_RANGE",
        "message": "Value -128 is out of range",
    }
    entry = only(
        'assertThatThrownBy(() -> assertions.query("SELECT x FROM (VALUES 1) t(a)"))'
        "\n.hasMessage(\"line 1:8: Column 'x' cannot be resolved\");"
    )
    assert entry["fails"] is True and entry["message"] == "Column 'x' cannot be resolved"


def test_class_constants_are_read() -> None:
    members = '    private static final String INPUT = "[1, " + "2]";'
    entry = only(
        'assertThat(assertions.query("SELECT json_array_length(\'" + INPUT + "\')"))'
        ".matches(\"VALUES BIGINT '2'\");",
        members,
    )
    assert entry["sql"] == "SELECT json_array_length('[1, 2]')"


# ---------------------------------------------------------------------------------------
# Skip reasons


@pytest.mark.parametrize(
    "body, reason",
    [
        (
            "for (double v : VALUES) {\n"
            'assertThat(assertions.function("acos", Double.toString(v))).isEqualTo(Math.acos(v));\n}',
            "argument computed from a variable (loop or helper parameter)",
        ),
        (
            'assertThat(assertions.function("acos", "0.5")).isEqualTo(Math.acos(0.5));',
            "Java call acos(...)",
        ),
        (
            "assertThat(assertions.expression(\"CAST(TIMESTAMP '2020-05-01 12:34:56' AS TIMESTAMP WITH TIME ZONE)\"))"
            ".matches(\"TIMESTAMP '2020-05-01 12:34:56 Pacific/Apia'\");",
            "depends on the session time zone (Pacific/Apia in the tests, UTC on Athena)",
        ),
        (
            "assertThat(assertions.expression(\"TIMESTAMP '2020-05-01 12:34:56' AT TIME ZONE 'UTC'\"))"
            ".matches(\"TIMESTAMP '2020-04-30 23:34:56 UTC'\");",
            "depends on the session time zone (Pacific/Apia in the tests, UTC on Athena)",
        ),
        (
            'assertThat(assertions.expression("now() IS NOT NULL")).isEqualTo(true);',
            "non-deterministic or session function (now, rand, current_*)",
        ),
        (
            'assertThat(assertions.expression("x", session)).isEqualTo(1L);',
            "an assertion with its own session",
        ),
        (
            "assertThat(assertions.expression(\"INTERVAL '1' DAY\")).matches(\"INTERVAL '1' DAY\");",
            "expected interval literal",
        ),
        ("assertEquals(1, 1);", "assertEquals(...) (not a QueryAssertions form)"),
        (
            'assertThat(assertions.function("abs", "1")).isEqualTo(timestamp(3, "x"));',
            "Java call timestamp(...)",
        ),
    ],
)
def test_skip_reasons(body: str, reason: str) -> None:
    assert skipped(body) == [reason]


def test_precision_series_is_subsampled() -> None:
    path = T.TEST_ROOT + "operator/scalar/timestamp/TestTimestamp.java"
    lines = [
        f"assertThat(assertions.expression(\"TIMESTAMP '2020-05-01 12:34:56.{'1' * p}'\"))"
        f".matches(\"TIMESTAMP '2020-05-01 12:34:56.{'1' * p}'\");"
        for p in range(1, 13)
    ]
    result = extract("\n".join(lines), path=path)
    kept = sorted(len(e.expect.split(".")[1]) for e in result.entries)
    assert kept == [3, 6, 9, 12]
    assert result.skips == {"precision series subsampled (kept: 0, 3, 6, 9, 12)": 8}


def test_custom_runner_and_test_only_functions() -> None:
    runner = "    void init() { assertions = new QueryAssertions(runner); }"
    assert skipped('assertThat(assertions.query("SELECT 1")).matches("VALUES 1");', runner) == [
        "test class with its own catalogs or plugins"
    ]
    udf = '    @ScalarFunction("utf8")\n    public static Slice convert(Slice s) { return s; }'
    assert skipped('assertThat(assertions.function("utf8", "\'a\'")).isEqualTo("a");', udf) == [
        "calls a function only the test class registers"
    ]


def test_duplicates_are_counted() -> None:
    line = 'assertThat(assertions.function("abs", "-1")).isEqualTo(1);'
    result = extract(f"{line}\n{line}")
    assert len(result.entries) == 1
    assert result.skips == {"duplicate of an earlier assertion": 1}


# ---------------------------------------------------------------------------------------
# Values and Java text


def test_java_number_text() -> None:
    assert [java_double(x) for x in (123.0, 1e7, 1e-4, 0.001, -0.0)] == [
        "123.0",
        "1.0E7",
        "1.0E-4",
        "0.001",
        "-0.0",
    ]
    assert java_float(0.1) == "0.1" and java_float(3.4028235e38) == "3.4028235E38"


def test_sql_literals() -> None:
    assert sql_literal("DECIMAL '-001.20'") == ("-1.20", "decimal(3,2)")
    assert sql_literal("TIME '12:34:56.123+05:45'") == (
        "12:34:56.123+05:45",
        "time(3) with time zone",
    )
    assert sql_literal("ARRAY[1, NULL]") == ("[1, null]", "array(integer)")
    assert sql_literal("'it''s'") == ("it's", "varchar(4)")
    assert values_rows("VALUES ROW(1, 'x'), (BIGINT '2', NULL)") == (
        [["1", "x"], ["2", None]],
        ["bigint", "varchar(1)"],
    )


def test_text_blocks() -> None:
    assert text_block('"""\n    a\n      b\n    """') == "a\n  b\n"
    assert [t.text for t in tokenize('x("a\\tb")')] == ["x", "(", "a\tb", ")"]
    assert tokenize('"\\uD801\\uDC2Dend"')[0].text == "\U0001042dend"  # one code point


# ---------------------------------------------------------------------------------------
# Determinism and the committed corpus


def test_output_is_deterministic(tmp_path: Path) -> None:
    body = "\n".join(
        f'assertThat(assertions.function("abs", "{n}")).isEqualTo({abs(n)});' for n in (3, -1, 2)
    )
    files = {PATH: java(body), T.TEST_ROOT + "type/TestArrayOperators.java": java(body)}
    first, second = tmp_path / "a", tmp_path / "b"
    T.write(T.extract(files, "0" * 40), first)
    T.write(T.extract(dict(reversed(list(files.items()))), "0" * 40), second)
    names = sorted(p.name for p in first.iterdir())
    assert names == ["EXTRACTION.md", "NOTICE", "array.yml", "math.yml"]
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)
    lines = [e["source"] for e in yaml.safe_load((first / "math.yml").read_text())]
    assert lines == sorted(lines, key=lambda s: int(s.rsplit(":", 1)[1]))


MIRROR = os.environ.get("TRINO_GIT_DIR", "/work/.mirror/martint+trino/repo")


def _recorded_commit() -> str:
    notice = (TRINO_EXAMPLES_DIR / "NOTICE").read_text()
    return notice.split("at commit")[1].split()[0]


def _has_commit(commit: str) -> bool:
    if not Path(MIRROR).is_dir():
        return False
    found = subprocess.run(
        ["git", "--git-dir", MIRROR, "cat-file", "-e", commit + "^{commit}"], capture_output=True
    )
    return found.returncode == 0


def test_committed_corpus_is_the_extractors_output(tmp_path: Path) -> None:
    commit = _recorded_commit()
    if not _has_commit(commit):
        pytest.skip(f"no Trino git directory with commit {commit} at {MIRROR} (TRINO_GIT_DIR)")
    assert T.main(["--trino", MIRROR, "--commit", commit, "--out", str(tmp_path)]) == 0
    committed = sorted(p.name for p in TRINO_EXAMPLES_DIR.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_text() == (TRINO_EXAMPLES_DIR / name).read_text(), name


def test_committed_corpus_loads() -> None:
    examples = load_corpus("trino")
    assert len(examples) > 5000
    assert len({e.id for e in examples}) == len(examples)
    assert all(e.source for e in examples)


# ---------------------------------------------------------------------------------------
# The harness on these entries


class FakeAthena:
    """Answers each statement from a table: rows and column types, or a failure."""

    def __init__(self, answers: Dict[str, Tuple[bool, Any]]) -> None:
        self.answers = answers
        self.sql: Dict[str, str] = {}

    def start_query_execution(self, QueryString: str, WorkGroup: str) -> Dict[str, str]:
        qid = str(len(self.sql))
        self.sql[qid] = QueryString
        return {"QueryExecutionId": qid}

    def get_query_execution(self, QueryExecutionId: str) -> Dict[str, Any]:
        ok, answer = self.answers[self.sql[QueryExecutionId]]
        status = {"State": "SUCCEEDED"} if ok else {"State": "FAILED", "StateChangeReason": answer}
        return {"QueryExecution": {"Status": status}}

    def get_query_results(self, QueryExecutionId: str) -> Dict[str, Any]:
        rows = self.answers[self.sql[QueryExecutionId]][1]
        data = [{"Data": [{} if v is None else {"VarCharValue": v} for v in r]} for r in rows]
        info = [{"Type": "varchar"} for _ in rows[0]] if rows else []
        header = {"Data": [{"VarCharValue": "_col0"}]}
        return {"ResultSet": {"Rows": [header, *data], "ResultSetMetadata": {"ColumnInfo": info}}}


def trino_example(**raw: Any) -> Any:
    return parse_example("string", 0, {"source": PATH + ":1", **raw})


def test_type_is_checked_exactly() -> None:
    e = trino_example(sql="SELECT lower('ABC')", expect="abc", type="varchar(3)")
    assert type_query(e) == "SELECT typeof(lower('ABC'))"
    right = FakeAthena({e.sql: (True, [["abc"]]), type_query(e): (True, [["varchar(3)"]])})
    assert run_example(right, e).outcome == MATCH
    wrong = FakeAthena({e.sql: (True, [["abc"]]), type_query(e): (True, [["varchar"]])})
    assert run_example(wrong, e).outcome == WRONG
    refused = FakeAthena(
        {e.sql: (True, [["abc"]]), type_query(e): (False, "NOT_SUPPORTED: typeof")}
    )
    assert run_example(refused, e).outcome == ERROR


def test_type_query_of_a_query() -> None:
    e = trino_example(sql="SELECT a, b FROM t", expect=[["1", "x"]], type=["integer", "varchar(1)"])
    assert (
        type_query(e) == "SELECT typeof(c0), typeof(c1) FROM (SELECT a, b FROM t) t(c0, c1) LIMIT 1"
    )


def test_null_and_empty_string_differ() -> None:
    e = trino_example(sql="SELECT x", expect="")
    assert classify(e, Run(True, [[None]], ["varchar"])).outcome == WRONG
    e = trino_example(sql="SELECT x", expect=None)
    assert classify(e, Run(True, [[""]], ["varchar"])).outcome == WRONG


def test_expected_error_codes() -> None:
    e = trino_example(sql="SELECT 1/0", fails="DIVISION_BY_ZERO", message="Division by zero")
    assert classify(e, Run(True, [["1"]], ["integer"])).outcome == SUCCESS_ON_ERROR
    assert classify(e, Run(False, reason="DIVISION_BY_ZERO: Division by zero")).outcome == MATCH
    assert classify(e, Run(False, reason="GENERIC_INTERNAL_ERROR: boom")).outcome == ERROR
    anything = trino_example(sql="SELECT 1/0", fails=True)
    assert classify(anything, Run(False, reason="INVALID_FUNCTION_ARGUMENT: x")).outcome == MATCH
