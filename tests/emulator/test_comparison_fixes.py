"""Comparisons where the emulator's answer differed from Trino 410's own unit tests
(TestDoubleOperators, TestRealOperators, TestExpressions, TestCharOperators,
TestIpAddressFunctions), through the emulator's Athena API, over literals and over the
columns of a Hive table, an Iceberg table, a view and an import CTE.

On main before the change: BETWEEN with a NaN bound or operand was true (Spark orders NaN
above every value; Trino's NaN compares false with everything); ``3 IN (2, 4, 3, 5 / 0)``
was true (Spark stops at the first match; Trino evaluates every constant item and fails
DIVISION_BY_ZERO); BETWEEN and IS [NOT] DISTINCT FROM of char(n) values counted the padding
(Trino's CharType compares without it); contains(cidr, address) of different IP versions
was false (Trino's IpAddressFunctions.contains fails 'IP address version should be the
same')."""

from __future__ import annotations

from typing import Iterator, List, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, over, row

ROWS = (
    "select * from (values (17.1e0, nan(), 3, 'bar', '64:ff9b::10.0.0.0')) as t(d, n, k, word, ip)"
)
TABLES = {
    "hive": "create table cmpfx.cmpfx_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/cmpfx/cmpfx_hive/') as {ROWS}",
    "iceberg": "create table cmpfx.cmpfx_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/cmpfx/cmpfx_iceberg/') as {ROWS}",
}
SOURCES = ["cmpfx.cmpfx_hive", "cmpfx.cmpfx_iceberg", "cmpfx.v_hive", "cmpfx.v_iceberg"]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(
        "cmpfx", TABLES, "create view cmpfx.v_{kind} as select * from cmpfx.cmpfx_{kind}"
    )


LITERAL_CASES = [
    # TestDoubleOperators:516/522, TestRealOperators:501/507
    ("SELECT 17.1E0 BETWEEN 17.1E0 AND DOUBLE 'NaN'", ["false"]),
    ("SELECT DOUBLE 'NaN' BETWEEN DOUBLE 'NaN' AND DOUBLE 'NaN'", ["false"]),
    ("SELECT REAL '56.78' BETWEEN REAL '56.78' AND REAL 'NaN'", ["false"]),
    ("SELECT REAL 'NaN' NOT BETWEEN REAL 'NaN' AND REAL 'NaN'", ["true"]),
    # IN's NULL rule with constant items that are not plain literals
    ("SELECT 1 IN (abs(-2), NULL), 1 IN (abs(-1), NULL), NULL IN (abs(1))", [None, "true", None]),
    # TestCharOperators:527/543/558/561
    (
        "SELECT (cast('bar' as char(4))) BETWEEN (cast('bar' as char(5))) "
        "AND (cast('bar' as char(7)))",
        ["true"],
    ),
    ("SELECT (cast('foo' as char(3))) IS DISTINCT FROM (cast('foo' as char(5)))", ["false"]),
    ("SELECT (cast('bar' as char(5))) IS DISTINCT FROM ('bar')", ["false"]),
    ("SELECT (cast('bar' as char(5))) IS NOT DISTINCT FROM ('bar   ')", ["true"]),
    ("SELECT contains('::/0', IPADDRESS '64:ff9b::10.0.0.0')", ["true"]),
    # the rewrites keep the boolean type typeof names
    (
        "SELECT typeof(17.1E0 BETWEEN 17.1E0 AND DOUBLE 'NaN'), "
        "typeof(cast('foo' as char(3)) IS DISTINCT FROM cast('foo' as char(5)))",
        ["boolean", "boolean"],
    ),
]


@pytest.mark.parametrize("sql, expected", LITERAL_CASES)
def test_literals(emu: Emulator, sql: str, expected: List[Optional[str]]) -> None:
    assert row(emu, sql) == expected


FAILING_LITERALS = [
    # TestExpressions:73: every constant item is evaluated
    ("SELECT 3 IN (2, 4, 3, 5 / 0)", "Division by zero"),
    # TestIpAddressFunctions:382/384
    ("SELECT contains('64:ff9b::10.0.0.0/64', IPADDRESS '0.0.0.0')", "IP address version"),
    ("SELECT contains('0.0.0.0/0', IPADDRESS '64:ff9b::10.0.0.0')", "IP address version"),
]


@pytest.mark.parametrize("sql, message", FAILING_LITERALS)
def test_failing_literals(emu: Emulator, sql: str, message: str) -> None:
    assert message in failure(emu, sql)


COLUMN_CASES = [
    (
        "d between d and n, n between n and n, d between 17.0e0 and 18.0e0, "
        "d not between d and n, cast(d as real) between cast(d as real) and cast(n as real)",
        ["false", "false", "true", "true", "false"],
    ),
    (
        "k in (abs(-2), NULL), k in (abs(-3), NULL), k in (2, 3), k in (2, 4)",
        [None, "true", "true", "false"],
    ),
    (
        "cast(word as char(4)) between cast(word as char(5)) and cast(word as char(7)), "
        "cast(word as char(5)) is distinct from word, "
        "cast(word as char(5)) is distinct from 'bar   ', "
        "cast(word as char(3)) is not distinct from cast(word as char(5)), "
        "cast(word as char(3)) is distinct from cast('baz' as char(5))",
        ["true", "false", "false", "true", "true"],
    ),
    (
        "contains('::/0', cast(ip as ipaddress)), contains('64:ff9b::/96', cast(ip as ipaddress))",
        ["true", "true"],
    ),
]


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("columns, expected", COLUMN_CASES)
def test_columns(
    emu: Emulator, source: str, cte: bool, columns: str, expected: List[Optional[str]]
) -> None:
    assert row(emu, over(source, cte, columns)) == expected


FAILING_COLUMNS = [
    ("k in (2, 4, 3, 5 / 0)", "Division by zero"),
    ("contains('0.0.0.0/0', cast(ip as ipaddress))", "IP address version"),
]


@pytest.mark.parametrize("cte", [False, True], ids=["direct", "cte"])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("columns, message", FAILING_COLUMNS)
def test_failing_columns(emu: Emulator, source: str, cte: bool, columns: str, message: str) -> None:
    assert message in failure(emu, over(source, cte, columns))
