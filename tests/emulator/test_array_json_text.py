"""Arrays, maps and their JSON and result text where the emulator answered other than Trino
410 (Athena engine v3), through the emulator's Athena API, over literals and over the
columns of a Hive table, an Iceberg table, a view over each and an import CTE.

On main before the change: ``array || element`` (and ``element || array``) of dates cast to
JSON printed Python's list text (the concatenation lost its element type); a map's decimal
key cast to JSON was written ``0E-16``; maps printed their entries in Spark's order where
Trino's MapType.getObjectValue puts them into a java.util.HashMap; array_intersect of an
integer and a double array was typed array(integer); ``ARRAY[ARRAY[1]] || ARRAY[NULL]``
ran where Trino's call is ambiguous; listagg's third argument was dropped; date_parse's
``%f`` kept microseconds where Trino's (Joda) result is timestamp(3), truncated."""

from __future__ import annotations

from typing import Iterator, List

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

SCHEMA = "array_json_text"
ROW = (
    "select date '2001-08-22' as d1, date '2001-08-23' as d2, array[date '2001-08-22'] as ds, "
    "array[1, 5] as ints, array[5] as five, array[1.0E0] as dbl, array[array[1]] as nested, "
    "array[3, 4] as keys34, bigint '4' as big, cast('0.0' as decimal(36,16)) as dzero, "
    "cast('12345678901234567890.1234567890666666' as decimal(36,16)) as dbig, "
    "'a' as v, '1.2006' as secs, '2024-01-02T03:04:05.123456Z' as iso, "
    "'2024-01-02 03:04:05' as plain"
)
TABLES = {
    "hive": f"create table {SCHEMA}.t_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/t_hive/') as {ROW}",
    "iceberg": f"create table {SCHEMA}.t_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/t_iceberg/') as {ROW}",
}
SOURCES = [f"{SCHEMA}.t_hive", f"{SCHEMA}.t_iceberg", f"{SCHEMA}.v_hive", f"{SCHEMA}.v_iceberg"]
FORMS = [
    pytest.param(source, cte, id=f"{source.split('.')[1]}-{'cte' if cte else 'from'}")
    for source in SOURCES
    for cte in (False, True)
]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA, TABLES, f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.t_{{kind}}"
    )


def values(emu: Emulator, columns: str, source: str = "", cte: bool = False) -> List:
    return row(emu, over(source, cte, columns) if source else f"select {columns}")


# ---- || of an array and an element keeps the element type (TestArrayOperators:957, 963) ------
def test_array_element_concat_of_dates_cast_to_json(emu: Emulator) -> None:
    assert values(
        emu,
        "CAST((ARRAY[DATE '2001-08-22']) || DATE '2001-08-23' AS JSON), "
        "CAST(DATE '2001-08-23' || (ARRAY[DATE '2001-08-22']) AS JSON)",
    ) == ['["2001-08-22","2001-08-23"]', '["2001-08-23","2001-08-22"]']


@pytest.mark.parametrize("source, cte", FORMS)
def test_array_element_concat_of_date_columns_cast_to_json(
    emu: Emulator, source: str, cte: bool
) -> None:
    assert values(
        emu, "CAST(ds || d2 AS JSON), CAST(d2 || ds AS JSON), typeof(ds || d2)", source, cte
    ) == ['["2001-08-22","2001-08-23"]', '["2001-08-23","2001-08-22"]', "array(date)"]


def test_array_concat_widens_integers_to_bigint(emu: Emulator) -> None:
    """TestArrayOperators 809, 815, 981: the common type of integer and bigint elements."""
    assert values(
        emu,
        "typeof((ARRAY[1, 2]) || (ARRAY[3, BIGINT '4'])), (ARRAY[1, 2]) || (ARRAY[3, 40000000000]), "
        "typeof((ARRAY[1, 2]) || (ARRAY[3, 40000000000])), typeof((ARRAY[2]) || BIGINT '1')",
    ) == ["array(bigint)", "[1, 2, 3, 40000000000]", "array(bigint)", "array(bigint)"]


@pytest.mark.parametrize("source, cte", FORMS)
def test_array_concat_of_integer_and_bigint_columns(emu: Emulator, source: str, cte: bool) -> None:
    assert values(emu, "ints || big, typeof(ints || big), typeof(big || ints)", source, cte) == [
        "[1, 5, 4]",
        "array(bigint)",
        "array(bigint)",
    ]


# ---- ARRAY[ARRAY[1]] || ARRAY[NULL]: ambiguous (TestArrayOperators:942) ------------------------
def test_nested_array_concat_with_array_of_null_is_ambiguous(emu: Emulator) -> None:
    reason = failure(emu, "SELECT (ARRAY[ARRAY[1]]) || (ARRAY[NULL])")
    assert reason.startswith("AMBIGUOUS_FUNCTION_CALL"), reason
    reason = failure(emu, "SELECT ARRAY[NULL] || ARRAY[ARRAY[1]]")
    assert reason.startswith("AMBIGUOUS_FUNCTION_CALL"), reason


@pytest.mark.parametrize("source, cte", FORMS)
def test_nested_array_column_concat_with_array_of_null_is_ambiguous(
    emu: Emulator, source: str, cte: bool
) -> None:
    reason = failure(emu, over(source, cte, "nested || ARRAY[NULL]"))
    assert reason.startswith("AMBIGUOUS_FUNCTION_CALL"), reason


