"""Aggregate functions (Trino's ``functions/aggregate.md``): count, sum, min, max, avg,
count_if, bool_and/bool_or/every, arbitrary, array_agg, listagg, max_by/min_by, max/min of
n, map_agg, histogram, multimap_agg, the statistical ones (corr, geometric_mean),
bitwise_and_agg/bitwise_or_agg, approx_distinct, approx_percentile and reduce_agg.
``FILTER (WHERE ...)`` and GROUPING SETS are
query_shapes.py's. Examples: ``tests/conformance/examples/aggregate.yml``.
"""

from __future__ import annotations

from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions import table
from athena_spark_emulator.sql.functions.conversion_types import (
    athena_type_name,
    holds_unbounded_text,
    unsized_text,
)
from athena_spark_emulator.sql.functions.table import Fails, Refused, Rewrite
from athena_spark_emulator.sql.functions.window import in_clauses, range_frame
from athena_spark_emulator.sql.spark_forms import (
    decimal_parts,
    is_decimal,
    is_double,
    is_integral,
    is_text,
    literal_int,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import ERROR_END, ERROR_MARK

T = exp.DataType.Type
_cls: Any
_name: str
_spark: str


def rewrites(key: Any, name: str) -> Any:
    """table.rewrites, each aggregate's rewrite run on its node once window.range_frame
    has put a RANGE frame of its window in a form Spark runs."""

    def register(fn: Rewrite) -> Rewrite:
        table.rewrites(key, name)(lambda node: fn(range_frame(node)))
        return fn

    return register


def same(key: Any, name: str) -> None:
    """table.same, but with window.range_frame run on the node."""
    table.rewrites(key, name)(range_frame)


# ---- aggregates ---------------------------------------------------------------------------
for _cls, _name in (
    (exp.Count, "count"),
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


def _of_types(out: exp.Expression, base: str, *values: Optional[exp.Expression]) -> exp.Expression:
    """``out`` typed ``base`` of its values' types (``array(T)``, ``map(K, V)``; a value
    that is itself a DataType stands for its type, None for an unknown one): Trino's aggregates of arrays and maps
    carry their arguments' types (ArrayAggregationFunction array(T), MapAggregationFunction
    map(K,V), Histogram map(K,bigint), MultimapAggregationFunction map(K,array(V)))."""
    kinds = [v if isinstance(v, exp.DataType) or v is None else type_of(v) for v in values]
    if any(k is None for k in kinds):
        return out
    kind = exp.DataType(
        this=T.ARRAY if base == "array" else T.MAP,
        expressions=[k.copy() for k in kinds if k is not None],
        nested=True,
    )
    arguments = [v for v in values if v is not None and not isinstance(v, exp.DataType)]
    return _named(out, kind, arguments)


def _named(out: exp.Expression, kind: exp.DataType, arguments: list) -> exp.Expression:
    """``out`` typed ``kind``, whose name typeof and ColumnInfo give (datetime's
    _time_typeof reads it): a Spark form's own shape tells nothing of its type. An
    unbounded varchar in it is named only where the ``arguments`` it comes from are
    unbounded (conversion_types.unsized_text)."""
    name = athena_type_name(kind)
    if name and all(not holds_unbounded_text(type_of(v)) or unsized_text(v) for v in arguments):
        out.meta["athena_typeof"] = name
    return typed(out, kind)


@rewrites(exp.ArrayAgg, "array_agg")
def array_agg(node: exp.Expression) -> exp.Expression:
    this = node.this
    if isinstance(this, exp.Order):
        return _of_types(_ordered_list(this.this, this), "array", this.this)
    if isinstance(this, exp.Distinct):
        # Trino keeps one NULL too, in no stated order: each value once, first seen first
        if len(this.expressions) != 1:
            raise Refused("array_agg(DISTINCT ...) of several values")
        value = this.expressions[0]
        out = spark("array_distinct(_0)", _ordered_list(value, None))
        return _of_types(out, "array", value)
    return _of_types(_ordered_list(this, None), "array", this)


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.Stddev, "stddev"),
    (exp.StddevSamp, "stddev_samp"),
    (exp.StddevPop, "stddev_pop"),
    (exp.Variance, "variance"),
    (exp.VariancePop, "var_pop"),
    (exp.ArgMax, "max_by"),
    (exp.ArgMin, "min_by"),
):
    same(_cls, _name)


