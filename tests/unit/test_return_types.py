"""The translation's type of an expression over a table's columns is Athena's (Trino 410's):
aggregates (io.trino.operator.aggregation), the common super type of coalesce/CASE/IF/
greatest (TypeCoercion), date fields (DateTimeFunctions: bigint), decimal arithmetic
(DecimalOperators), through a CTE too. Pure: sqlglot only.

On main 6782ddf (before the change): sum(decimal(18,2)) was decimal(18,2), avg of a
decimal double, max_by unknown, coalesce of decimal(18,2) and decimal(18,6) decimal(18,2),
year() tinyint, and a CTE's sum divided by its max_by unknown."""

from __future__ import annotations

from typing import Optional

import pytest
from sqlglot import exp

from athena_spark_emulator.sql import syntax
from athena_spark_emulator.sql.spark_forms import type_of
from athena_spark_emulator.sql.translate import annotate

SCHEMAS = {
    "ledger": {
        "amount": "decimal(18,2)",
        "rate": "decimal(18,6)",
        "d": "date",
        "t": "timestamp(3)",
        "k": "integer",
        "b": "bigint",
        "r": "real",
        "x": "double",
        "s": "varchar",
        "flag": "boolean",
    }
}


def _type(sql: str) -> Optional[str]:
    tree = syntax.parse(sql)
    annotate(tree, SCHEMAS)
    select = tree
    projection = select.expressions[0]
    kind = type_of(projection.this if isinstance(projection, exp.Alias) else projection)
    return None if kind is None else kind.sql("athena").lower().replace(" ", "")


@pytest.mark.parametrize(
    "expression, athena",
    [
        ("sum(amount)", "decimal(38,2)"),
        ("sum(k)", "bigint"),
        ("sum(x)", "double"),
        ("sum(r)", "real"),
        ("avg(amount)", "decimal(18,2)"),
        ("avg(k)", "double"),
        ("min(amount)", "decimal(18,2)"),
        ("max_by(rate, d)", "decimal(18,6)"),
        ("min_by(s, d)", "varchar"),
        ("arbitrary(rate)", "decimal(18,6)"),
        ("count(*)", "bigint"),
        ("count_if(flag)", "bigint"),
        ("approx_distinct(k)", "bigint"),
        ("stddev(x)", "double"),
        ("bool_and(flag)", "boolean"),
        ("array_agg(amount)", "array(decimal(18,2))"),
        ("map_agg(k, amount)", "map(integer,decimal(18,2))"),
        ("histogram(k)", "map(integer,bigint)"),
        ("checksum(k)", "varbinary"),
        ("coalesce(max_by(rate, d), cast(1 as decimal(18,6)))", "decimal(18,6)"),
        ("coalesce(amount, rate)", "decimal(22,6)"),
        ("coalesce(k, amount)", "decimal(18,2)"),
        ("coalesce(b, amount)", "decimal(21,2)"),
        ("case when flag then amount else rate end", "decimal(22,6)"),
        ("if(flag, k, b)", "bigint"),
        ("greatest(amount, rate)", "decimal(22,6)"),
        ("coalesce(x, amount)", "double"),
        ("coalesce(r, k)", "real"),
        ("year(d)", "bigint"),
        ("month(t)", "bigint"),
        ("hour(t)", "bigint"),
        ("extract(year from d)", "bigint"),
        ("amount * rate", "decimal(36,8)"),
        ("amount * k", "decimal(28,2)"),
        ("amount + rate", "decimal(23,6)"),
        ("sum(amount) / max(rate)", "decimal(38,6)"),
        ("r * 2", "real"),
        ("sequence(1, k)", "array(bigint)"),
    ],
)
def test_athena_types_of_expressions(expression: str, athena: str) -> None:
    assert _type(f"select {expression} from ledger") == athena


def test_a_ctes_aggregates_keep_their_types() -> None:
    sql = (
        "with c as (select coalesce(max_by(rate, d), cast(1 as decimal(18,6))) as r, "
        "sum(amount) as a from ledger) select a / r from c"
    )
    assert _type(sql) == "decimal(38,6)"
