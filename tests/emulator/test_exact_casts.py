"""Literals and casts where the emulator's answer differed from Trino 410's own unit tests
(TestDecimalOperators, TestDecimalCasts, TestVarcharOperators, TestFormatFunction,
TestArrayOperators, TestMapOperators), through the emulator's Athena API, over literals
and over the columns of a Hive table, an Iceberg table, a view and an import CTE.

On main before the change: ``DECIMAL '0.018'`` was decimal(4,3) (Trino's Decimals.parse
does not count leading zeros: decimal(3,3)); ``VARCHAR 'foo'`` was varchar(3) (Trino's
GenericLiteral of type VARCHAR is unbounded varchar); ``CAST('1.5' AS DECIMAL)`` was
decimal(2,1) 1.5 (a CAST to a bare DECIMAL is decimal(38,0): 2); a real cast to a decimal
started from the widened double (1456213.375), not from Java's Float.toString (1456213.4,
DecimalConversions.realToLongDecimal); ``format(5, 8)`` answered '5' (Trino's
ExpressionAnalyzer wants a varchar format); an integer cast to a timestamp, alone or as
an array's element, answered a timestamp (Trino has no such cast: TYPE_MISMATCH); a map
cast whose cast keys collide kept one of them (Trino's MapToMapCast fails 'duplicate
keys'); a decimal sum whose operand, rescaled to the sum's scale, passes Int128 succeeded
(Trino's DecimalOperators rescale with Int128Math.rescale: NUMERIC_VALUE_OUT_OF_RANGE)."""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

ROWS = (
    "select * from (values (REAL '1456213.432632456', 5, array[1, null, 3], "
    "map(array[1, 2], array[6, 9]), map(array['NaN', ' NaN '], array[1, 2]), "
    "DECIMAL '0.018', VARCHAR 'foo', '1.5', DECIMAL '17015000000000000000000000000000000000')) "
    "as t(r, k, a, m, sm, dz, vs, word, big)"
)
TABLES = {
    "hive": "create table exact_casts.t_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/exact_casts/t_hive/') as {ROWS}",
    "iceberg": "create table exact_casts.t_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/exact_casts/t_iceberg/') as {ROWS}",
}
SOURCES = [
    "exact_casts.t_hive",
    "exact_casts.t_iceberg",
    "exact_casts.v_hive",
    "exact_casts.v_iceberg",
]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "exact_casts",
        TABLES,
        "create view exact_casts.v_{kind} as select * from exact_casts.t_{kind}",
    )