# ---- sum and avg of decimals -----------------------------------------------------------------
def _decimal_argument(node: exp.Expression) -> Optional[tuple]:
    """(the value, DISTINCT or not, (precision, scale)) of sum/avg of a decimal (None:
    of another type, or of one the emulator cannot tell: Spark's form, whose types of
    integers and doubles are Trino's)."""
    value, distinct = node.this, False
    if isinstance(value, exp.Distinct):
        if len(value.expressions) != 1:
            return None
        value, distinct = value.expressions[0], True
    kind = type_of(value)
    parts = decimal_parts(kind) if is_decimal(kind) and kind is not None else None
    return None if parts is None else (value, distinct, parts)


def _checked_sum(
    value: exp.Expression, inner: str, digits: int, scale: int, wrap: Any, overflow: str
) -> exp.Expression:
    """Spark's sum of ``value`` cast to decimal(digits, scale) (``inner``: ``_0`` or
    ``DISTINCT _0``), failing with ``overflow`` (Athena's text) where Spark's sum passes
    its type: try_sum is NULL then, for a group that has values."""
    total = wrap(
        spark(f"try_sum({inner})", spark(f"CAST(_0 AS DECIMAL({digits}, {scale}))", value))
    )
    count = wrap(spark(f"count({inner})", value))
    failed = exp.Literal.string(f"{ERROR_MARK}{overflow}{ERROR_END}")
    text = "CASE WHEN _1 > 0 AND _0 IS NULL THEN raise_error(_2) ELSE _0 END"
    return spark(text, total, count, failed)


def _of_real(node: exp.Expression, name: str) -> exp.Expression:
    """sum or avg of a real: Trino's is a real (RealSumAggregation and
    RealAverageAggregation keep a double state and write it as a float); Spark's of a
    FLOAT is a DOUBLE, so it is cast back. Of other types the node as it is."""
    value = node.this.expressions[0] if isinstance(node.this, exp.Distinct) else node.this
    kind = type_of(value)
    if not (is_double(kind) and kind is not None and kind.this != exp.DataType.Type.DOUBLE):
        return node
    return in_clauses(node, lambda wrap: typed(spark("CAST(_0 AS FLOAT)", wrap(node)), "real"))


@rewrites(exp.Sum, "sum")
def sum_(node: exp.Expression) -> exp.Expression:
    """Trino's sum of a decimal(p,s) is a decimal(38,s) (DecimalSumAggregation's output
    type), and fails NUMERIC_VALUE_OUT_OF_RANGE ("Decimal overflow", Decimals.
    throwIfOverflows) past 38 digits. Spark's is a decimal(min(38, p + 10), s) that
    overflows at p + 10 digits: Spark sums the values cast to decimal(38,s). Of a real it
    is a real (:func:`_of_real`)."""
    found = _decimal_argument(node)
    if found is None:
        return _of_real(node, "sum")
    value, distinct, (_, scale) = found
    inner = "DISTINCT _0" if distinct else "_0"

    def build(wrap: Any) -> exp.Expression:
        overflow = "NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow"
        out = _checked_sum(value, inner, 38, scale, wrap, overflow)
        return typed(out, f"decimal(38,{scale})")

    return in_clauses(node, build)