# ---- array_intersect's type is the common one (TestArrayOperators:2700, 2783) -----------------
def test_array_intersect_of_integers_and_doubles_is_doubles(emu: Emulator) -> None:
    assert values(
        emu,
        "array_intersect(ARRAY[1, 5], ARRAY[1.0E0]), typeof(array_intersect(ARRAY[1, 5], "
        "ARRAY[1.0E0])), array_intersect(ARRAY[5], ARRAY[1.0E0]), "
        "typeof(array_intersect(ARRAY[5], ARRAY[1.0E0]))",
    ) == ["[1.0]", "array(double)", "[]", "array(double)"]


@pytest.mark.parametrize("source, cte", FORMS)
def test_array_intersect_of_integer_and_double_columns(
    emu: Emulator, source: str, cte: bool
) -> None:
    assert values(
        emu,
        "array_intersect(ints, dbl), typeof(array_intersect(ints, dbl)), "
        "typeof(array_intersect(five, dbl))",
        source,
        cte,
    ) == ["[1.0]", "array(double)", "array(double)"]


# ---- a map's entries in Trino's order (MapType.getObjectValue: a java.util.HashMap) ----------
def test_maps_inside_arrays_print_in_trino_order(emu: Emulator) -> None:
    assert values(
        emu,
        "flatten(ARRAY[ARRAY[MAP(ARRAY[1, 2], ARRAY[1, 2])], ARRAY[MAP(ARRAY[3, 4], "
        "ARRAY[3, 4])]]), flatten(ARRAY[NULL, ARRAY[MAP(ARRAY[3, 4], ARRAY[3, 4])]]), "
        "MAP(ARRAY[4, 3], ARRAY[4, 3]), MAP(ARRAY['b', 'a'], ARRAY[1, 2])",
    ) == ["[{1=1, 2=2}, {3=3, 4=4}]", "[{3=3, 4=4}]", "{3=3, 4=4}", "{a=2, b=1}"]


@pytest.mark.parametrize("source, cte", FORMS)
def test_maps_of_columns_print_in_trino_order(emu: Emulator, source: str, cte: bool) -> None:
    assert values(
        emu, "ARRAY[MAP(keys34, keys34)], MAP(ARRAY[v, 'B'], ARRAY[1, 2])", source, cte
    ) == ["[{3=3, 4=4}]", "{a=1, B=2}"]


# ---- decimal map keys cast to JSON in plain text (TestMapOperators:290) -----------------------
def test_decimal_map_keys_cast_to_json_in_plain_text(emu: Emulator) -> None:
    assert values(
        emu,
        "cast((MAP(ARRAY[DECIMAL '12345678901234567890.1234567890666666', DECIMAL '0.0'], "
        "ARRAY[666666, null])) as JSON)",
    ) == ['{"0.0000000000000000":null,"12345678901234567890.1234567890666666":666666}']


@pytest.mark.parametrize("source, cte", FORMS)
def test_decimal_map_key_columns_cast_to_json(emu: Emulator, source: str, cte: bool) -> None:
    assert values(
        emu, "cast(MAP(ARRAY[dbig, dzero], ARRAY[666666, null]) as JSON)", source, cte
    ) == ['{"0.0000000000000000":null,"12345678901234567890.1234567890666666":666666}']


# ---- listagg takes no third argument (TestListagg:191) ---------------------------------------
def test_listagg_with_three_arguments_fails_as_trino_parses_it(emu: Emulator) -> None:
    reason = failure(
        emu, "SELECT listagg(v, ',', '...') WITHIN GROUP (ORDER BY v) FROM (VALUES 'a') t(v)"
    )
    assert reason.startswith("SYNTAX_ERROR"), reason
    assert "listagg" in reason, reason


@pytest.mark.parametrize("source, cte", FORMS)
def test_listagg_of_a_column_with_three_arguments_fails(
    emu: Emulator, source: str, cte: bool
) -> None:
    reason = failure(emu, over(source, cte, "listagg(v, ',', '...') WITHIN GROUP (ORDER BY v)"))
    assert reason.startswith("SYNTAX_ERROR"), reason


# ---- date_parse's %f: Joda's millisecond, truncated (TestDateTimeFunctions:850) ---------------
def test_date_parse_fraction_is_truncated_to_milliseconds(emu: Emulator) -> None:
    assert values(emu, "date_parse('1.2006', '%s.%f'), date_parse('1.9999', '%s.%f')") == [
        "1970-01-01 00:00:01.200",
        "1970-01-01 00:00:01.999",
    ]


@pytest.mark.parametrize("source, cte", FORMS)
def test_date_parse_of_columns_and_dbt_athena_seed_formats(
    emu: Emulator, source: str, cte: bool
) -> None:
    """dbt-athena's seed parses each timestamp column with its formats in turn, each in
    try(date_parse(...)) (as test_athena_sql's exact-SQL test renders it)."""
    seed = (
        "coalesce(try(date_parse({c}, '%Y-%m-%dT%H:%i:%s.%fZ')), "
        "try(date_parse({c}, '%Y-%m-%d %H:%i:%s')))"
    )
    assert values(
        emu,
        f"date_parse(secs, '%s.%f'), {seed.format(c='iso')}, {seed.format(c='plain')}",
        source,
        cte,
    ) == [
        "1970-01-01 00:00:01.200",
        "2024-01-02 03:04:05.123",
        "2024-01-02 03:04:05.000",
    ]