LITERAL_CASES = [
    # TestDecimalOperators:2237/2240/2272/861/967: leading zeros are not digits of the type
    (
        "SELECT (DECIMAL '0.018') / (BIGINT '9'), typeof((DECIMAL '-0.018') / (BIGINT '9')), "
        "typeof(DECIMAL '000001'), typeof(DECIMAL '0'), typeof(DECIMAL '00.10')",
        ["0.002", "decimal(3,3)", "decimal(1,0)", "decimal(1,0)", "decimal(2,2)"],
    ),
    (
        "SELECT (BIGINT '18') % (DECIMAL '0.01'), typeof((BIGINT '18') % (DECIMAL '0.01'))",
        ["0.00", "decimal(2,2)"],
    ),
    (
        "SELECT -(DECIMAL '0.00000000000000000000'), typeof(-(DECIMAL '0.00000000000000000000'))",
        ["0.00000000000000000000", "decimal(20,20)"],
    ),
    ("SELECT typeof(DECIMAL '0000012345.1234500000')", ["decimal(15,10)"]),
    # a CAST to a bare DECIMAL is decimal(38,0), whatever the text (rounded half up)
    ("SELECT CAST('1.5' AS DECIMAL), typeof(CAST('1.5' AS DECIMAL))", ["2", "decimal(38,0)"]),
    # TestVarcharOperators:69/77: VARCHAR 'x' is unbounded; 'x' and CHAR 'x' have its length
    (
        "SELECT VARCHAR 'foo', typeof(VARCHAR 'foo'), typeof(VARCHAR ''), typeof('foo'), "
        "typeof(CHAR 'ab')",
        ["foo", "varchar", "varchar", "varchar(3)", "char(2)"],
    ),
    # TestDecimalCasts:1209: from Java's Float.toString of the real (1456213.4)
    (
        "SELECT cast(REAL '1456213.432632456' as DECIMAL(18,9)), "
        "try_cast(REAL '1456213.432632456' as DECIMAL(18,9)), cast(REAL '0.1' as decimal(20,19)), "
        "cast(REAL '-2.5' as decimal(2,0)), cast(REAL '1e10' as decimal(38,2))",
        ["1456213.400000000", "1456213.400000000", "0.1000000000000000000", "-3", "10000000000.00"],
    ),
    (
        "SELECT try_cast(REAL '12345.6' as decimal(3,1)), try_cast(REAL 'NaN' as decimal(3,1))",
        [None, None],
    ),
    # a map cast whose keys stay distinct; TRY_CAST of colliding keys is NULL
    (
        "SELECT cast(map(array[1, 2], array[6, 9]) as map(bigint, bigint)), "
        "try_cast(map(array[1, 2], array[6, 9]) as map(boolean, bigint))",
        ["{1=6, 2=9}", None],
    ),
    ("SELECT cast(array[1, null, 3] as array(bigint))", ["[1, null, 3]"]),
    # an integer or boolean cast to varchar(n): its text where it fits (dbt's unit-test
    # fixtures cast every value: try_cast(12345 as varchar(5))), else NULL for TRY_CAST
    (
        "SELECT try_cast(12345 as varchar(5)), typeof(cast(12345 as varchar(5))), "
        "try_cast(123456 as varchar(5)), cast(true as varchar(4)), cast(BIGINT '-12' as varchar(3))",
        ["12345", "varchar(5)", None, "true", "-12"],
    ),
    # a decimal(37,0) rescaled to scale 1 cannot pass Int128: no check, the sum as it is
    (
        "SELECT DECIMAL '1701411834604692317316873037158841057' + DECIMAL '0.1', "
        "DECIMAL '-1701411834604692317316873037158841057' - DECIMAL '0.1'",
        ["1701411834604692317316873037158841057.1", "-1701411834604692317316873037158841057.1"],
    ),
]


@pytest.mark.parametrize("sql, expected", LITERAL_CASES)
def test_literals(emu: Emulator, sql: str, expected: List[Optional[str]]) -> None:
    assert row(emu, sql) == expected


FAILING_LITERALS = [
    # TestDecimalCasts: Trino's text of the real, in DecimalConversions' message
    (
        "SELECT cast(REAL '12345.6' as decimal(3,1))",
        "INVALID_CAST_ARGUMENT: Cannot cast REAL '12345.6' to DECIMAL(3, 1)",
    ),
    (
        "SELECT cast(REAL 'NaN' as decimal(3,1))",
        "INVALID_CAST_ARGUMENT: Cannot cast REAL 'NaN' to DECIMAL(3, 1)",
    ),
    # TestFormatFunction:180
    (
        "SELECT format(5, 8)",
        "TYPE_MISMATCH: Type of first argument to format() must be VARCHAR (actual: integer)",
    ),
    # a bare NULL is of Trino's type unknown, no varchar either
    ("SELECT format(NULL, 8)", "(actual: unknown)"),
    # TestArrayOperators:243: integer -> timestamp is no cast of Trino's, alone or as an element
    (
        "SELECT CAST((array[1, null, 3]) AS array(TIMESTAMP))",
        "TYPE_MISMATCH: Cannot cast array(integer) to array(timestamp(3))",
    ),
    ("SELECT CAST(1 AS TIMESTAMP)", "TYPE_MISMATCH: Cannot cast integer to timestamp(3)"),
    ("SELECT CAST(1 AS DATE)", "TYPE_MISMATCH: Cannot cast integer to date"),
    ("SELECT CAST(DATE '2020-01-01' AS BIGINT)", "TYPE_MISMATCH: Cannot cast date to bigint"),
    # TestMapOperators:1597/1607: the cast keys collide
    (
        "SELECT cast((MAP(ARRAY[1, 2], ARRAY[6, 9])) as MAP(boolean, bigint))",
        "INVALID_CAST_ARGUMENT: duplicate keys",
    ),
    (
        "SELECT cast((MAP(ARRAY['NaN', ' NaN '], ARRAY[1, 2])) as MAP(double, integer))",
        "INVALID_CAST_ARGUMENT: duplicate keys",
    ),
    # DoubleOperators.castToVarchar (TestDoubleOperators:576)
    (
        "SELECT cast(12e2 as varchar(4))",
        "INVALID_CAST_ARGUMENT: Value 1.2E3 cannot be represented as varchar(4)",
    ),
    # IntegerOperators.castToVarchar (TestIntegerOperators)
    (
        "SELECT cast(123456 as varchar(5))",
        "INVALID_CAST_ARGUMENT: Value 123456 cannot be represented as varchar(5)",
    ),
    # TestDecimalOperators:173/281: the sum fits decimal(38,1), the rescaled operand no Int128
    (
        "SELECT (DECIMAL '17015000000000000000000000000000000000') + "
        "(DECIMAL '-7015000000000000000000000000000000000.1')",
        "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow",
    ),
]