@rewrites(exp.Avg, "avg")
def avg(node: exp.Expression) -> exp.Expression:
    """Trino's avg of a decimal(p,s) is a decimal(p,s): the sum divided by the count,
    rounded HALF_UP at scale s (DecimalAverageAggregation.average: BigDecimal.divide(count,
    scale, HALF_UP); half away from zero for a negative mean). Spark's avg of one is a
    decimal(p+4, s+4) (rounded at s + 4: a second rounding to s could move a value just
    below a half up). So the form is Spark's exact sum, a decimal(min(38, p + 10), s),
    divided by the count (Spark rounds that quotient HALF_UP at max(6, 38 - the sum's
    integer digits) digits: s + 10 and more for p <= 18, the same rounding at s as
    Trino's for any group of fewer than 10^10 rows), cast to decimal(p,s), which Spark
    rounds HALF_UP. Trino's sum inside avg does not overflow (it keeps an overflow
    counter); where Spark's would, the statement fails NOT_SUPPORTED. Of a real it is a
    real (:func:`_of_real`); of other types Spark's avg, as sqlglot renders it."""
    found = _decimal_argument(node)
    if found is None:
        return _of_real(node, "avg")
    value, distinct, (precision, scale) = found
    inner = "DISTINCT _0" if distinct else "_0"

    def build(wrap: Any) -> exp.Expression:
        overflow = (
            f"NOT_SUPPORTED: the Athena emulator cannot run avg of decimal({precision},"
            f"{scale}) values whose sum passes 38 digits (Athena can: Spark's decimals stop "
            "at 38 digits)"
        )
        total = _checked_sum(value, inner, min(38, precision + 10), scale, wrap, overflow)
        count = wrap(spark(f"count({inner})", value))
        text = f"CAST(_0 / nullif(_1, 0) AS DECIMAL({precision}, {scale}))"
        return typed(spark(text, total, count), f"decimal({precision},{scale})")

    return in_clauses(node, build)


_STANDARD_ERROR = (0.0040625, 0.26)  # ApproximateCountDistinctAggregation's bounds


@rewrites(exp.ApproxDistinct, "approx_distinct")
def approx_distinct(node: exp.Expression) -> exp.Expression:
    """Spark's HyperLogLog++ at Trino's standard error, 2.3% unless the query gives one
    (Spark's own default is 5%): within Trino's documented error, not necessarily the
    count Athena's estimate gives. The error given must be a number literal (Spark takes
    a double literal only) in Trino's bounds (ApproximateCountDistinctAggregation:
    INVALID_FUNCTION_ARGUMENT outside [0.0040625, 0.26])."""
    node = node.copy()
    given = node.args.get("accuracy")
    error = 0.023 if given is None else _number(given)
    if error is None:
        raise Refused(f"{node.sql('athena')} (a standard error that is not a number literal)")
    low, high = _STANDARD_ERROR
    if not low <= error <= high:
        raise Fails(
            f"INVALID_FUNCTION_ARGUMENT: Max standard error must be in [{low}, {high}]: {error}"
        )
    node.set("accuracy", exp.Literal.number(repr(error)))
    return typed(node, "bigint")


@rewrites(exp.GroupConcat, "listagg")
def listagg(node: exp.Expression) -> exp.Expression:
    """Trino's listagg(x[, separator]) WITHIN GROUP (ORDER BY ...): its grammar
    (SqlBase.g4, ``LISTAGG``) requires the WITHIN GROUP clause, so a listagg without one
    fails SYNTAX_ERROR (TestListagg); the values joined in that order, NULLs skipped."""
    this = node.this
    if not isinstance(this, exp.Order):
        raise Fails(
            f"SYNTAX_ERROR: mismatched input after {node.sql('athena')}. Expecting: 'WITHIN' "
            "(Athena's listagg needs WITHIN GROUP (ORDER BY ...) after its arguments)"
        )
    separator = node.args.get("separator") or exp.Literal.string("")
    if node.args.get("on_overflow") is not None:
        raise Refused("listagg ... ON OVERFLOW")
    value = this.this
    kind = type_of(value)
    if kind is None or not is_text(kind):  # Athena's listagg takes varchar only
        if kind is not None:
            raise Fails(
                f"FUNCTION_NOT_FOUND: Unexpected parameters ({kind.sql('athena').lower()}) for function listagg"
            )
        raise Refused(f"{node.sql('athena')} (of a value whose type the emulator cannot tell)")
    # Trino skips NULLs, and a group with none but NULLs is NULL (array_join's is '')
    out = spark(
        "CASE WHEN count(_2) = 0 THEN NULL ELSE array_join(_0, _1) END",
        _ordered_list(value, this),
        separator,
        value,
    )
    return _named(out, exp.DataType.build("varchar"), [])  # ListaggAggregationFunction: varchar


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
    out = spark(
        "CASE WHEN count(_0) = 0 THEN NULL ELSE aggregate(collect_list(_0), _1, _2) END",
        value,
        initial,
        step,
    )
    kind = type_of(initial)  # ReduceAggregationFunction: the state's type S
    return _named(out, kind, [initial]) if kind is not None else out


