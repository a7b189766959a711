"""Window functions (Trino's ``functions/window.md``): the ranking and value functions, as
sqlglot renders them for Spark, and IGNORE/RESPECT NULLS of the value functions. Aggregates
over a window are aggregate.py's. Examples: ``tests/conformance/examples/window.yml``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import same

_cls: Any
_name: str


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.RowNumber, "row_number"),
    (exp.Rank, "rank"),
    (exp.DenseRank, "dense_rank"),
    (exp.Lag, "lag"),
    (exp.Lead, "lead"),
    (exp.FirstValue, "first_value"),
    (exp.LastValue, "last_value"),
    (exp.NthValue, "nth_value"),
    (exp.PercentRank, "percent_rank"),
    (exp.CumeDist, "cume_dist"),
    (exp.Ntile, "ntile"),
):
    same(_cls, _name)


# IGNORE NULLS / RESPECT NULLS: Trino takes them on the value functions only (first_value,
# last_value, nth_value, lag, lead), Spark has the same clause with the same meaning
_NULLS_TREATMENT = (exp.FirstValue, exp.LastValue, exp.NthValue, exp.Lag, exp.Lead)


def _nulls_treatment(node: exp.Expression) -> Optional[str]:
    if isinstance(node.this, _NULLS_TREATMENT) and isinstance(node.parent, exp.Window):
        return None
    return f"{node.sql('athena')} (IGNORE/RESPECT NULLS of other than a window's value function)"


same(exp.IgnoreNulls, "ignore nulls", _nulls_treatment)
same(exp.RespectNulls, "respect nulls", _nulls_treatment)


# ---- an aggregate whose Spark form is an expression of other aggregates ----------------------
Wrap = Callable[[exp.Expression], exp.Expression]


def in_clauses(node: exp.Expression, build: Callable[[Wrap], exp.Expression]) -> exp.Expression:
    """The Spark form of the aggregate call ``node`` built by ``build`` from other aggregate
    calls (avg of a decimal as sum / count): ``build`` gets ``wrap``, which puts one such
    call in ``node``'s own FILTER (WHERE ...) and OVER (...) clauses, so the form is an
    expression of calls that each keep them. When ``node`` has such clauses, the form
    replaces the outermost of them in the tree and ``node`` itself is answered (the
    translation then leaves it: it is no longer in the tree)."""
    outer, layers = node, []
    while isinstance(outer.parent, (exp.Filter, exp.Window)) and outer.parent.this is outer:
        outer = outer.parent
        layers.append(outer)

    def wrap(call: exp.Expression) -> exp.Expression:
        for layer in layers:
            copy = layer.copy()
            copy.set("this", call)
            call = copy
        return call

    form = build(wrap)
    if outer is node:
        return form
    outer.replace(form)
    return node
