"""Athena's JSON functions in the emulator (athena_spark_emulator/sql/functions/json*.py):
Trino's canonical JSON text, its legacy and SQL/JSON paths, the casts to and from JSON, as
pure Python. The end-to-end path (a statement on Spark) is the conformance corpus's
(tests/conformance/examples/json.yml, athena_json*.yml)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sqlglot")

from athena_spark_emulator.sql import syntax, translate
from athena_spark_emulator.sql.functions import json as jf
from athena_spark_emulator.sql.functions import json_cast, json_path, json_table
from athena_spark_emulator.sql.syntax import Untranslatable
from athena_spark_emulator.sql.udfs import UDFS, AthenaError


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1.0"),
        (1.2, "1.2"),
        (100.0, "100.0"),
        (0.001, "0.001"),
        (1e-4, "1.0E-4"),
        (1e7, "1.0E7"),
        (12345678.0, "1.2345678E7"),
        (9999999.0, "9999999.0"),
        (-2.5e-10, "-2.5E-10"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
    ],
)
def test_doubles_are_printed_as_java_prints_them(value, text):
    assert jf.java_double(value) == text


def test_json_parse_is_canonical_json():
    assert jf.json_parse('{"b": 1, "a": [1, 2.50, 1e2, "x"]}') == '{"a":[1,2.5,100.0,"x"],"b":1}'
    assert jf.json_parse('{"a": 1, "a": 2}') == '{"a":2}'
    assert jf.json_parse(' "a\\u0001\\n/é" ') == '"a\\u0001\\n/é"'
    assert jf.json_parse("null") == "null"
    assert jf.json_parse(None) is None


@pytest.mark.parametrize("text", ["not_json", "[1,]", "NaN", "[1] 2", "{'a': 1}", ""])
def test_json_parse_fails_as_athena_does(text):
    with pytest.raises(
        AthenaError, match="INVALID_FUNCTION_ARGUMENT: Cannot convert value to JSON"
    ):
        jf.json_parse(text)
    assert UDFS["athena_try_json_parse"].fn(text) is None


def test_legacy_paths_are_read_as_trinos_tokenizer_reads_them():
    assert jf.legacy_path('$.a[0]["b c"].d[e]') == ["a", "0", "b c", "d", "e"]
    assert jf.legacy_path("$.a:b") == ["a:b"]
    assert jf.legacy_path('$["x\\"y"]') == ['x"y']
    for invalid in ("a.b", "$a", "$.a b", "$.a-b", "$[*]", "$.*", " $.a", ""):
        with pytest.raises(AthenaError, match="Invalid JSON path"):
            jf.legacy_path(invalid)


def test_json_extract_keeps_its_path_as_written():
    assert jf.json_clauses("SELECT json_extract(x, '$.a:b'), JSON_EXTRACT_SCALAR (x, '$a')") == (
        "SELECT emulator_json_extract(x, '$.a:b'), emulator_json_extract_SCALAR (x, '$a')"
    )
    assert jf.json_clauses("SELECT 'json_extract(' AS t") == "SELECT 'json_extract(' AS t"


def test_json_extract_keeps_the_input_order():
    blob = '{"name": "S", "projects": [{"name":"p1", "completed":false}, {"name":"p2"}]}'
    assert jf.json_extract(blob, "$.name") == '"S"'
    assert jf.json_extract(blob, "$.projects[0]") == '{"name":"p1","completed":false}'
    assert jf.json_extract(blob, "$.projects.1.name") == '"p2"'
    assert jf.json_extract(blob, "$.missing") is None
    assert jf.json_extract("not json", "$.a") is None


def test_json_extract_scalar_and_size():
    blob = '{"a": 1.50, "b": [1, 2, 3], "c": {"x": null}, "d": true}'
    assert jf.json_extract_scalar(blob, "$.a") == "1.50"  # the number as written
    assert jf.json_extract_scalar(blob, "$.b") is None
    assert jf.json_extract_scalar(blob, "$.c.x") is None
    assert jf.json_extract_scalar(blob, "$.d") == "true"
    assert jf.json_size(blob, "$.b") == 3
    assert jf.json_size(blob, "$.c") == 1
    assert jf.json_size(blob, "$.a") == 0
    assert jf.json_size(blob, "$.z") is None


def test_json_array_functions():
    assert jf.json_array_get('["a", [3, 9], "c"]', 0) == "a"
    assert jf.json_array_get('["a", [3, 9], "c"]', -2) == "[3,9]"
    assert jf.json_array_get('["a"]', 5) is None
    assert jf.json_array_get('{"a": 1}', 0) is None
    assert jf.json_array_length("[1, 2, 3]") == 3
    assert jf.json_array_length('{"a": 1}') is None
    assert jf.json_array_contains('[1, 2.0, true, "x"]', 2, "i") is False
    assert jf.json_array_contains('[1, 2.0, true, "x"]', 2.0, "d") is True
    assert jf.json_array_contains('[1, 2.0, true, "x"]', True, "b") is True
    assert jf.json_array_contains('[1, 2.0, true, "x"]', "x", "s") is True
    assert jf.is_json_scalar("1") is True
    assert jf.is_json_scalar("[1]") is False
    assert jf.json_array_contains("[1]", 1.0, "d") is False
    assert jf.json_array_contains("[1.0]", 1, "i") is False
    assert jf.json_array_contains("[1,,0]", 1, "i") is None
    for broken in ("", "[1", "[1, 2] trailing"):
        with pytest.raises(AthenaError, match="Invalid JSON value: "):
            jf.is_json_scalar(broken)


def test_casts_to_json():
    assert json_cast.to_json("abc", "s") == '"abc"'
    assert json_cast.to_json(1.234, "d") == "1.234"
    assert json_cast.to_json([1, None, 3], ["a", ["i", 32]]) == "[1,null,3]"
    assert json_cast.to_json({"k2": 1, "k1": "[1]"}, ["m", "s", "j"]) == '{"k1":[1],"k2":1}'
    fields = ["r", [["v1", ["i", 64]], ["v2", "s"]]]
    assert json_cast.to_json((123, "abc"), fields) == '{"v1":123,"v2":"abc"}'


def test_casts_from_json():
    def cast(text, kind):
        return json_cast.json_cast(text, json.dumps(kind))

    assert cast("1.5", ["i", 32]) == "2"
    assert cast('"12"', ["i", 64]) == "12"
    assert cast("-2.5", ["i", 64]) == "-3"  # half away from zero
    assert cast('"abc"', "s") == "abc"
    assert cast("true", "s") == "true"
    assert cast("null", "s") is None
    assert cast("[1,null,456]", ["a", ["i", 32]]) == "[1, null, 456]"
    assert cast("[[1, 23], 456]", ["a", "j"]) == '["[1,23]", "456"]'
    assert cast('[123,"abc",true]', ["r", [["v1", ["i", 64]], ["v2", "s"], ["v3", "b"]]]) == (
        '{"v1": 123, "v2": "abc", "v3": true}'
    )
    with pytest.raises(
        AthenaError, match="INVALID_CAST_ARGUMENT: Cannot cast '\\[1, 2\\]' to VARCHAR"
    ):
        cast("[1, 2]", "s")
    with pytest.raises(AthenaError, match="expected a JSON string"):
        cast("42", "date")
    with pytest.raises(AthenaError, match="INVALID_CAST_ARGUMENT"):
        cast("300", ["i", 8])


CUSTOMERS = [
    '{"comment" : "nice", "children" : [10, 13, 16]}',
    '{"comment" : "problematic", "children" : [8, 11]}',
    '{"comment" : "knows best", "children" : [2]}',
]


def test_json_exists():
    assert [json_path.json_exists(c, "lax $.children[*]?(@ > 10)") for c in CUSTOMERS] == [
        True,
        True,
        False,
    ]
    assert json_path.json_exists(CUSTOMERS[0], "strict $.nope") is False
    strict = [
        json_path.json_exists(c, "strict $.children[2]?(@ > 10)", "unknown") for c in CUSTOMERS
    ]
    assert strict == [True, None, None]
    with pytest.raises(AthenaError):
        json_path.json_exists(CUSTOMERS[1], "strict $.children[2]", "error")


def test_json_query():
    def query(text, path, wrapper="without", omit=False, empty="null", error="null"):
        return json_path.json_query(text, path, wrapper, omit, empty, error)

    assert [query(c, "lax $.children") for c in CUSTOMERS] == ["[10,13,16]", "[8,11]", "[2]"]
    assert [query(c, "lax $.children[*]") for c in CUSTOMERS] == [None, None, "2"]
    assert [query(c, "lax $.children[last]", "with") for c in CUSTOMERS] == ["[16]", "[11]", "[2]"]
    children = [
        query(c, "strict $.children[*]?(@ > 12)", "with", empty="empty_array") for c in CUSTOMERS
    ]
    assert children == ["[13,16]", "[]", "[]"]
    assert query(CUSTOMERS[1], "strict $.children[*]?(@ > 12)", "with") is None  # ON EMPTY
    assert query(CUSTOMERS[0], "strict $.comment") == '"nice"'
    assert query(CUSTOMERS[0], "strict $.comment", omit=True) == "nice"
    assert query(CUSTOMERS[0], "lax $.children[0 to 1, last]", "with") == "[10,13,16]"
    with pytest.raises(AthenaError):
        query(CUSTOMERS[0], "lax $.children[*]", error="error")


def test_json_value():
    def value(text, path, returning="s", empty=("null", None), error=("null", None)):
        return json_path.json_value(text, path, returning, *empty, *error)

    assert value(CUSTOMERS[0], "lax $.comment") == "nice"
    assert value(CUSTOMERS[0], "lax $.children[0]", "i8") == "10"
    assert value(CUSTOMERS[0], "lax $.comment", "i8") is None  # not a number: ON ERROR
    assert [value(c, "strict $.children[2]", error=("default", "err")) for c in CUSTOMERS] == [
        "16",
        "err",
        "err",
    ]
    assert [value(c, "lax $.children[2]", empty=("default", "missing")) for c in CUSTOMERS] == [
        "16",
        "missing",
        "missing",
    ]
    assert value(CUSTOMERS[0], "lax $.children") is None  # not a scalar


def test_json_table_rows_follow_the_default_plan():
    spec = {
        "path": "lax $",
        "columns": [
            {
                "nested": "lax $[*]",
                "columns": [
                    {"name": "continent", "type": "s", "path": "lax $.continent"},
                    {
                        "nested": "lax $.countries[*]",
                        "columns": [{"name": "country", "type": "s", "path": "lax $.name"}],
                    },
                ],
            }
        ],
    }
    text = '[{"continent": "Asia", "countries": [{"name": "Japan"}]}, {"continent": "Mars"}]'
    assert json.loads(json_table.json_table(text, json.dumps(spec))) == [
        {"continent": "Asia", "country": "Japan"},
        {"continent": "Mars"},  # OUTER: the parent row without nested rows
    ]


def test_json_array_clauses_become_calls_sqlglot_parses():
    clauses = jf.json_array_clauses
    assert clauses("SELECT json_array(true, null, 1 ABSENT ON NULL)") == (
        "SELECT json_array(true, null, 1)"
    )
    assert clauses("select JSON_ARRAY(1, 'a)' NULL ON NULL)") == (
        "select emulator_json_array_null_on_null(1, 'a)')"
    )
    assert clauses("SELECT json_array(true, 1 RETURNING VARBINARY FORMAT JSON ENCODING UTF16)") == (
        "SELECT emulator_json_bytes_utf16(json_array(true, 1))"
    )
    assert clauses("SELECT json_array(1, 2)") == "SELECT json_array(1, 2)"


def test_json_query_and_json_exists_clauses_become_text():
    sql = "SELECT json_query(d, 'lax $[*]' WITH ARRAY WRAPPER EMPTY ARRAY ON EMPTY), 1"
    assert jf.json_clauses(sql) == (
        "SELECT emulator_json_query_with_clauses(d, 'lax $[*]', "
        "'WITH ARRAY WRAPPER EMPTY ARRAY ON EMPTY'), 1"
    )
    sql = "SELECT json_exists(f(a, b), 'strict $.a' UNKNOWN ON ERROR)"
    assert jf.json_clauses(sql) == (
        "SELECT emulator_json_exists_with_clauses(f(a, b), 'strict $.a', 'UNKNOWN ON ERROR')"
    )
    sql = "SELECT json_query(d, 'lax $' WITH ARRAY WRAPPER)"  # sqlglot reads it
    assert jf.json_clauses(sql) == sql


def _spark(sql: str) -> str:
    return translate.to_spark(syntax.parse(sql), {})


def test_translation_knows_which_values_are_json():
    assert "athena_to_json" not in _spark("SELECT CAST(JSON '[1]' AS JSON)")
    assert "'\"abc\"'" in _spark("SELECT CAST('abc' AS JSON)")
    assert "'json'" in _spark("SELECT typeof(json_parse(x)) FROM (VALUES ('1')) AS t(x)")
    assert "FROM_JSON" in _spark("SELECT CAST(JSON '[1]' AS ARRAY(INTEGER))")


def test_uuid_literals_in_json_array_are_their_lower_case_text():
    sql = _spark("SELECT json_array(UUID '12151FD2-7586-11E9-8F9E-2A86E4085A59')")
    assert '"12151fd2-7586-11e9-8f9e-2a86e4085a59"' in sql


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT json_format(x) FROM (VALUES ('1')) AS t(x)",  # not known to be JSON
        "SELECT CAST(JSON '1' AS DECIMAL(3,1))",
        "SELECT json_array(1.5)",
        "SELECT json_array(UUID '{12151fd2-7586-11e9-8f9e-2a86e4085a59}')",
        "SELECT json_query(x, 'lax $.a.keyvalue()') FROM (VALUES ('1')) AS t(x)",
    ],
)
def test_what_the_emulator_cannot_tell_is_refused(sql):
    with pytest.raises(Untranslatable, match="NOT_SUPPORTED"):
        _spark(sql)
