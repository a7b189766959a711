"""String, regular expression and JSON functions where the emulator's answer differed from
Trino's own unit tests (TestStringFunctions, TestConcatWsFunction, AbstractTestRegexpFunctions,
TestJsonFunctions, TestJsonArrayFunction, TestJsonObjectFunction, TestJsonOperators of
release 410), through the emulator's Athena API, over literals and over the columns of a
Hive table, an Iceberg table, a view and an import CTE.

On main before the change: ltrim/rtrim/trim left Unicode whitespace (U+2028) and a char's
padding; replace with an empty search changed nothing; ``${name}`` in regexp_replace's
replacement was emptied (and an unknown name did not fail); regexp_split and
regexp_extract_all with the empty pattern lost their first and last parts; concat_ws of a
NULL array was ''; CAST(nan() AS JSON) was NaN, not the JSON string "NaN"; a JSON integer
past bigint cast to boolean was true; json_object wrote its members in the order given (Trino
writes a java.util.HashMap's order) and built an object with a duplicate key; a json_array or
json_object inside another was inserted as a string."""

from __future__ import annotations

from typing import Iterator, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

LEAD = " \u2028 信念 爱 希望"  # Trino's test text: U+2028 is whitespace to Trino's trim
TRAIL = "信念 爱 希望 \u2028 "
ROWS = (
    f"select * from (values ('abc', '{LEAD}', 'wxyz', '{TRAIL}')) as t(word, lead, letters, trail)"
)
TABLES = {
    "hive": "create table strjs.strjs_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/strjs/strjs_hive/') as {ROWS}",
    "iceberg": "create table strjs.strjs_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/strjs/strjs_iceberg/') as {ROWS}",
}
SOURCES = ["strjs.strjs_hive", "strjs.strjs_iceberg", "strjs.v_hive", "strjs.v_iceberg"]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "strjs", TABLES, "create view strjs.v_{kind} as select * from strjs.strjs_{kind}"
    )


COLUMN_CASES = [
    # StringFunctions.leftTrim/rightTrim/trim: Java's whitespace, U+2028 too
    ("ltrim(lead), rtrim(trail), trim(lead)", ["信念 爱 希望", "信念 爱 希望", "信念 爱 希望"]),
    # a char(x) is its text without the padding (charLeftTrim, charRightTrim's trimTrailingSpaces)
    (
        "ltrim(cast(word as char(6)), 'a'), rtrim(cast(word as char(6)), 'c'), "
        "trim(cast(word as char(6)), 'a'), ltrim(cast(word as char(6)))",
        ["bc", "ab", "bc", "abc"],
    ),
    # StringFunctions.replace: an empty search puts the replacement around every code point
    ("replace(word, '', '-'), replace(word, 'b', '-')", ["-a-b-c-", "a-c"]),
    # JoniRegexpFunctions.appendReplacement: ${name} is the named group's text
    (
        "regexp_replace(letters, '(?<xyz>[xyz])', '${xyz}${xyz}'), "
        "regexp_replace(letters, '(?<w>w)|(?<xyz>[xyz])', '[${w}](${xyz})'), "
        "regexp_replace(word, '(?<n>x)', '${nam}')",
        ["wxxyyzz", "[w]()[](x)[](y)[](z)", "abc"],
    ),
    # the empty pattern matches before each code point and at the end
    ("regexp_split(word, ''), regexp_extract_all(word, '')", ["[, a, b, c, ]", "[, , , ]"]),
    # ConcatWsFunction: a NULL array is NULL
    (
        "concat_ws(',', case when word = 'zzz' then array[word] end), "
        "concat_ws(',', array[word, letters])",
        [None, "abc,wxyz"],
    ),
    # JsonObjectFunction: java.util.HashMap's order; a nested json_array/json_object is JSON
    (
        "json_object('key_1' : word, 'key_2' : letters), json_array(json_array(word)), "
        "json_object('key' : json_object('a' : word))",
        ['{"key_2":"wxyz","key_1":"abc"}', '[["abc"]]', '{"key":{"a":"abc"}}'],
    ),
]


@pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("columns, expected", COLUMN_CASES, ids=lambda c: str(c)[:30])
def test_on_columns_as_trino(
    emu: Emulator, source: str, cte: bool, columns: str, expected: list
) -> None:
    assert row(emu, over(source, cte, columns)) == expected


@pytest.mark.parametrize("source", SOURCES)
def test_unknown_group_name_fails_once_something_matches(emu: Emulator, source: str) -> None:
    """appendReplacement's 'unknown group' failure, raised for a match (INVALID_FUNCTION_ARGUMENT)."""
    reason = failure(emu, over(source, False, "regexp_replace(letters, '(?<n>x)', '${nam}')"))
    assert reason.startswith("INVALID_FUNCTION_ARGUMENT"), reason
    assert "unknown group { nam }" in reason, reason


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SELECT ltrim(' \u2028 信念 爱 希望')", "信念 爱 希望"),
        ("SELECT ltrim(CAST('  hello  ' AS CHAR(9)), '')", "  hello"),
        ("SELECT rtrim(CAST('abc def' AS CHAR(7)), 'def')", "abc"),
        ("SELECT typeof(ltrim(CAST('  hello  ' AS CHAR(9))))", "varchar(9)"),
        ("SELECT replace('abc', '', 'xx')", "xxaxxbxxcxx"),
        ("SELECT typeof(replace('abc', '', 'xx'))", "varchar(11)"),
        ("SELECT replace('', '', 'xx')", "xx"),
        ("SELECT regexp_split('', '')", "[, ]"),
        ("SELECT regexp_extract_all('a💰', '')", "[, , ]"),
        ("SELECT regexp_replace('xyz', '(?<xyz>[xyz])+', '${xyz}')", "z"),
        ("SELECT concat_ws(',', cast(NULL as array(varchar)))", None),
        ("SELECT cast(nan() as JSON)", '"NaN"'),
        ("SELECT cast(-infinity() as JSON)", '"-Infinity"'),
        ("SELECT json_array_contains(JSON '[9.6E400]', 4.2)", "false"),
        ("SELECT typeof(json_array())", "varchar"),
        ("SELECT typeof(json_object())", "varchar"),
        ("SELECT json_object('key_1' : 1, 'key_2' : 2)", '{"key_2":2,"key_1":1}'),
    ],
)
def test_literals_as_trino(emu: Emulator, sql: str, expected: Optional[str]) -> None:
    assert row(emu, sql) == [expected]


@pytest.mark.parametrize(
    "sql, code, text",
    [
        (
            "SELECT regexp_replace('xxx', '(?<name>x)', '${0}')",
            "INVALID_FUNCTION_ARGUMENT",
            "{ 0 }",
        ),
        ("SELECT cast(JSON '12345678901234567890' as BOOLEAN)", "INVALID_CAST_ARGUMENT", ""),
        (
            "SELECT json_object('key' : 1, 'key' : 2)",
            "NOT_SUPPORTED",
            "cannot construct a JSON object with duplicate key",
        ),
        (
            "SELECT concat(cast('ab ' as char(40000)), cast('' as char(40000)))",
            "TYPE_NOT_FOUND",
            "char(80000)",
        ),
    ],
)
def test_failures_as_trino(emu: Emulator, sql: str, code: str, text: str) -> None:
    reason = failure(emu, sql)
    assert reason.startswith(code) and text in reason, reason
