"""dbt renders the SQL, the emulator runs it with Athena's semantics: dbt's own
cross-database macros (dbt-core's defaults and dbt-athena's overrides, as dbt renders them
for Athena), a CTAS with an unaliased expression and a data test whose verdict depends on
integer division, through the `dbt` console script on the emulator with local Spark.

Each expected value is Athena's answer (Trino's documented semantics; dbt-athena's macros
are written for it). On main 80dadb0 these failed: dateadd('hour', 9, ...) gave
2020-03-10 (9 days), the listagg's order was dropped, the CTAS column was named '(5 / 2)'
and the data test failed (5 / 2 = 2.5)."""

from __future__ import annotations

import datetime
import decimal
from pathlib import Path

import pytest

from tests.integration.conftest import cli_suite, rows

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

HERE = Path(__file__).parent
world, project, dbt = cli_suite(HERE / "semantics_seed.yml", HERE / "semantics_project")


@pytest.fixture(scope="module")
def built(dbt, world) -> str:
    output: str = dbt("build")
    return output


def test_cross_database_macros_give_athenas_values(built: str) -> None:
    assert "OK created sql table model semantics.cross_db_macros" in built, built[-6000:]
    [row] = rows("semantics", "cross_db_macros")
    assert row == {
        "dateadd_hour": datetime.datetime(2020, 3, 1, 9, 0),
        "dateadd_month": datetime.date(2020, 2, 29),
        "datediff_day": 31,
        "datediff_hour": 5,
        "datediff_month": 2,
        "date_trunc_month": datetime.date(2020, 2, 1),
        "last_day_month": datetime.date(2020, 2, 29),
        "split_part_2": "b",
        "split_part_past": None,
        "hash_abc": "900150983cd24fb0d6963f7d28e17f72",
        "safe_cast_bad": None,
        "bool_text": "true",
        "concat_ab": "ab",
        "position_b": 2,
        "replaced": "axc",
        "right_2": "ef",
        "length_abc": 3,
        "type_int_div": 3,
        "type_bigint": 7,
        "type_float": 1.5,
        "type_numeric": decimal.Decimal("1.250000"),
        "type_string": "12",
        "type_timestamp": datetime.datetime(2020, 1, 2, 3, 4, 5),
        "has_current_timestamp": True,
        "array_constructed": [1, 2],
        "array_appended": [1, 2, 3],
        "array_concatenated": [1, 2, 3],
    }


def test_listagg_keeps_its_order(built: str) -> None:
    [row] = rows("semantics", "cross_db_aggregates")
    assert row == {"listagg_desc": "3,2,1", "any_y": "k", "any_over_2": True}


def test_ctas_names_an_unaliased_expression_col0(built: str) -> None:
    assert rows("semantics", "unaliased") == [{"_col0": 2, "label": "x"}]


def test_data_test_verdict_follows_integer_division(built: str) -> None:
    assert "PASS integer_division" in built, built[-3000:]
    assert "ERROR=0" in built, built[-3000:]
