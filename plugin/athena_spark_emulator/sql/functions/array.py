"""Array functions and operators (Trino's ``functions/array.md``): the subscript operator,
cardinality, contains, array_join, the lambda functions (filter, transform, reduce,
any_match ...), combinations, trim_array, ngrams, array_histogram, dot_product,
euclidean_distance, zip and the ones Spark runs as sqlglot renders them. Examples:
``tests/conformance/examples/array.yml``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import SHAPES, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import call, spark, type_of
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

T = exp.DataType.Type
ZERO_BASED = "athena_zero_based_index"  # syntax.ZERO_BASED (functions/ import no syntax.py)
_cls: Any
_name: str


# ---- arrays -----------------------------------------------------------------------------------
same(exp.Array, "array")
same(exp.ArraySize, "cardinality")
same(exp.ArrayContains, "contains")


@rewrites(exp.ArrayToString, "array_join")
def array_join(node: exp.Expression) -> exp.Expression:
    if node.args.get("null") is not None:
        return spark("array_join(_0, _1, _2)", node.this, node.expression, node.args["null"])
    return spark("array_join(_0, _1)", node.this, node.expression)


@rewrites(exp.Bracket, "subscript")
def subscript(node: exp.Expression) -> exp.Expression:
    """``a[i]`` / ``m[k]`` fail out of range or for a missing key (ANSI mode); sqlglot has
    made an array index 0-based for Spark's ``[]``. ``element_at`` is NULL there."""
    [index] = node.expressions
    if node.args.get("safe"):
        return call("try_element_at", node.this, index)
    kind = type_of(node.this)
    # a text key: only a map has that subscript (an array's index, a row's position are numbers)
    text_key = kind is None and isinstance(index, exp.Literal) and index.is_string
    if (kind is not None and kind.this == T.MAP) or text_key:  # Athena fails on a missing key
        return spark(
            "CASE WHEN array_contains(map_keys(_0), _1) THEN element_at(_0, _1) "
            "ELSE raise_error(concat('Key not present in map: ', CAST(_1 AS STRING))) END",
            node.this,
            index,
        )
    if kind is not None and kind.this == T.STRUCT:  # row[2]: its second field
        if node.meta.get(ZERO_BASED):  # syntax.ZERO_BASED: the parser took the row for an array
            node = node.copy()
            node.set("expressions", [exp.Literal.number(int(index.this) + 1)])
            node.meta.pop(ZERO_BASED)
        return SHAPES["row_subscript"](node, kind)
    if (
        (kind is None or kind.this != T.ARRAY)
        and not isinstance(node.this, exp.Array)
        and not node.this.meta.get("athena_array")  # a lambda's array argument
    ):
        raise Refused(
            f"the subscript {node.sql('athena')} (of a value whose type the emulator cannot tell)"
        )
    return node


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.ArrayFilter, "filter"),
    (exp.Transform, "transform"),
    (exp.ArraySort, "array_sort"),
    (exp.Reduce, "reduce"),
    (exp.ArrayDistinct, "array_distinct"),
    (exp.ArrayPosition, "array_position"),
    (exp.ArrayRemove, "array_remove"),
    (exp.ArraySlice, "slice"),
    (exp.ArrayIntersect, "array_intersect"),
    (exp.ArrayExcept, "array_except"),
):
    same(_cls, _name)

for _name in (
    "zip_with",
    "array_union",
    "arrays_overlap",
):
    same(_name, _name)


