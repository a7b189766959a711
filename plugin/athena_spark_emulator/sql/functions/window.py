"""Window functions (Trino's ``functions/window.md``): the ranking and value functions, as
sqlglot renders them for Spark, IGNORE/RESPECT NULLS of the value functions, and RANGE
frames with an interval offset over a date (:func:`range_frame`, which each aggregate and
value function runs on its window). Aggregates over a window are aggregate.py's. Examples:
``tests/conformance/examples/window.yml``.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    is_date,
    is_decimal,
    is_double,
    is_integral,
    is_timestamp,
    spark,
    type_of,
)

_cls: Any
_name: str


# ---- the ranking functions over a window without ORDER BY --------------------------------
def unordered_window(node: exp.Expression) -> exp.Expression:
    """``node`` (a ranking function) with an ORDER BY in its window when the window has
    none. Trino runs them over an unordered window (StatementAnalyzer requires an ORDER BY
    of lag and lead only: functions/select.py fails them without; WindowOperator then sees
    all rows of a partition as peers, in the order they come): ``row_number() over ()`` numbers the rows 1..n in an arbitrary order,
    ``rank()``, ``dense_rank()`` are 1, ``percent_rank()`` 0, ``cume_dist()`` 1 for every
    row. Spark refuses them without an ORDER BY (Window function ... requires window to be
    ordered), so the window is ordered by a constant: every row a peer of every other, as
    in Trino, and Spark numbers them in the order they come, which is Athena's answer too
    (Trino promises no order). dbt-athena's own tests send ``row_number() over ()``."""
    outer = node
    while isinstance(outer.parent, (exp.IgnoreNulls, exp.RespectNulls)):
        outer = outer.parent
    window = outer.parent
    if isinstance(window, exp.Window) and window.this is outer and not window.args.get("order"):
        window.set("order", exp.Order(expressions=[exp.Ordered(this=exp.Literal.number(1))]))
    return node


# Spark's function has Trino's semantics (as sqlglot renders it) once its window is ordered
for _cls, _name in (
    (exp.RowNumber, "row_number"),
    (exp.Rank, "rank"),
    (exp.DenseRank, "dense_rank"),
    (exp.PercentRank, "percent_rank"),
    (exp.CumeDist, "cume_dist"),
    (exp.Ntile, "ntile"),
):
    rewrites(_cls, _name)(unordered_window)
same(exp.Lag, "lag")  # its window has an ORDER BY (functions/select.py fails it without)
same(exp.Lead, "lead")


# ---- RANGE frames with an interval offset ----------------------------------------------------
_SUB_DAY = {"HOUR", "MINUTE", "SECOND", "MILLISECOND"}


def range_frame(node: exp.Expression) -> exp.Expression:
    """``node`` (a function) with its window's RANGE frame in a form Spark runs: Trino
    takes an interval offset over a date or timestamp sort key (the frame's bounds are the
    key plus or minus the interval: StatementAnalyzer's frame offset checks, RangeFraming);
    Spark takes one over a timestamp or an interval only (RANGE_FRAME_INVALID_TYPE for a
    date). A key not known to be a timestamp or an interval becomes ``key + INTERVAL '0'
    SECOND``: a date's midnight in the session's zone (UTC on Athena) as a timestamp, a
    timestamp or an interval itself, and for any other key a failure, as in Trino. Peers, NULL keys
    (whose frame is the NULL rows) and NULLS FIRST/LAST are the same in Spark as in Trino
    (RangeFraming); number offsets over number keys run as they are. Trino fails adding
    hours, minutes or seconds to a date: such an offset over a date is refused."""
    outer = node
    while isinstance(outer.parent, (exp.IgnoreNulls, exp.RespectNulls, exp.Filter)):
        outer = outer.parent
    window = outer.parent
    if not isinstance(window, exp.Window) or window.this is not outer:
        return node
    spec, order = window.args.get("spec"), window.args.get("order")
    if spec is None or order is None or str(spec.args.get("kind") or "").upper() != "RANGE":
        return node
    offsets = [spec.args.get(k) for k in ("start", "end")]
    units = {
        str(o.args["unit"].name).upper()
        for o in offsets
        if isinstance(o, exp.Interval) and o.args.get("unit") is not None
    }
    if len(order.expressions) != 1 or window.meta.get("athena_range_frame"):
        return node
    if not units:
        _fractional_offsets(window, order.expressions[0].this, offsets)
        return node
    key = order.expressions[0].this
    kind = type_of(key)
    if is_date(kind) and units & _SUB_DAY:
        raise Refused(
            f"{window.sql('athena')} (a RANGE frame over a date with an offset in hours, "
            "minutes or seconds: Athena fails adding them to a date)"
        )
    if not (is_timestamp(kind) or (kind is not None and kind.this == exp.DataType.Type.INTERVAL)):
        key.replace(spark("_0 + INTERVAL '0' SECOND", key))
    window.meta["athena_range_frame"] = True
    return node


