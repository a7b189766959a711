"""Edge cases of string and array functions where Trino's own unit tests (release 410:
TestStringFunctions, TestArrayOperators, TestArrayNgramsFunction, TestArrayTrimFunction)
fail a call that Spark answers, over the columns of a Hive table, an Iceberg table, a view
and an import CTE, through the emulator's Athena API.

On main before the change each of these succeeded with Spark's answer (SUCCESS-ON-ERROR
in the Trino corpus): sequence of more than 10,000 entries, ngrams(x, 0), trim_array(x, -1),
chr of an invalid code point (Spark's chr is a byte: chr(9731) was not a snowman), lpad
and rpad with an empty pad string, concat_ws over numbers."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

ROWS = (
    "select * from (values (1, 9731, array[1, 2, 3, 4], 'abc', '', 20000)) "
    "as t(id, code, arr, word, empty, big)"
)
TABLES = {
    "hive": "create table edge.edge_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/edge/edge_hive/') as {ROWS}",
    "iceberg": "create table edge.edge_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/edge/edge_iceberg/') as {ROWS}",
}
SOURCES = ["edge.edge_hive", "edge.edge_iceberg", "edge.v_edge_hive", "edge.v_edge_iceberg"]
CASES = [
    pytest.param(source, cte, id=f"{source}-{'cte' if cte else 'from'}")
    for source in SOURCES
    for cte in (False, True)
]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "edge", TABLES, "create view edge.v_edge_{kind} as select * from edge.edge_{kind}"
    )


def query(source: str, cte: bool, expression: str) -> str:
    if cte:
        return f"with s as (select * from {source}) select {expression} from s x"
    return f"select {expression} from {source} x"


def answer(emu: Emulator, source: str, cte: bool, expression: str) -> list:
    state, rows = run(emu, query(source, cte, expression))
    assert state == "SUCCEEDED", rows
    return rows[1]


def failure(emu: Emulator, source: str, cte: bool, expression: str) -> str:
    state, reason = run(emu, query(source, cte, expression))
    assert state == "FAILED", reason
    return reason


@pytest.mark.parametrize("source, cte", CASES)
def test_sequence_of_more_than_10000_entries_fails(emu: Emulator, source: str, cte: bool) -> None:
    assert answer(emu, source, cte, "cardinality(sequence(1, x.big / 2))") == ["10000"]
    assert failure(emu, source, cte, "sequence(1, x.big)") == (
        "INVALID_FUNCTION_ARGUMENT: result of sequence function must not have more than "
        "10000 entries"
    )


@pytest.mark.parametrize("source, cte", CASES)
def test_ngrams_and_trim_array_bounds(emu: Emulator, source: str, cte: bool) -> None:
    assert answer(emu, source, cte, "ngrams(x.arr, x.id + 2), trim_array(x.arr, x.id)") == [
        "[[1, 2, 3], [2, 3, 4]]",
        "[1, 2, 3]",
    ]
    assert failure(emu, source, cte, "ngrams(x.arr, x.id - 1)") == (
        "INVALID_FUNCTION_ARGUMENT: N must be positive"
    )
    assert failure(emu, source, cte, "trim_array(x.arr, -x.id)") == (
        "INVALID_FUNCTION_ARGUMENT: size must not be negative: -1"
    )
    assert failure(emu, source, cte, "trim_array(x.arr, x.id + 4)") == (
        "INVALID_FUNCTION_ARGUMENT: size must not exceed array cardinality 4: 5"
    )


@pytest.mark.parametrize("source, cte", CASES)
def test_chr_is_a_code_point(emu: Emulator, source: str, cte: bool) -> None:
    assert answer(emu, source, cte, "chr(x.code), codepoint(chr(x.code))") == ["☃", "9731"]
    assert failure(emu, source, cte, "chr(-x.code)") == (
        "INVALID_FUNCTION_ARGUMENT: Not a valid Unicode code point: -9731"
    )
    assert failure(emu, source, cte, "chr(x.code + 1114112)") == (
        "INVALID_FUNCTION_ARGUMENT: Not a valid Unicode code point: 1123843"
    )


@pytest.mark.parametrize("source, cte", CASES)
def test_padding_with_an_empty_string_fails(emu: Emulator, source: str, cte: bool) -> None:
    assert answer(emu, source, cte, "lpad(x.word, 5, 'xy'), rpad(x.word, 2, 'z')") == [
        "xyabc",
        "ab",
    ]
    for function in ("lpad", "rpad"):
        assert failure(emu, source, cte, f"{function}(x.word, 5, x.empty)") == (
            "INVALID_FUNCTION_ARGUMENT: Padding string must not be empty"
        )


@pytest.mark.parametrize("source, cte", CASES)
def test_concat_ws_over_numbers_fails(emu: Emulator, source: str, cte: bool) -> None:
    assert answer(emu, source, cte, "concat_ws(',', x.word, null, x.empty)") == ["abc,"]
    reason = failure(emu, source, cte, "concat_ws(',', 1, 15)")
    assert reason.startswith("FUNCTION_NOT_FOUND: Unexpected parameters (varchar(1), integer")


def test_concat_ws_over_a_number_column_fails(emu: Emulator) -> None:
    reason = failure(emu, "edge.edge_hive", False, "concat_ws(',', x.word, x.id)")
    assert reason.startswith("FUNCTION_NOT_FOUND: Unexpected parameters")


@pytest.mark.parametrize("source, cte", CASES)
def test_substr_from_zero_or_before_the_start_is_empty(
    emu: Emulator, source: str, cte: bool
) -> None:
    """Trino's substr: start 0, or a negative start before the first character, is ''
    (Spark starts those at the first character)."""
    expression = (
        "substr(x.word, x.id - 1), substr(x.word, -x.big), substr(x.word, x.id - 1, 2), "
        "substr(x.word, -x.id - 1), substr(x.word, x.id + 1, 1)"
    )
    assert answer(emu, source, cte, expression) == ["", "", "", "bc", "b"]


@pytest.mark.parametrize("source, cte", CASES)
def test_char_values_compare_without_their_padding(emu: Emulator, source: str, cte: bool) -> None:
    """Trino compares char(n) values padded to a common length (a varchar is coerced to
    char): cast('abc' as char(5)) = 'abc' and = cast('abc' as char(3))."""
    expression = (
        "cast(x.word as char(5)) = x.word, cast(x.word as char(5)) = cast(x.word as char(3)), "
        "cast(x.word as char(5)) <> x.word || ' ', cast(x.word as char(5)) < x.word, "
        "cast(x.word as char(5)) = 'abd', cast(x.word || chr(0) as char(4)) < cast(x.word as char(4))"
    )
    # the last: 'abc\0' is below 'abc ' (padded), not above 'abc' (TestCharOperators)
    assert answer(emu, source, cte, expression) == [
        "true",
        "true",
        "false",
        "false",
        "false",
        "true",
    ]


@pytest.mark.parametrize("source, cte", CASES)
def test_padding_varbinary_with_no_bytes_fails(emu: Emulator, source: str, cte: bool) -> None:
    assert answer(emu, source, cte, "to_hex(lpad(to_utf8(x.word), 5, x'00'))") == ["0000616263"]
    assert failure(emu, source, cte, "rpad(to_utf8(x.word), 5, x'')") == (
        "INVALID_FUNCTION_ARGUMENT: Padding bytes must not be empty"
    )


@pytest.mark.parametrize("source, cte", CASES)
def test_arrays_with_null_elements_compare_indeterminate(
    emu: Emulator, source: str, cte: bool
) -> None:
    """Trino's = of arrays (ArrayEqualOperator): NULL when no two non-NULL elements differ
    but one is NULL; Spark's = took NULL elements as equal."""
    expression = (
        "x.arr = array[1, 2, 3, 4], x.arr = array[1, 2, 3, null], "
        "x.arr = array[9, 2, 3, null], x.arr <> array[1, 2, 3, null], x.arr = array[1, 2]"
    )
    assert answer(emu, source, cte, expression) == ["true", None, "false", None, "false"]


@pytest.mark.parametrize("source, cte", CASES)
def test_flatten_leaves_null_arrays_out(emu: Emulator, source: str, cte: bool) -> None:
    """Trino's flatten skips NULL inner arrays (Spark's flatten was NULL)."""
    assert answer(emu, source, cte, "flatten(array[null, x.arr, null, array[x.id]])") == [
        "[1, 2, 3, 4, 1]"
    ]