@rewrites("zip", "zip")
def zip_(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused("zip of more than two arrays")
    return spark(
        "zip_with(_0, _1, (x, y) -> named_struct('field0', x, 'field1', y))", *node.expressions
    )


# ---- more arrays -----------------------------------------------------------------------------
@rewrites(exp.Flatten, "flatten")
def flatten(node: exp.Expression) -> exp.Expression:
    """Trino's flatten(array(array(T))) (ArrayFlattenFunction) leaves NULL inner arrays
    out; Spark's flatten is NULL when one is."""
    node.set("this", spark("filter(_0, athena_a -> athena_a IS NOT NULL)", node.this))
    return node  # still a flatten: its type as before


MAX_SEQUENCE = 10000  # Trino's SequenceFunction.MAX_RESULT_ENTRIES


@rewrites(exp.GenerateSeries, "sequence")
def sequence(node: exp.Expression) -> exp.Expression:
    """Trino's sequence(start, stop[, step]) (SequenceFunction): Spark's sequence, but a
    result of more than 10,000 entries fails ('result of sequence function must not have
    more than 10000 entries', checkMaxEntry)."""
    return spark(
        "CASE WHEN size(_0) > 10000 THEN raise_error("
        f"'result of sequence function must not have more than {MAX_SEQUENCE} entries') "
        "ELSE _0 END",
        node,
    )


@rewrites("trim_array", "trim_array")
def trim_array(node: exp.Expression) -> exp.Expression:
    """Trino's trim_array(array, n) (ArrayTrimFunction): the array without its last n
    elements; n below 0 fails 'size must not be negative: n', n past the array's
    cardinality 'size must not exceed array cardinality c: n'."""
    array, size = node.expressions
    return spark(
        "CASE WHEN _1 < 0 THEN raise_error(concat('size must not be negative: ', _1)) "
        "WHEN _1 > size(_0) THEN raise_error(concat('size must not exceed array cardinality ', "
        "size(_0), ': ', _1)) ELSE slice(_0, 1, size(_0) - _1) END",
        array,
        exp.paren(size.copy()),
    )


@rewrites("ngrams", "ngrams")
def ngrams(node: exp.Expression) -> exp.Expression:
    """Trino's ngrams(array, n) (ArrayNgramsFunction): n below 1 fails 'N must be
    positive'; an array no longer than n is its one n-gram."""
    return spark(
        "CASE WHEN _1 <= 0 THEN raise_error('N must be positive') "
        "WHEN size(_0) <= _1 THEN array(_0) "
        "ELSE transform(sequence(1, size(_0) - _1 + 1), i -> slice(_0, i, _1)) END",
        *[exp.paren(a.copy()) for a in node.expressions],  # n an expression: x.n + 2
    )


@rewrites("array_histogram", "array_histogram")
def array_histogram(node: exp.Expression) -> exp.Expression:
    return spark(
        "map_from_entries(transform(array_distinct(filter(_0, x -> x IS NOT NULL)), "
        "x -> struct(x, CAST(size(filter(_0, y -> y = x)) AS BIGINT))))",
        *node.expressions,
    )


def _arrays_of_numbers(node: exp.Expression) -> None:
    for arg in node.expressions:
        kind = type_of(arg)
        if kind is None or kind.this != T.ARRAY:
            raise Refused(f"{node.sql('athena')} (arrays only)")


_DOT = "aggregate(zip_with(_0, _1, (x, y) -> CAST(x AS DOUBLE) * CAST(y AS DOUBLE)), 0D, (s, v) -> s + v)"
_NORM = "sqrt(aggregate(transform(_{i}, x -> CAST(x AS DOUBLE) * CAST(x AS DOUBLE)), 0D, (s, v) -> s + v))"


@rewrites("dot_product", "dot_product")
def dot_product_(node: exp.Expression) -> exp.Expression:
    _arrays_of_numbers(node)
    return spark(_DOT, *node.expressions)


@rewrites("euclidean_distance", "euclidean_distance")
def euclidean_distance_(node: exp.Expression) -> exp.Expression:
    _arrays_of_numbers(node)
    return spark(
        "sqrt(aggregate(zip_with(_0, _1, (x, y) -> (CAST(x AS DOUBLE) - CAST(y AS DOUBLE)) * "
        "(CAST(x AS DOUBLE) - CAST(y AS DOUBLE))), 0D, (s, v) -> s + v))",
        *node.expressions,
    )


@rewrites("any_match", "any_match")
def any_match(node: exp.Expression) -> exp.Expression:
    return call("exists", *node.expressions)


@rewrites("all_match", "all_match")
def all_match(node: exp.Expression) -> exp.Expression:
    return call("forall", *node.expressions)


@rewrites("none_match", "none_match")
def none_match(node: exp.Expression) -> exp.Expression:
    return exp.Not(this=call("exists", *node.expressions))


MAX_COMBINATION_LENGTH = 5
MAX_RESULT_ELEMENTS = 100_000


@udf("combination_indices", "array<array<int>>")
def combination_indices(length: Optional[int], size: Optional[int]) -> Optional[list]:
    """The 0-based positions of Trino's combinations(array, size) for an array of ``length``,
    in Trino's order: the first position moves fastest ([0, 1], [0, 2], [1, 2], [0, 3], ...)."""
    if length is None or size is None:
        return None
    if size < 0:
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: combination size must not be negative: {size}"
        )
    if size > MAX_COMBINATION_LENGTH:
        raise AthenaError(
            "INVALID_FUNCTION_ARGUMENT: combination size must not exceed "
            f"{MAX_COMBINATION_LENGTH}: {size}"
        )
    if size > length:
        return []
    if math.comb(length, size) * size > MAX_RESULT_ELEMENTS:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: combinations exceed max size")
    combination = [*range(size), length]  # the last one a sentinel
    found = []
    while True:
        found.append(combination[:size])
        for i in range(size):
            if combination[i] + 1 < combination[i + 1]:
                combination[i] += 1
                combination[:i] = range(i)
                break
        else:
            return found


