"""The emulator's one table of statement handlers (athena_spark_emulator.core.handlers): Athena
SQL and spark.sql inside calculations are both picked from it by (dialect, kind)."""

from __future__ import annotations

import pytest

from athena_spark_emulator.core import handlers
from athena_spark_emulator.spark import catalogs as spark_catalogs
from athena_spark_emulator.sql import statements as sql_statements


def test_athena_and_spark_statements_are_picked_from_the_same_table() -> None:
    assert sql_statements.HANDLERS is handlers.HANDLERS
    athena = handlers.HANDLERS.kinds("athena")
    spark = handlers.HANDLERS.kinds("spark")
    assert athena["SELECT"].run is sql_statements.select
    assert spark["ShowTableProperties"].run is spark_catalogs.show_properties
    assert spark["CreateTableAsSelect USING iceberg"].run is spark_catalogs.iceberg_ctas


def test_a_kind_without_handler_is_none_and_the_caller_decides() -> None:
    # Athena: the query fails NOT_SUPPORTED (test_athena_sql); spark.sql: real Spark runs it
    assert handlers.HANDLERS.find("spark", "CreateTableAsSelect USING parquet") is None
    assert handlers.HANDLERS.find("athena", "GRANT") is None


def test_registering_a_kind_twice_or_an_unknown_dialect_is_refused() -> None:
    table = handlers.HandlerTable()
    table.register("athena", ["SELECT"])(lambda engine, statement: None)
    with pytest.raises(ValueError, match="two handlers for the athena statement kind 'SELECT'"):
        table.register("athena", ["SELECT"])(lambda engine, statement: None)
    with pytest.raises(ValueError, match="unknown dialect 'trino'"):
        table.register("trino", ["SELECT"])
    assert table.find("athena", "SELECT") is not None
    assert table.kinds("spark") == {}