# ---- max(x, n) / min(x, n), Trino's max_n / min_n -------------------------------------------
_MAX_N = 10_000  # Trino's MaxNStateFactory / MinNStateFactory MAX_NUMBER_OF_VALUES


def _top_n(node: exp.Expression, name: str, descending: bool) -> exp.Expression:
    """``max(x, n)``: the array of the n largest non-NULL values, largest first (``min``:
    smallest first); NULL when there is none."""
    if not node.expressions:
        return node
    if len(node.expressions) != 1:
        raise Refused(f"{node.sql('athena')} (more than two arguments)")
    if isinstance(node.parent, exp.Window):
        raise Refused(f"{node.sql('athena')} over a window")
    n = literal_int(node.expressions[0])
    if n is None:
        raise Refused(f"{node.sql('athena')} (a count that is not an integer literal)")
    if n <= 0:
        raise Fails(f"INVALID_FUNCTION_ARGUMENT: second argument of {name}_n must be positive")
    if n > _MAX_N:
        raise Fails(
            f"INVALID_FUNCTION_ARGUMENT: second argument of {name}_n must be less than or "
            f"equal to {_MAX_N}; found {n}"
        )
    order = "false" if descending else "true"
    out = spark(
        f"CASE WHEN count(_0) = 0 THEN NULL "
        f"ELSE slice(sort_array(collect_list(_0), {order}), 1, {n}) END",
        node.this,
    )
    return _of_types(out, "array", node.this)


@rewrites(exp.Max, "max")
def _max(node: exp.Expression) -> exp.Expression:
    return _top_n(node, "max", True)


@rewrites(exp.Min, "min")
def _min(node: exp.Expression) -> exp.Expression:
    return _top_n(node, "min", False)


# ---- maps of a group: map_agg, histogram, multimap_agg ------------------------------------
# Trino skips a row whose key is NULL; an empty group is NULL. map_agg keeps one value of a
# key seen twice (which one is not stated: here the first collected).
_PAIRS = "filter(collect_list(named_struct('k', _0, 'v', _1)), athena_e -> athena_e.k IS NOT NULL)"


@rewrites("map_agg", "map_agg")
def map_agg(node: exp.Expression) -> exp.Expression:
    key, value = _args(node, 2)
    first = (
        f"map_from_entries(filter({_PAIRS}, (athena_e, athena_i) -> NOT array_contains("
        f"slice(transform({_PAIRS}, athena_p -> athena_p.k), 1, athena_i), athena_e.k)))"
    )
    out = spark(f"CASE WHEN count(_0) = 0 THEN NULL ELSE {first} END", key, value)
    return _of_types(out, "map", key, value)


@rewrites("histogram", "histogram")
def histogram(node: exp.Expression) -> exp.Expression:
    [value] = _args(node, 1)
    text = (
        "CASE WHEN count(_0) = 0 THEN NULL ELSE map_from_arrays("
        "array_distinct(collect_list(_0)), transform(array_distinct(collect_list(_0)), "
        "athena_k -> CAST(size(filter(collect_list(_0), athena_v -> athena_v = athena_k)) AS BIGINT))) END"
    )
    return _of_types(spark(text, value), "map", value, exp.DataType.build("bigint"))


@rewrites("multimap_agg", "multimap_agg")
def multimap_agg(node: exp.Expression) -> exp.Expression:
    key, value = _args(node, 2)
    keys = f"array_distinct(transform({_PAIRS}, athena_p -> athena_p.k))"
    text = (
        f"CASE WHEN count(_0) = 0 THEN NULL ELSE map_from_arrays({keys}, transform({keys}, "
        f"athena_k -> transform(filter({_PAIRS}, athena_p -> athena_p.k = athena_k), athena_p -> athena_p.v))) END"
    )
    kind = type_of(value)
    values = exp.DataType(this=T.ARRAY, expressions=[kind.copy()], nested=True) if kind else None
    return _of_types(spark(text, key, value), "map", key, values)


