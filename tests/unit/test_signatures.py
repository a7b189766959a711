"""signatures.py: Trino 410's result types of calls, from their arguments' types, as
``typeof`` names them after the translation (pure: the typeof value is decided while
translating, no Spark). Each case is an assertion of Trino's own unit tests (the corpus
entry is named) or of the signature's declaration."""

from __future__ import annotations

import pytest

from athena_spark_emulator.sql import syntax, translate
from athena_spark_emulator.sql.syntax import Untranslatable

CASES = {
    # ArrayFunctions and friends: the element type, unknown of ARRAY[] coerced
    "combinations(ARRAY['bar', 'foo', 'baz', 'foo'], 0)": "array(array(varchar(3)))",
    "ngrams(ARRAY['bar', 'foo', 'baz', 'foo'], 1)": "array(array(varchar(3)))",
    "ARRAY[]": "array(unknown)",
    "(ARRAY[NULL])[1]": "unknown",
    "element_at(ARRAY[], 1)": "unknown",
    "array_min(ARRAY[1, 2])": "integer",
    "arrays_overlap(ARRAY[1, 2], ARRAY[2, 3])": "boolean",
    "array_intersect(ARRAY[], ARRAY[5])": "array(integer)",  # TestArrayOperators:2759
    "concat(ARRAY[1], ARRAY[2], ARRAY[3])": "array(integer)",
    "cardinality(ARRAY[])": "bigint",
    "transform((ARRAY[5, 6]), x -> 9)": "array(integer)",
    "transform((ARRAY[NULL, NULL]), x -> x + 1)": "array(integer)",
    # ReduceFunction: the state coerced to what the merge makes of it (TestArrayReduceFunction:140)
    "reduce(ARRAY[123456789012345, NULL, 54321], 0, (s, x) -> s + coalesce(x, 0), s -> s)": (
        "bigint"
    ),
    # maps
    "transform_values((map(ARRAY[], ARRAY[])), (k, v) -> NULL)": "map(unknown, unknown)",
    "map_values(map(ARRAY['1'], ARRAY[ARRAY[TRUE, FALSE, NULL]]))": "array(array(boolean))",
    "map_from_entries(ARRAY[(1, 3)])": "map(integer, integer)",
    "multimap_from_entries(ARRAY[(1, 3), (2, 4)])": "map(integer, array(integer))",
    # JoniRegexpFunctions: varchar(x + max(x * y / 2, y) * (x + 1)) with a replacement
    "regexp_replace('abc有朋$%X自9远方来', '', 'Y')": "varchar(97)",
    "regexp_split('a有朋💰', '.')": "array(varchar(4))",
    "split_part('abc-@-def-@-ghi', '-@-', 1)": "varchar(15)",
    # typed literals and DateTimeFunctions' to_iso8601
    "nullif(DECIMAL '-2', DECIMAL '-3')": "decimal(1,0)",
    "cast(1 as DECIMAL)": "decimal(38,0)",
    "to_iso8601(TIMESTAMP '2020-05-01 12:34:56.123')": "varchar(26)",
    "to_iso8601(TIMESTAMP '2020-05-01 12:34:56 Asia/Kathmandu')": "varchar(28)",
    "to_iso8601(DATE '2001-08-22')": "varchar(16)",
    # timestamp(p) + interval day to second: timestamp(max(3, p))
    "TIMESTAMP '2020-05-01 12:34:56' + INTERVAL '1.123' SECOND": "timestamp(3)",
    "TIMESTAMP '2020-05-01 12:34:56.123456' + INTERVAL '1' DAY": "timestamp(6)",
    "date_diff('day', DATE '1960-05-03', DATE '2001-08-22')": "bigint",
}


def _typeof(value: str) -> str:
    spark_sql = translate.to_spark(syntax.parse(f"SELECT typeof({value})"), {}, {})
    assert spark_sql.startswith("SELECT '"), spark_sql
    return spark_sql.split("'")[1]


@pytest.mark.parametrize("value", list(CASES))
def test_typeof_gives_trinos_signature_type(value: str) -> None:
    assert _typeof(value) == CASES[value]


@pytest.mark.parametrize(
    "sql, expected",
    [
        # TestUnnest:103: each array of rows gives its fields as columns (expanded_rows.py)
        (
            "SELECT typeof(t3) FROM UNNEST(CAST(ARRAY[ROW(1, 'a')] AS ARRAY(ROW(x int, y varchar))), "
            "CAST(ARRAY[ROW(3, 'c')] AS ARRAY(ROW(x int, y varchar)))) t(t1, t2, t3, t4)",
            "integer",
        ),
        # TestValues:66: a VALUES row that is one row value is spread over the columns
        (
            "SELECT typeof(key) FROM (VALUES CAST(ROW(1, 'TruE') AS row(double, boolean)), "
            "ROW(2e0, false), (3e0, null)) T(key, value)",
            "double",
        ),
    ],
)
def test_row_values_spread_over_columns(sql: str, expected: str) -> None:
    spark_sql = translate.to_spark(syntax.parse(sql), {}, {})
    assert f"'{expected}'" in spark_sql, spark_sql


def test_a_type_no_rule_can_tell_is_still_refused() -> None:
    with pytest.raises(Untranslatable, match="cannot tell this value's Athena type"):
        _typeof("json_extract_scalar('{}', '$.a')")
