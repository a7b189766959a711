"""Aggregate functions (Trino's ``functions/aggregate.md``): count, sum, min, max, avg,
count_if, bool_and/bool_or, arbitrary, array_agg, listagg, max_by/min_by, the statistical
ones, approx_distinct and reduce_agg. ``FILTER (WHERE ...)`` and GROUPING SETS are
query_shapes.py's. Examples: ``tests/conformance/examples/aggregate.yml``.
"""

from __future__ import annotations

from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import is_text, spark, type_of

_cls: Any
_name: str


# ---- aggregates ---------------------------------------------------------------------------
for _cls, _name in (
    (exp.Count, "count"),
    (exp.Sum, "sum"),
    (exp.Min, "min"),
    (exp.Max, "max"),
    (exp.CountIf, "count_if"),
    (exp.LogicalOr, "bool_or"),
    (exp.LogicalAnd, "bool_and"),
    (exp.AnyValue, "arbitrary"),
):
    same(_cls, _name)


def _struct_fields(values: list) -> str:
    return ", ".join(f"_{i} AS k{i}" for i in range(len(values)))


def _ordered_list(value: exp.Expression, order: Optional[exp.Expression]) -> exp.Expression:
    """Spark's collect_list keeps no order and drops NULLs; Trino's array_agg keeps both:
    collect (value, order keys) structs, sort them by the keys, keep the values; NULL when
    there are no rows, as Trino's."""
    keys = [o for o in (order.expressions if order is not None else [])]
    holes = [value, *[k.this for k in keys]]
    packed = f"collect_list(named_struct({', '.join(f'{chr(39)}k{i}{chr(39)}, _{i}' for i in range(len(holes)))}))"
    if keys:
        compare = []
        for i, key in enumerate(keys, start=1):
            desc = bool(key.args.get("desc"))
            nulls_first = bool(key.args.get("nulls_first"))
            lt, gt = ("1", "-1") if desc else ("-1", "1")
            nf, nl = ("-1", "1") if nulls_first else ("1", "-1")
            compare.append(
                f"CASE WHEN l.k{i} IS NULL AND r.k{i} IS NULL THEN 0 "
                f"WHEN l.k{i} IS NULL THEN {nf} WHEN r.k{i} IS NULL THEN {nl} "
                f"WHEN l.k{i} < r.k{i} THEN {lt} WHEN l.k{i} > r.k{i} THEN {gt} ELSE 0 END"
            )
        chain = compare[-1]
        for part in reversed(compare[:-1]):
            chain = f"CASE WHEN ({part}) <> 0 THEN ({part}) ELSE ({chain}) END"
        packed = f"array_sort({packed}, (l, r) -> {chain})"
    text = f"CASE WHEN count(1) = 0 THEN NULL ELSE transform({packed}, s -> s.k0) END"
    return spark(text, *holes)


@rewrites(exp.ArrayAgg, "array_agg")
def array_agg(node: exp.Expression) -> exp.Expression:
    this = node.this
    if isinstance(this, exp.Order):
        return _ordered_list(this.this, this)
    if isinstance(this, exp.Distinct):
        # Trino keeps one NULL too, in no stated order: each value once, first seen first
        if len(this.expressions) != 1:
            raise Refused("array_agg(DISTINCT ...) of several values")
        return spark("array_distinct(_0)", _ordered_list(this.expressions[0], None))
    return _ordered_list(this, None)


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.Stddev, "stddev"),
    (exp.StddevSamp, "stddev_samp"),
    (exp.StddevPop, "stddev_pop"),
    (exp.Variance, "variance"),
    (exp.VariancePop, "var_pop"),
    (exp.Avg, "avg"),
    (exp.ArgMax, "max_by"),
    (exp.ArgMin, "min_by"),
    (exp.ApproxDistinct, "approx_distinct"),
):
    same(_cls, _name)


@rewrites(exp.GroupConcat, "listagg")
def listagg(node: exp.Expression) -> exp.Expression:
    this = node.this
    separator = node.args.get("separator") or exp.Literal.string("")
    if node.args.get("on_overflow") is not None:
        raise Refused("listagg ... ON OVERFLOW")
    value = this.this if isinstance(this, exp.Order) else this
    kind = type_of(value)
    if kind is None or not is_text(kind):  # Athena's listagg takes varchar only
        if kind is not None:
            raise Fails(
                f"FUNCTION_NOT_FOUND: Unexpected parameters ({kind.sql('athena').lower()}) for function listagg"
            )
        raise Refused(f"{node.sql('athena')} (of a value whose type the emulator cannot tell)")
    if isinstance(this, exp.Order):
        values = _ordered_list(this.this, this)
    elif isinstance(this, exp.Distinct):
        raise Refused("listagg(DISTINCT ...)")
    else:
        values = _ordered_list(this, None)
    return spark("array_join(_0, _1)", values, separator)


@rewrites("reduce_agg", "reduce_agg")
def reduce_agg(node: exp.Expression) -> exp.Expression:
    """Trino's reduce_agg(value, initial, input, combine): ``input`` folded over the group's
    non-NULL values from ``initial`` (in no order: Trino's combine of partial states has
    none either); NULL when there is none. Spark: aggregate() over collect_list (which
    drops NULLs)."""
    args = node.expressions
    if len(args) != 4 or not all(isinstance(a, exp.Lambda) for a in args[2:]):
        raise Refused(f"{node.sql('athena')} (reduce_agg takes a value, a state, two lambdas)")
    value, initial, step = args[0], args[1], args[2]
    if isinstance(initial, exp.Null):
        raise Refused("reduce_agg with a NULL initial state")
    return spark(
        "CASE WHEN count(_0) = 0 THEN NULL ELSE aggregate(collect_list(_0), _1, _2) END",
        value,
        initial,
        step,
    )