def _args(node: exp.Expression, count: int) -> list:
    if isinstance(node, exp.Anonymous):
        args = list(node.expressions)
    else:
        args = [node.args[k] for k in node.arg_types if node.args.get(k) is not None]
    if len(args) != count:
        raise Refused(f"{node.sql('athena')} ({count} argument{'s' if count > 1 else ''})")
    return list(args)


# ---- statistics and bits ------------------------------------------------------------------
def _is_double(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this == exp.DataType.Type.DOUBLE


def _real_or_double(kinds: list) -> str:
    """The type Trino resolves a statistic of these argument types to, where it has a
    double and a real signature (DoubleCorrelationAggregation and
    RealCorrelationAggregation, DoubleGeometricMean... and RealGeometricMeanAggregations):
    an integral type, a real and a decimal each coerce to both, and FunctionResolver
    picks the most specific, real; a double argument makes it double."""
    return "double" if any(_is_double(k) for k in kinds) else "real"


@rewrites(exp.Corr, "corr")
def corr(node: exp.Expression) -> exp.Expression:
    """Trino's corr(y, x): covariance / stddev(x) / stddev(y) of the non-NULL pairs, NULL
    unless it is finite (fewer than two pairs, a constant column). Spark's corr computes
    the same online moments; the last digit may differ, as Trino's own does with the order
    its partial states are merged in. Of arguments none of which is a double, Trino's is
    RealCorrelationAggregation's: the values coerced to real, the result a real."""
    y, x = _args(node, 2)
    kinds = [type_of(y), type_of(x)]
    if any(k is None for k in kinds):
        raise Refused(f"{node.sql('athena')} (of values whose types the emulator cannot tell)")
    text = (
        "CASE WHEN isnan(corr(_0, _1)) OR abs(corr(_0, _1)) = CAST('Infinity' AS DOUBLE) "
        "THEN NULL ELSE corr(_0, _1) END"
    )
    guarded = (
        "CASE WHEN count(CASE WHEN _0 IS NOT NULL AND _1 IS NOT NULL THEN 1 END) < 2 "
        "OR var_pop(CASE WHEN _0 IS NOT NULL THEN _1 END) = 0 "
        "OR var_pop(CASE WHEN _1 IS NOT NULL THEN _0 END) = 0 THEN NULL ELSE "
    )
    athena = _real_or_double(kinds)
    value = "CAST(_0 AS DOUBLE)" if athena == "double" else "CAST(CAST(_0 AS FLOAT) AS DOUBLE)"
    yd, xd = (spark(value, v) for v in (y, x))
    out = spark(guarded + text + " END", yd, xd)
    if athena == "real":
        out = spark("CAST(_0 AS FLOAT)", out)
    return typed(out, athena)


@rewrites("every", "every")
def every(node: exp.Expression) -> exp.Expression:
    """Trino's alias of bool_and."""
    [value] = _args(node, 1)
    return typed(spark("bool_and(_0)", value), "boolean")


@rewrites("geometric_mean", "geometric_mean")
def geometric_mean(node: exp.Expression) -> exp.Expression:
    """Trino's exp(sum(ln(x)) / count(x)) with Java's Math.log: a negative (or NaN) value
    makes it NaN, a zero 0.0 (NaN with +Infinity too). Spark's ln of x <= 0 is NULL, so
    those cases are spelled out. Of an integral type and double it is a double
    (GeometricMeanAggregations); of a real or a decimal (which Trino coerces to real, the
    most specific of its signatures) RealGeometricMeanAggregations': the logarithms of
    the real values, the result cast to real."""
    [value] = _args(node, 1)
    kind = type_of(value)
    if not (is_integral(kind) or is_double(kind) or is_decimal(kind)):
        raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    real = not is_integral(kind) and _real_or_double([kind]) == "real"
    text = (
        "CASE WHEN count(_0) = 0 THEN NULL "
        "WHEN count_if(_0 < 0 OR isnan(_0)) > 0 THEN CAST('NaN' AS DOUBLE) "
        "WHEN count_if(_0 = 0) > 0 THEN CASE WHEN count_if(_0 = CAST('Infinity' AS DOUBLE)) > 0 "
        "THEN CAST('NaN' AS DOUBLE) ELSE 0.0D END "
        "ELSE exp(sum(ln(_0)) / count(_0)) END"
    )
    cast = "CAST(CAST(_0 AS FLOAT) AS DOUBLE)" if real else "CAST(_0 AS DOUBLE)"
    out = spark(text, spark(cast, value))
    if real:
        return typed(spark("CAST(_0 AS FLOAT)", out), "real")
    return typed(out, "double")


for _cls, _name, _spark in (
    (exp.BitwiseAndAgg, "bitwise_and_agg", "bit_and"),
    (exp.BitwiseOrAgg, "bitwise_or_agg", "bit_or"),
):

    def _bits(node: exp.Expression, function: str = _spark) -> exp.Expression:
        [value] = _args(node, 1)
        kind = type_of(value)
        if kind is None:  # Spark's bit_and / bit_or fail a value other than an integer too
            return typed(spark(f"CAST({function}(_0) AS BIGINT)", value), "bigint")
        if not is_integral(kind):
            raise Refused(f"{node.sql('athena')} (of a value other than an integer)")
        return typed(spark(f"{function}(CAST(_0 AS BIGINT))", value), "bigint")

    rewrites(_cls, _name)(_bits)


# ---- approx_percentile ---------------------------------------------------------------------
def _number(node: exp.Expression) -> Optional[float]:
    """A number literal's value (a decimal literal is a cast of its text once typed)."""
    sign = 1.0
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1.0
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal):
        node = node.this
    if not isinstance(node, exp.Literal):
        return None
    try:
        return sign * float(node.this)
    except ValueError:
        return None