@pytest.mark.parametrize("sql, message", FAILING_LITERALS)
def test_failing_literals(emu: Emulator, sql: str, message: str) -> None:
    assert message in failure(emu, sql)


COLUMN_CASES = [
    (
        "cast(r as decimal(18,9)), try_cast(r as decimal(18,9)), typeof(dz), vs, "
        "cast(word as decimal), cast(m as map(bigint, bigint)), cast(a as array(bigint))",
        [
            "1456213.400000000",
            "1456213.400000000",
            "decimal(3,3)",
            "foo",
            "2",
            "{1=6, 2=9}",
            "[1, null, 3]",
        ],
    ),
    ("try_cast(m as map(boolean, bigint)), try_cast(r as decimal(3,1))", [None, None]),
    # DoubleOperators.castToVarchar: the double's text where it fits (k is 5)
    (
        "cast(k * 1000e0 as varchar(5)), try_cast(k * 1000e0 as varchar(4)), "
        "typeof(cast(k * 1000e0 as varchar(5)))",
        ["5.0E3", None, "varchar(5)"],
    ),
]


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("columns, expected", COLUMN_CASES)
def test_columns(
    emu: Emulator, source: str, cte: bool, columns: str, expected: List[Optional[str]]
) -> None:
    assert row(emu, over(source, cte, columns)) == expected


def test_the_hive_table_holds_the_literals_types(emu: Emulator) -> None:
    """A CTAS of ``DECIMAL '0.018'`` makes a decimal(3,3) column, of ``VARCHAR 'foo'`` an
    unbounded one (Glue's string: Trino's HiveTypeTranslator keeps a varchar(3))."""
    glue = emu.client("glue")
    table = glue.get_table(DatabaseName="exact_casts", Name="t_hive")["Table"]
    types = {c["Name"]: c["Type"] for c in table["StorageDescriptor"]["Columns"]}
    assert (types["dz"], types["vs"], types["r"]) == ("decimal(3,3)", "string", "float")


FAILING_COLUMNS = [
    (
        "cast(r as decimal(3,1))",
        "INVALID_CAST_ARGUMENT: Cannot cast REAL '1456213.4' to DECIMAL(3, 1)",
    ),
    ("format(k, 8)", "Type of first argument to format() must be VARCHAR (actual: integer)"),
    (
        "cast(a as array(timestamp))",
        "TYPE_MISMATCH: Cannot cast array(integer) to array(timestamp(3))",
    ),
    ("cast(k as timestamp)", "TYPE_MISMATCH: Cannot cast integer to timestamp(3)"),
    ("cast(k * 100 as varchar(2))", "Value 500 cannot be represented as varchar(2)"),
    ("cast(k * 1000e0 as varchar(4))", "Value 5.0E3 cannot be represented as varchar(4)"),
    ("cast(m as map(boolean, bigint))", "INVALID_CAST_ARGUMENT: duplicate keys"),
    ("cast(sm as map(double, integer))", "INVALID_CAST_ARGUMENT: duplicate keys"),
    (
        "big - DECIMAL '7015000000000000000000000000000000000.1'",
        "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow",
    ),
]


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("columns, message", FAILING_COLUMNS)
def test_failing_columns(emu: Emulator, source: str, cte: bool, columns: str, message: str) -> None:
    assert message in failure(emu, over(source, cte, columns))
