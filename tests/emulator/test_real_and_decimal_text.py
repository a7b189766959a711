"""The result text of reals and decimals through the emulator's Athena API, as Trino 410
prints them: a real is a float32 (RealType) printed as Java's ``Float.toString`` does
(``12.2``, ``1.0E7``, ``-2.1474836E9``: the fewest digits that read back as the same
float32, not the widened double's ``12.199999809265137``), a decimal in plain notation with
its scale's digits (``0.00000000000000000000``, not Python's ``0E-20``); over literals and
over the columns of a Hive table (a Hive ``float`` column), an Iceberg table, a view over
each and an import CTE (``with t as (select * from ...)``). Trino's TestRealOperators,
TestDecimalCasts, TestBigintOperators, TestIntegerOperators and TestDoubleOperators.
"""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

SCHEMA = "real_decimal_text"
ROW = (
    "select real '12.2' as r, real '-17.76' as neg, real '10000000' as big, "
    "real '0.0001' as tiny, real '754.1985' as mid, "
    "cast(0 as decimal(38,20)) as zero, "
    "cast('0.00000000000000000001' as decimal(38,20)) as small, "
    "cast(0 as decimal(10,2)) as cents"
)
TABLES = {
    "hive": f"create table {SCHEMA}.t_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/t_hive/') as {ROW}",
    "iceberg": f"create table {SCHEMA}.t_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/t_iceberg/') as {ROW}",
}
SOURCES = [f"{SCHEMA}.t_hive", f"{SCHEMA}.t_iceberg", f"{SCHEMA}.v_hive", f"{SCHEMA}.v_iceberg"]
FORMS = pytest.mark.parametrize("cte", [False, True], ids=["from", "import_cte"])
ON = pytest.mark.parametrize("source", SOURCES)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        SCHEMA, TABLES, f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.t_{{kind}}"
    )


def values(
    emu: Emulator, expressions: str, source: Optional[str] = None, cte: bool = False
) -> List:
    if source is None:
        sql = f"select {expressions}"
    elif cte:
        sql = f"with t as (select * from {source}) select {expressions} from t"
    else:
        sql = f"select {expressions} from {source} t"
    state, rows = run(emu, sql)
    assert state == "SUCCEEDED", rows
    return list(rows[1])


# ---- reals: RealType, Float.toString ------------------------------------------------------
REALS = [
    ("REAL '12.2'", "12.2"),  # TestRealOperators:72
    ("REAL '-17.76'", "-17.76"),  # TestRealOperators:75
    ("-(REAL '12.34')", "-12.34"),  # TestRealOperators:228
    ("cast('754.1985' as real)", "754.1985"),  # TestDoubleOperators:745
    ("cast(DECIMAL '2.34' as REAL)", "2.34"),  # TestDecimalCasts:1286
    ("cast((-100000000017) as real)", "-1.0E11"),  # TestBigintOperators:426
    ("cast(INTEGER '-2147483648' as real)", "-2.1474836E9"),  # TestIntegerOperators:470
    ("REAL '10000000'", "1.0E7"),
    ("REAL '9999999'", "9999999.0"),
    ("REAL '0.0001'", "1.0E-4"),
    ("REAL '0.001'", "0.001"),
    ("REAL '100'", "100.0"),
    ("REAL '-0.0'", "-0.0"),
    ("REAL 'NaN'", "NaN"),
    ("REAL 'Infinity'", "Infinity"),
    ("-REAL 'Infinity'", "-Infinity"),
]


@pytest.mark.parametrize("expression, expected", REALS, ids=[e for e, _ in REALS])
def test_a_real_prints_float_to_string(emu: Emulator, expression: str, expected: str) -> None:
    """On main before the change: ``12.199999809265137``, ``-100000001536.0``, ``1e-04``."""
    assert values(emu, expression) == [expected]


@FORMS
@ON
def test_a_real_column_prints_float_to_string(emu: Emulator, source: str, cte: bool) -> None:
    """A Hive ``float`` column, an Iceberg ``float`` column, a view and a CTE over each."""
    got = values(emu, "r, neg, big, tiny, mid, -r", source, cte)
    assert got == ["12.2", "-17.76", "1.0E7", "1.0E-4", "754.1985", "-12.2"]


def test_a_double_keeps_its_own_digits(emu: Emulator) -> None:
    """A double is not a real: ``cast(REAL '754.1985' as DOUBLE)`` is the float's exact
    double value (TestRealOperators:700 compares with ``(double) 754.1985f``)."""
    assert values(emu, "cast(REAL '754.1985' as DOUBLE), 12.2E0") == ["754.198486328125", "12.2"]


# ---- decimals: plain notation with the scale's digits -------------------------------------
def test_a_zero_decimal_prints_its_scale(emu: Emulator) -> None:
    """On main before the change: ``0E-20`` (TestDecimalCasts:1302-1342 print small reals
    cast to decimals)."""
    got = values(
        emu,
        "cast(0 as decimal(38,20)), cast('0.00000000000000000001' as decimal(38,20)), "
        "cast(0 as decimal(10,2)), DECIMAL '-0.00000001'",
    )
    assert got == ["0.00000000000000000000", "0.00000000000000000001", "0.00", "-0.00000001"]


@FORMS
@ON
def test_a_decimal_column_prints_its_scale(emu: Emulator, source: str, cte: bool) -> None:
    got = values(emu, "zero, small, cents", source, cte)
    assert got == ["0.00000000000000000000", "0.00000000000000000001", "0.00"]


@FORMS
@ON
def test_decimals_inside_arrays_maps_and_rows(emu: Emulator, source: str, cte: bool) -> None:
    """An array's elements share one type: ``cents`` is a decimal(38,20) beside ``zero``."""
    got = values(emu, "array[zero, cents], map(array['z'], array[zero]), row(cents)", source, cte)
    zero = "0.00000000000000000000"
    assert got == [f"[{zero}, {zero}]", f"{{z={zero}}}", "{field0=0.00}"]


@FORMS
@ON
def test_reals_and_decimals_inside_arrays_print_by_their_type(
    emu: Emulator, source: str, cte: bool
) -> None:
    got = values(emu, "array[r, big], array[small]", source, cte)
    assert got == ["[12.2, 1.0E7]", "[0.00000000000000000001]"]