@rewrites(exp.ApproxQuantile, "approx_percentile")
def approx_percentile(node: exp.Expression) -> exp.Expression:
    """approx_percentile(x, percentage | ARRAY[percentages]) of bigint, double and real (a
    decimal is read as real, as Trino resolves it): Spark's
    percentile_approx at its accuracy 10000 (a rank error of at most 1/10000 of the rows:
    within Trino's documented approximation, not necessarily the value Athena picks, which
    is no more certain); the weighted and accuracy forms are refused."""
    if any(node.args.get(k) is not None for k in ("accuracy", "weight", "error_tolerance")):
        raise Refused(
            f"{node.sql('athena')} (only approx_percentile(x, percentage) and of an array)"
        )
    value, percentage = _args(node, 2)
    points = percentage.expressions if isinstance(percentage, exp.Array) else [percentage]
    for point in points:
        number = _number(point)
        if number is None:
            raise Refused(f"{node.sql('athena')} (a percentage that is not a number literal)")
        if not 0 <= number <= 1:
            raise Fails("INVALID_FUNCTION_ARGUMENT: Percentile must be between 0 and 1")
    kind = type_of(value)
    if is_integral(kind):
        spark_type, athena_type = "BIGINT", "bigint"
    elif is_double(kind) and kind is not None and kind.this == exp.DataType.Type.DOUBLE:
        spark_type, athena_type = "DOUBLE", "double"
    elif is_double(kind) or is_decimal(kind):  # real (FLOAT: the double case is above)
        # Trino has approx_percentile of bigint, double and real; a decimal coerces to both
        # double and real, and FunctionResolver picks the most specific: real
        spark_type, athena_type = "FLOAT", "real"
    else:
        raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    if isinstance(percentage, exp.Array):
        out = spark(
            f"CAST(percentile_approx(CAST(_0 AS {spark_type}), CAST(_1 AS ARRAY<DOUBLE>), 10000) AS ARRAY<{spark_type}>)",
            value,
            percentage,
        )
        return _named(out, exp.DataType.build(f"array<{athena_type}>"), [])
    out = spark(
        f"CAST(percentile_approx(CAST(_0 AS {spark_type}), CAST(_1 AS DOUBLE), 10000) AS {spark_type})",
        value,
        percentage,
    )
    return typed(out, athena_type)