def _fractional_offsets(window: exp.Window, key: exp.Expression, offsets: list) -> None:
    """A RANGE frame whose offset has a fraction (``RANGE BETWEEN 0.5 PRECEDING ...``) over
    an integer key: Trino compares the key plus or minus the offset in their common type
    (a decimal; StatementAnalyzer's frame offset coercion), Spark casts the offset to the
    key's type (0.5 becomes 0). The key is made a decimal of the offset's scale (every
    integer fits in 19 digits), a double for a double offset; over a key of another or an
    unknown type such an offset is refused."""
    kinds = [type_of(o) for o in offsets if isinstance(o, exp.Expression) and type_of(o)]
    fractional = [k for k in kinds if is_double(k) or (is_decimal(k) and _scale(k) > 0)]
    if not fractional:
        return
    kind = type_of(key)
    scale = max(_scale(k) if is_decimal(k) else 0 for k in fractional)
    if kind is not None and is_decimal(kind) and _scale(kind) < scale:
        # Spark would round the offset to the key's scale
        digits = min(38, int(kind.expressions[0].name) + scale - _scale(kind))
        key.replace(exp.Cast(this=key.copy(), to=exp.DataType.build(f"decimal({digits}, {scale})")))
        window.meta["athena_range_frame"] = True
        return
    if not is_integral(kind):
        if is_decimal(kind) or is_double(kind):
            return
        raise Refused(
            f"{window.sql('athena')} (a RANGE frame with a fractional offset over a key of "
            "a type the emulator cannot tell)"
        )
    if any(is_double(k) for k in fractional):
        key.replace(exp.Cast(this=key.copy(), to=exp.DataType.build("double")))
    else:
        target = exp.DataType.build(f"decimal({19 + scale}, {scale})")
        key.replace(exp.Cast(this=key.copy(), to=target))
    window.meta["athena_range_frame"] = True


def _scale(kind: Any) -> int:
    params = kind.expressions
    return int(params[1].name) if len(params) > 1 else 0


for _cls, _name in (
    (exp.FirstValue, "first_value"),
    (exp.LastValue, "last_value"),
    (exp.NthValue, "nth_value"),
):
    rewrites(_cls, _name)(range_frame)


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


# ---- a window over an aggregate whose Spark form is an expression of aggregates ------------
#: what Spark runs OVER a window as it is: an aggregate or window function call
_WINDOWED = (exp.AggFunc, exp.Filter, exp.IgnoreNulls, exp.RespectNulls, exp.Anonymous)


def _over_each(inner: exp.Expression) -> list:
    """The outermost aggregate calls of ``inner`` (each with its own FILTER)."""
    calls = []
    for found in inner.find_all(exp.AggFunc):
        call: Any = found
        if any(isinstance(a, exp.AggFunc) for a in _ancestors(call, inner)):
            continue
        while isinstance(call.parent, exp.Filter) and call.parent.this is call:
            call = call.parent
        calls.append(call)
    return calls


def _ancestors(node: exp.Expression, top: exp.Expression) -> list:
    found, parent = [], node.parent
    while parent is not None and parent is not top:
        found.append(parent)
        parent = parent.parent
    return found


def spread_windows(tree: exp.Expression) -> exp.Expression:
    """Each window whose function's Spark form is an expression of aggregates (Trino's
    ``array_agg(x) OVER (...)`` is ``CASE WHEN count(1) = 0 THEN NULL ELSE
    transform(collect_list(...), ...) END``, which Spark cannot run OVER a window) as that
    expression with the window on each aggregate call in it: every call reads the same
    frame (WindowOperator gives the function one frame per row), so the expression's value
    is the function's over that frame, as :func:`in_clauses` does for one function."""
    for window in list(tree.find_all(exp.Window)):
        inner = window.this
        if isinstance(inner, _WINDOWED) or not isinstance(inner, exp.Expression):
            continue
        calls = _over_each(inner)
        if not calls:
            continue
        for call in calls:
            over = window.copy()
            over.set("this", call.copy())
            call.replace(over)
        if window is tree:
            return inner
        window.replace(inner)
    return tree
