"""Athena's decimal semantics where a finance project meets them, over the columns of a
Hive and an Iceberg table, a view over each and an import CTE (tests/emulator/ledger_tables.py):
``avg(decimal(p,s))`` is ``decimal(p,s)`` rounded half up (away from zero), ``sum`` is
``decimal(38,s)`` (Trino's DecimalAverageAggregation, DecimalSumAggregation); ``sign``,
``abs``, ``round`` and ``truncate`` of decimals have MathFunctions' result types; ``typeof``
of an aggregate keeps the query aggregated.

On main before the change: ``avg(amount)`` was ``5.977500`` typed ``double``, ``sign(amount)``
was refused, ``typeof(sum(k))`` returned one row per input row, ``round(amount)`` was typed
by Spark (``decimal(17,0)`` by luck, ``round(amount, 1)`` ``decimal(18,1)``)."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.ledger_tables import forms, ledger_emulator, rows
from tests.emulator.table_forms import failure
from tests.emulator.test_athena_semantics import run


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from ledger_emulator(SCHEMA)


SCHEMA = "fin_decimals"
FORMS, FORM_IDS = forms(SCHEMA)


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_avg_and_sum_of_decimals(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "avg(t.amount), typeof(avg(t.amount)), sum(t.amount), typeof(sum(t.amount)), "
        "avg(t.rate), typeof(avg(t.rate))",
        source,
        cte,
    )
    # (10.00 + 10.01 - 3.35 + 7.25) / 4 = 5.9775; rate: -1.125 / 4 = -0.28125
    assert found == [
        ["5.98", "decimal(18,2)", "23.91", "decimal(38,2)", "-0.281250", "decimal(18,6)"]
    ]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_avg_rounds_half_away_from_zero(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "avg(t.amount), avg(-t.amount), typeof(avg(-t.amount))",
        source,
        cte,
        "where t.k in (1, 2)",
    )
    assert found == [["10.01", "-10.01", "decimal(18,2)"]]  # 10.005


@pytest.mark.parametrize("source, cte", FORMS[:4], ids=FORM_IDS[:4])
def test_avg_and_sum_over_a_window(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "t.k, avg(t.amount) over (order by t.k rows between 1 preceding and current row), "
        "sum(t.amount) over (order by t.k), typeof(avg(t.amount) over ())",
        source,
        cte,
        "order by t.k",
    )
    assert found == [
        ["1", "10.00", "10.00", "decimal(18,2)"],
        ["2", "10.01", "20.01", "decimal(18,2)"],  # 10.005
        ["3", "3.33", "16.66", "decimal(18,2)"],  # 3.33
        ["4", "-3.35", "16.66", "decimal(18,2)"],
        ["5", "7.25", "23.91", "decimal(18,2)"],
    ]


def test_avg_of_values_of_decimal_literals(emu: Emulator) -> None:
    found = run(emu, "select avg(x), typeof(avg(x)) from (values 10.00, 10.01) v(x)")
    assert found == ("SUCCEEDED", [["_col0", "_col1"], ["10.01", "decimal(4,2)"]])


def test_sum_overflow_fails_as_athena(emu: Emulator) -> None:
    big = "cast('99999999999999999999999999999999999999' as decimal(38,0))"
    values = f"(values {big}, {big}) v(x)"
    reason = failure(emu, f"select sum(x), typeof(sum(x)) from {values}")
    assert reason == "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow", reason
    reason = failure(emu, f"select sum(x) over (), typeof(sum(x) over ()) from {values}")
    assert reason == "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow", reason


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_typeof_of_an_aggregate_keeps_the_query_aggregated(
    emu: Emulator, source: str, cte: bool
) -> None:
    assert rows(emu, "typeof(sum(t.k))", source, cte) == [["bigint"]]
    assert rows(emu, "typeof(count(*))", source, cte) == [["bigint"]]
    assert rows(emu, "typeof(max(t.amount))", source, cte) == [["decimal(18,2)"]]
    # a window over an aggregate: still one row
    assert rows(emu, "typeof(rank() over (order by sum(t.k)))", source, cte) == [["bigint"]]
    # a window function alone: one row per input row
    assert rows(emu, "typeof(rank() over (order by t.k))", source, cte) == [["bigint"]] * 5


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_sign_abs_round_truncate_of_decimals(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "t.k, sign(t.amount), typeof(sign(t.amount)), abs(t.amount), typeof(abs(t.amount)), "
        "round(t.amount), typeof(round(t.amount)), round(t.amount, 1), "
        "typeof(round(t.amount, 1)), truncate(t.amount), typeof(truncate(t.amount)), "
        "truncate(t.rate, 1), typeof(truncate(t.rate, 1)), round(t.rate, -1)",
        source,
        cte,
        "order by t.k",
    )
    assert found == [
        ["1", "1", "decimal(1,0)", "10.00", "decimal(18,2)", "10", "decimal(17,0)", "10.00",
         "decimal(19,2)", "10", "decimal(16,0)", "1.500000", "decimal(18,6)", "0.000000"],
        ["2", "1", "decimal(1,0)", "10.01", "decimal(18,2)", "10", "decimal(17,0)", "10.00",
         "decimal(19,2)", "10", "decimal(16,0)", "-2.200000", "decimal(18,6)", "0.000000"],
        ["3", "-1", "decimal(1,0)", "3.35", "decimal(18,2)", "-3", "decimal(17,0)", "-3.40",
         "decimal(19,2)", "-3", "decimal(16,0)", "0.100000", "decimal(18,6)", "0.000000"],
        ["4", None, "decimal(1,0)", None, "decimal(18,2)", None, "decimal(17,0)", None,
         "decimal(19,2)", None, "decimal(16,0)", None, "decimal(18,6)", None],
        ["5", "1", "decimal(1,0)", "7.25", "decimal(18,2)", "7", "decimal(17,0)", "7.30",
         "decimal(19,2)", "7", "decimal(16,0)", "-0.500000", "decimal(18,6)", "0.000000"],
    ]  # fmt: skip


def test_round_half_up_of_decimals_away_from_zero(emu: Emulator) -> None:
    state, found = run(
        emu,
        "select round(x), round(-x), round(x, 1), round(-x, 1), round(x, -1), truncate(-x, 1), "
        "typeof(round(x, -1)) from (values cast(2.45 as decimal(4,2)), "
        "cast(5.55 as decimal(4,2))) v(x) order by x",
    )
    assert state == "SUCCEEDED", found
    assert found[1:] == [
        ["2", "-2", "2.50", "-2.50", "0.00", "-2.40", "decimal(5,2)"],
        ["6", "-6", "5.60", "-5.60", "10.00", "-5.50", "decimal(5,2)"],
    ]


@pytest.mark.parametrize("source, cte", FORMS[:4], ids=FORM_IDS[:4])
def test_avg_and_sum_with_a_filter(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "avg(t.amount) filter (where t.k <= 2), sum(t.amount) filter (where t.k > 2), "
        "typeof(avg(t.amount) filter (where t.k <= 2))",
        source,
        cte,
    )
    assert found == [["10.01", "3.90", "decimal(18,2)"]]


def test_ctas_writes_athena_types(emu: Emulator) -> None:
    sql = (
        f"create table {SCHEMA}.totals with (format='PARQUET', external_location="
        f"'s3://dbt-data/{SCHEMA}/totals/') as select sum(amount) as total, avg(amount) as mean, "
        f"avg(rate) as mean_rate from {SCHEMA}.ledger_hive where k > 0"
    )
    assert run(emu, sql)[0] == "SUCCEEDED"
    state, found = run(
        emu,
        "select column_name, data_type from information_schema.columns "
        f"where table_schema = '{SCHEMA}' and table_name = 'totals' order by ordinal_position",
    )
    assert state == "SUCCEEDED", found
    assert found[1:] == [
        ["total", "decimal(38,2)"],
        ["mean", "decimal(18,2)"],
        ["mean_rate", "decimal(18,6)"],
    ]
    state, found = run(emu, f"select total, mean, mean_rate from {SCHEMA}.totals")
    assert found[1:] == [["23.91", "5.98", "-0.281250"]]