@rewrites("combinations", "combinations")
def combinations(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(f"{node.sql('athena')} (combinations takes an array and a size)")
    array, size = node.expressions
    positions = udf_call("combination_indices", spark("size(_0)", array), size)
    return spark("transform(_0, c -> transform(c, i -> _1[i]))", positions, array)


@rewrites(exp.ArrayFirst, "array_first")
def array_first(node: exp.Expression) -> exp.Expression:
    """Trino's array_first: the first element, NULL for an empty array."""
    return call("try_element_at", node.this, exp.Literal.number(1))


@rewrites(exp.ArrayLast, "array_last")
def array_last(node: exp.Expression) -> exp.Expression:
    """Trino's array_last: the last element, NULL for an empty array."""
    return call("try_element_at", node.this, exp.Literal.number(-1))


def _numbers(values: list, name: str) -> list:
    for value in values:
        if value is None:
            raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: {name}: array elements must not be null")
    return [float(v) for v in values]


def _same_length(left: list, right: list, name: str) -> None:
    if len(left) != len(right):
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: {name}: the arrays must have the same length"
        )


@udf("dot_product", "double")
def dot_product(left: Optional[list], right: Optional[list]) -> Optional[float]:
    """Trino's dot_product of two arrays of numbers (a double)."""
    if left is None or right is None:
        return None
    _same_length(left, right, "dot_product")
    total = 0.0
    for x, y in zip(_numbers(left, "dot_product"), _numbers(right, "dot_product")):
        total += x * y
    return total


@udf("euclidean_distance", "double")
def euclidean_distance(left: Optional[list], right: Optional[list]) -> Optional[float]:
    """Trino's euclidean_distance of two arrays of numbers (a double)."""
    if left is None or right is None:
        return None
    name = "euclidean_distance"
    _same_length(left, right, name)
    total = 0.0
    for x, y in zip(_numbers(left, name), _numbers(right, name)):
        total += (x - y) * (x - y)
    return math.sqrt(total)


@rewrites(exp.DotProduct, "dot_product")
def _dot_product(node: exp.Expression) -> exp.Expression:
    return udf_call("dot_product", node.this, node.expression)


@rewrites(exp.EuclideanDistance, "euclidean_distance")
def _euclidean_distance(node: exp.Expression) -> exp.Expression:
    return udf_call("euclidean_distance", node.this, node.expression)


@rewrites(exp.Repeat, "repeat")
def _repeat(node: exp.Expression) -> exp.Expression:
    """Trino's repeat(element, count) is an array function (Spark's repeat repeats a
    string): array_repeat, with Trino's bounds on count (its texts)."""
    text = (
        "CASE WHEN _1 > 10000 THEN raise_error('count argument of repeat function must be "
        "less than or equal to 10000') WHEN _1 < 0 THEN raise_error('count argument of repeat "
        "function must be greater than or equal to 0') ELSE array_repeat(_0, CAST(_1 AS INT)) END"
    )
    out = spark(text, node.this, node.args["times"])
    kind = type_of(node.this)
    if kind is not None:
        out.type = exp.DataType.build(f"array<{kind.sql('spark')}>")
    return out


_FLOATING = (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)

for _cls, _name in ((exp.ArrayMax, "array_max"), (exp.ArrayMin, "array_min")):

    def _array_extreme(node: exp.Expression, name: str = _name) -> exp.Expression:
        """Trino's array_max / array_min: NULL when an element is NULL (Spark skips NULLs);
        of doubles and reals, NaN only when every element is (Trino's doubleGreater /
        doubleLess pass over NaN; Spark orders NaN above everything)."""
        kind = type_of(node.this)
        element = kind.expressions[0] if kind is not None and kind.expressions else None
        if element is None and isinstance(node.this, exp.Array):
            kinds = [type_of(e) for e in node.this.expressions]
            doubles = [k for k in kinds if k is not None and k.this in _FLOATING]
            element = doubles[0] if doubles else None
        if isinstance(element, exp.DataType) and element.this in _FLOATING:
            value = f"coalesce({name}(filter(_0, athena_v -> NOT isnan(athena_v))), try_element_at(_0, 1))"
        else:  # an array of values whose type the emulator cannot tell: Spark's ordering
            value = f"{name}(_0)"
        out = spark(
            f"CASE WHEN exists(_0, athena_v -> athena_v IS NULL) THEN NULL ELSE {value} END",
            node.this,
        )
        if isinstance(element, exp.DataType):
            out.type = element
        return out

    rewrites(_cls, _name)(_array_extreme)
