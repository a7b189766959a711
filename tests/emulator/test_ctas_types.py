"""A value's Athena type is the same in GetQueryResults' ColumnInfo, in the Glue schema a
CTAS (Hive and Iceberg) writes and in the next query that reads the table back, through
the Athena API.

Athena's rules (tests/conformance/type_oracle.py states them with their sources): a Hive
CTAS writes Trino's ``HiveTypeTranslator.toTypeInfo`` of each column's type: ``varchar(n)``
stays ``varchar(n)`` (unbounded ``varchar`` is ``string``), ``char(n)`` ``char(n)``, real
``float``, any ``timestamp(p)`` ``timestamp``, nested types element by element; an Iceberg
CTAS writes Iceberg's types (Trino's ``iceberg.TypeConverter``: any varchar is ``string``).
Reading a Hive table types its columns from Glue (``varchar(3)`` reads as varchar(3)).
ColumnInfo: ``Type`` the base name (real is ``float``, as PyAthena's recorded Athena answer
for a float column has it), ``Precision`` a varchar(n)'s n, a decimal's precision.
"""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure
from tests.emulator.test_athena_semantics import settled

SCHEMA = "ctas_types"

#: (expression, Glue type of a Hive CTAS, ColumnInfo (Type, Precision, Scale); None: not
#: compared)
VALUES: List[Tuple[str, str, Tuple[Any, ...]]] = [
    ("cast('ab' as varchar(3))", "varchar(3)", ("varchar", 3, 0)),
    ("cast('ab' as char(3))", "char(3)", ("char", None, None)),
    ("cast('abc' as varchar)", "string", ("varchar", 2147483647, 0)),
    ("cast(1.5 as decimal(5,2))", "decimal(5,2)", ("decimal", 5, 2)),
    ("timestamp '2020-01-01 00:00:00.123'", "timestamp", ("timestamp", 3, 0)),
    ("real '1.5'", "float", ("float", 17, 0)),
    ("array[cast('a' as varchar(2))]", "array<varchar(2)>", ("array", 0, 0)),
    ("array[cast('a' as char(2))]", "array<char(2)>", ("array", 0, 0)),
    ("array[real '1.5']", "array<float>", ("array", 0, 0)),
    (
        "map(array[cast('k' as varchar(1))], array[cast(2.5 as decimal(4,1))])",
        "map<varchar(1),decimal(4,1)>",
        ("map", 0, 0),
    ),
]
IDS = [glue for _, glue, _ in VALUES]

#: The source tables: each of VALUES as a column c<i> of a Hive and an Iceberg table
COLUMNS = ", ".join(f"{expr} as c{i}" for i, (expr, _, _) in enumerate(VALUES))
#: Iceberg has no char(n) (Trino's iceberg.TypeConverter refuses it): not in its table
ICEBERG_COLUMNS = ", ".join(
    f"{expr} as c{i}" for i, (expr, _, _) in enumerate(VALUES) if "as char(" not in expr
)
TABLES = {
    "hive": f"create table {SCHEMA}.src_hive as select {COLUMNS}",
    "iceberg": (
        f"create table {SCHEMA}.src_iceberg with (table_type='ICEBERG', "
        f"location='s3://dbt-data/{SCHEMA}/src_iceberg/') as select {ICEBERG_COLUMNS}"
    ),
}
VIEW = f"create view {SCHEMA}.v_{{kind}} as select * from {SCHEMA}.src_{{kind}}"
_NAMES = itertools.count()


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(SCHEMA, TABLES, VIEW)


def execute(emu: Emulator, sql: str) -> Dict[str, Any]:
    """The ResultSet of ``sql``; fails the test naming the reason when the query failed."""
    athena = emu.client("athena")
    exec_id = athena.start_query_execution(
        QueryString=sql, QueryExecutionContext={"Database": "default"}, WorkGroup="primary"
    )["QueryExecutionId"]
    status = settled(athena, exec_id)
    assert status["State"] == "SUCCEEDED", (sql, status.get("StateChangeReason"))
    return dict(athena.get_query_results(QueryExecutionId=exec_id)["ResultSet"])


def column_infos(emu: Emulator, sql: str) -> List[Tuple[Any, Any, Any]]:
    info = execute(emu, sql)["ResultSetMetadata"]["ColumnInfo"]
    return [(c["Type"], c["Precision"], c["Scale"]) for c in info]


def agrees(want: Tuple[Any, ...], got: Tuple[Any, ...]) -> bool:
    return all(w is None or w == g for w, g in zip(want, got))


def glue_types(emu: Emulator, table: str) -> Dict[str, str]:
    entry = emu.client("glue").get_table(DatabaseName=SCHEMA, Name=table)["Table"]
    return {c["Name"]: c["Type"] for c in entry["StorageDescriptor"]["Columns"]}


def new_table() -> str:
    return f"t_{next(_NAMES)}"


def iceberg_with(table: str) -> str:
    return f"with (table_type='ICEBERG', location='s3://dbt-data/{SCHEMA}/{table}/')"


# ---- a literal's type ----------------------------------------------------------------------


@pytest.mark.parametrize("expr, glue, info", VALUES, ids=IDS)
def test_column_info_of_a_select(emu: Emulator, expr: str, glue: str, info: Tuple) -> None:
    found = column_infos(emu, f"select {expr} as c")
    assert agrees(info, found[0]), found


