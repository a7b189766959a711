"""A finance project's tables, built once per test module
through the Athena API: ``ledger(k, amount decimal(18,2), rate decimal(18,6), d date,
ts timestamp)`` as a Hive table and as an Iceberg table, a view over each, and the
import-CTE form (``with t as (select * from ...)``), so each behaviour is checked over
columns whose types come from a table's schema, not from literals."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables
from tests.emulator.test_athena_semantics import run

LEDGER_ROWS = (
    "(1, cast(10.00 as decimal(18,2)), cast(1.5 as decimal(18,6)), date '2024-01-01', "
    "timestamp '2024-01-01 10:00:00'), "
    "(2, cast(10.01 as decimal(18,2)), cast(-2.25 as decimal(18,6)), date '2024-01-15', "
    "timestamp '2024-01-15 10:00:00'), "
    "(3, cast(-3.35 as decimal(18,2)), cast(0.125 as decimal(18,6)), date '2024-01-15', "
    "timestamp '2024-01-15 10:00:00'), "
    "(4, cast(null as decimal(18,2)), cast(null as decimal(18,6)), cast(null as date), "
    "cast(null as timestamp)), "
    "(5, cast(7.25 as decimal(18,2)), cast(-0.5 as decimal(18,6)), date '2024-03-01', "
    "timestamp '2024-03-01 10:00:00')"
)
LEDGER = f"select * from (values {LEDGER_ROWS}) v(k, amount, rate, d, ts)"


def tables(schema: str) -> List[str]:
    """The CTAS statements of the ledger's Hive and Iceberg tables in ``schema``."""
    return [
        f"create table {schema}.ledger_hive with (format='PARQUET', "
        f"external_location='s3://dbt-data/{schema}/ledger_hive/') as " + LEDGER,
        f"create table {schema}.ledger_iceberg with (table_type='ICEBERG', "
        f"is_external=false, location='s3://dbt-data/{schema}/ledger_iceberg/') as " + LEDGER,
    ]


def sources(schema: str) -> List[Tuple[str, str]]:
    """(id, source) of each form in ``schema``: the tables, the views over them."""
    return [
        ("hive", f"{schema}.ledger_hive"),
        ("iceberg", f"{schema}.ledger_iceberg"),
        ("hive_view", f"{schema}.v_ledger_hive"),
        ("iceberg_view", f"{schema}.v_ledger_iceberg"),
    ]


def forms(schema: str) -> Tuple[list, list]:
    """(source, cte) of each form with and without the import CTE, and their test ids."""
    found = [(s, cte) for _, s in sources(schema) for cte in (False, True)]
    ids = [f"{i}-{'cte' if cte else 'from'}" for i, _ in sources(schema) for cte in (False, True)]
    return found, ids


def ledger_emulator(schema: str, extra: Optional[List[str]] = None) -> Iterator[Emulator]:
    """An emulator holding the ledger tables and views in ``schema`` (a schema of the test
    module's own: emulators of one test process share their Glue catalog, not their
    files), and ``extra`` statements run after."""
    view = f"create view {schema}.v_ledger_{{kind}} as select * from {schema}.ledger_{{kind}}"
    kinds = dict(zip(("hive", "iceberg"), tables(schema)))
    yield from emulator_with_tables(schema, kinds, view, extra)


def rows(emu: Emulator, select: str, source: str, cte: bool, tail: str = "") -> List[List]:
    """The rows of ``select <select> from <source> t <tail>`` (or of the import-CTE form)."""
    if cte:
        sql = f"with t as (select * from {source}) select {select} from t {tail}"
    else:
        sql = f"select {select} from {source} t {tail}"
    state, found = run(emu, sql)
    assert state == "SUCCEEDED", (sql, found)
    return found[1:]