@pytest.mark.parametrize("expr, glue, info", VALUES, ids=IDS)
def test_hive_ctas_writes_athenas_glue_type(
    emu: Emulator, expr: str, glue: str, info: Tuple
) -> None:
    table = new_table()
    execute(emu, f"create table {SCHEMA}.{table} as select {expr} as c")
    assert glue_types(emu, table) == {"c": glue}
    found = column_infos(emu, f"select c from {SCHEMA}.{table}")  # read back from Glue
    assert agrees(info, found[0]), found


# ---- a column's type: tables, views, CTEs --------------------------------------------------

SOURCES = {
    "hive": f"{SCHEMA}.src_hive",
    "view": f"{SCHEMA}.v_hive",
    "cte": f"(select * from {SCHEMA}.src_hive)",
}


@pytest.mark.parametrize("source", SOURCES)
def test_a_hive_tables_columns_keep_their_types(emu: Emulator, source: str) -> None:
    """Reading the Hive table back (directly, through a view, through a CTE) gives each
    column the type its Glue schema names; a CTAS of it writes the same Glue types."""
    columns = ", ".join(f"c{i}" for i in range(len(VALUES)))
    if source == "cte":
        query = f"with s as {SOURCES[source]} select {columns} from s"
    else:
        query = f"select {columns} from {SOURCES[source]}"
    found = column_infos(emu, query)
    assert [agrees(info, f) for (_, _, info), f in zip(VALUES, found)] == [True] * len(VALUES), (
        found
    )
    table = new_table()
    execute(emu, f"create table {SCHEMA}.{table} as {query}")
    assert glue_types(emu, table) == {f"c{i}": glue for i, (_, glue, _) in enumerate(VALUES)}


def test_the_source_tables_glue_types(emu: Emulator) -> None:
    """The Hive table's Glue schema is Athena's; the Iceberg table's has Iceberg's types
    (``string`` for a varchar(n): Iceberg has no bounded varchar)."""
    assert glue_types(emu, "src_hive") == {f"c{i}": g for i, (_, g, _) in enumerate(VALUES)}
    iceberg = glue_types(emu, "src_iceberg")
    assert iceberg["c0"] == "string" and iceberg["c3"] == "decimal(5,2)"
    assert iceberg["c5"] == "float" and iceberg["c6"] == "array<string>"


def test_an_iceberg_tables_varchar_reads_as_varchar(emu: Emulator) -> None:
    found = column_infos(emu, f"select c0, c3, c4, c5 from {SCHEMA}.src_iceberg")
    assert found[0] == ("varchar", 2147483647, 0)
    assert found[1] == ("decimal", 5, 2)
    assert found[2][0] == "timestamp"
    assert found[3] == ("float", 17, 0)


def test_iceberg_ctas_of_a_bounded_varchar_writes_string(emu: Emulator) -> None:
    table = new_table()
    execute(
        emu,
        f"create table {SCHEMA}.{table} {iceberg_with(table)} as select "
        "cast('ab' as varchar(3)) as v, real '1.5' as r, cast(1.5 as decimal(5,2)) as d",
    )
    assert glue_types(emu, table) == {"v": "string", "r": "float", "d": "decimal(5,2)"}


# ---- INSERT ---------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["hive", "view", "iceberg"])
def test_insert_keeps_the_tables_glue_types(emu: Emulator, source: str) -> None:
    """An INSERT into a Hive table changes no Glue type; the rows read back with them."""
    table = new_table()
    execute(emu, f"create table {SCHEMA}.{table} as select c0, c3, c5 from {SCHEMA}.src_hive")
    origin = {"hive": "src_hive", "view": "v_hive", "iceberg": "src_iceberg"}[source]
    first = "cast(c0 as varchar(3))" if source == "iceberg" else "c0"  # Iceberg's is varchar
    execute(emu, f"insert into {SCHEMA}.{table} select {first}, c3, c5 from {SCHEMA}.{origin}")
    assert glue_types(emu, table) == {"c0": "varchar(3)", "c3": "decimal(5,2)", "c5": "float"}
    rows = execute(emu, f"select c0, c3, c5 from {SCHEMA}.{table}")
    assert column_infos(emu, f"select c0, c3, c5 from {SCHEMA}.{table}") == [
        ("varchar", 3, 0),
        ("decimal", 5, 2),
        ("float", 17, 0),
    ]
    assert len(rows["Rows"]) == 3  # the header row and two rows


# ---- what a Hive table cannot hold ----------------------------------------------------------


@pytest.mark.parametrize(
    "expr, athena",
    [
        (
            "from_iso8601_timestamp('2020-01-01T00:00:00Z')",
            "timestamp(3) with time zone",
        ),
        ("time '01:02:03'", "time(0)"),  # a literal's precision is its digits'
    ],
)
def test_hive_ctas_of_a_type_hive_cannot_hold_fails(emu: Emulator, expr: str, athena: str) -> None:
    """Trino's HiveTypeTranslator.toTypeInfo: ``NOT_SUPPORTED: Unsupported Hive type``."""
    table = new_table()
    reason = failure(emu, f"create table {SCHEMA}.{table} as select {expr} as c")
    assert reason.startswith(f"NOT_SUPPORTED: Unsupported Hive type: {athena}"), reason
    assert "cast(c as varchar)" in reason
