"""Array functions and operators (Trino's ``functions/array.md``): the subscript operator,
cardinality, contains, array_join, the lambda functions (filter, transform, reduce,
any_match ...), combinations, trim_array, ngrams, array_histogram, dot_product,
euclidean_distance, zip and the ones Spark runs as sqlglot renders them. Examples:
``tests/conformance/examples/array.yml``.
"""

from __future__ import annotations

import json
import math
from typing import Any, List, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.comparison import (
    element_type,
    equal_form,
    known_type,
    merged_type,
    named_as,
    named_type,
    not_supported,
    row_field,
    row_fields,
    type_text,
    unwrapped,
    value_type,
)
from athena_spark_emulator.sql.functions.conversion import double_text
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


def _joined(texts: List[Optional[str]], separator: str, null_text: Optional[str]) -> str:
    """ArrayJoin's text: the elements' texts between separators, a NULL one as
    ``null_text`` (left out when there is none)."""
    kept = [t if t is not None else null_text for t in texts]
    return separator.join(t for t in kept if t is not None)


@udf("join_doubles", "string")
def join_doubles(
    values: Optional[list], separator: Optional[str], null_text: Optional[str]
) -> Optional[str]:
    """array_join of doubles: each as CAST(double AS varchar) writes it (conversion.double_text)."""
    if values is None or separator is None:
        return None
    return _joined([double_text(v) for v in values], separator, null_text)


def _json_text(text: Optional[str]) -> Optional[str]:
    """CAST(json AS varchar) (Trino's JsonOperators.castToVarchar): a string's value, a
    number's or boolean's text, NULL for null; an array or object fails."""
    if text is None:
        return None
    value = json.loads(text)
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise AthenaError(f"INVALID_CAST_ARGUMENT: Cannot cast JSON '{text}' to varchar")
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else text.strip()


@udf("join_json", "string")
def join_json(
    values: Optional[list], separator: Optional[str], null_text: Optional[str]
) -> Optional[str]:
    """array_join of JSON values: each as CAST(json AS varchar) gives it."""
    if values is None or separator is None:
        return None
    return _joined([_json_text(v) for v in values], separator, null_text)


@rewrites(exp.ArrayToString, "array_join")
def array_join(node: exp.Expression) -> exp.Expression:
    """Trino's array_join (ArrayJoin) casts each element to varchar: a double's text is
    '2.1E0', a JSON string's its value (Spark's array_join writes 2.1 and '"a"')."""
    null = node.args.get("null")
    element = element_type(node.this)
    if isinstance(element, exp.DataType) and element.this in (T.DOUBLE, T.JSON):
        name = "join_doubles" if element.this == T.DOUBLE else "join_json"
        joined = udf_call(
            name, node.this, node.expression, null if null is not None else exp.Null()
        )
        return named_as(joined, "varchar")
    if isinstance(element, exp.DataType) and element.this == T.FLOAT:
        raise Refused(f"{node.sql('athena')} (array_join of reals: Trino's text of a real)")
    if null is not None:
        return spark("array_join(_0, _1, _2)", node.this, node.expression, null)
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
    (exp.Reduce, "reduce"),
    (exp.ArrayDistinct, "array_distinct"),
    (exp.ArraySlice, "slice"),
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


@rewrites(exp.ArrayIntersect, "array_intersect")
def array_intersect(node: exp.Expression) -> exp.Expression:
    """Trino's array_intersect (ArrayIntersectFunction) walks the longer array (the first
    when they are as long) and keeps, once each, its elements the other holds: in the
    longer one's order. Spark's keeps the first array's order."""
    if len(node.expressions) != 2:
        raise Refused(f"{node.sql('athena')} (array_intersect of two arrays)")
    out = spark(
        "CASE WHEN size(_0) < size(_1) THEN array_intersect(_1, _0) "
        "ELSE array_intersect(_0, _1) END",
        *node.expressions,
    )
    # array(E) of the arrays' common element type (Trino coerces both to it: an integer and a
    # double array intersect as doubles, TestArrayOperators), which Spark's result has too
    element = merged_type([element_type(a) for a in node.expressions])
    name = type_text(element) if element is not None else None
    return named_as(out, f"array({name})") if name else out


@rewrites(exp.ArraySort, "array_sort")
def array_sort(node: exp.Expression) -> exp.Expression:
    """Trino's array_sort(array, comparator) (ArraySortComparatorFunction.comparatorResult)
    fails 'Lambda comparator must return either -1, 0, or 1' for any other result, NULL
    too; Spark's takes any number's sign."""
    comparator = node.expression
    if isinstance(comparator, exp.Lambda):
        comparator.set(
            "this",
            spark(
                "CASE WHEN _0 IN (-1, 0, 1) THEN _0 ELSE "
                "raise_error('Lambda comparator must return either -1, 0, or 1') END",
                comparator.this,
            ),
        )
    return node


# ---- more arrays -----------------------------------------------------------------------------
@rewrites(exp.Flatten, "flatten")
def flatten(node: exp.Expression) -> exp.Expression:
    """Trino's flatten(array(array(T))) (ArrayFlattenFunction) leaves NULL inner arrays
    out; Spark's flatten is NULL when one is."""
    inner = element_type(node.this)  # array(T) of array(array(T)): flatten's own type
    name = type_text(inner) if inner is not None and inner.this == T.ARRAY else None
    node.set("this", spark("filter(_0, athena_a -> athena_a IS NOT NULL)", node.this))
    return named_as(node, name) if name else node  # still a flatten: its type as before


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


# Trino's block sizes (io.trino.spi.block): a value's bytes plus 4 (offset) and 1 (null flag)
_FIXED_BYTES = {
    T.BOOLEAN: 2,
    T.TINYINT: 2,
    T.SMALLINT: 3,
    T.INT: 5,
    T.FLOAT: 5,
    T.DATE: 5,
    T.BIGINT: 9,
    T.DOUBLE: 9,
}
_TEXTS = (T.VARCHAR, T.TEXT, T.CHAR, T.VARBINARY, T.BINARY)


def _block_bytes(value: exp.Expression, kind: Optional[exp.DataType]) -> Optional[exp.Expression]:
    """The bytes Trino's block builder holds for one ``value`` of ``kind`` (RepeatFunction's
    checkMaxSize reads them): a varchar its UTF-8 bytes + 5 (VariableWidthBlockBuilder), an
    array 5 + its elements' (ArrayBlockBuilder; fixed-width elements 1 + their width). None
    where the emulator does not model them (rows, maps, arrays of those)."""
    if kind is None:
        return None
    if kind.this in _TEXTS:
        return spark("octet_length(_0) + 5", value)
    if kind.this == T.ARRAY and kind.expressions:
        element = kind.expressions[0]
        if element.this in _FIXED_BYTES:
            return spark(f"5 + size(_0) * {_FIXED_BYTES[element.this]}", value)
        if element.this in _TEXTS:
            return spark(
                "5 + size(_0) * 5 + aggregate(_0, 0L, (athena_s, athena_x) -> "
                "athena_s + coalesce(octet_length(athena_x), 0))",
                value,
            )
    return None


@rewrites(exp.Repeat, "repeat")
def _repeat(node: exp.Expression) -> exp.Expression:
    """Trino's repeat(element, count) is an array function (Spark's repeat repeats a
    string): array_repeat, with Trino's bounds on count (RepeatFunction: at most 10,000)
    and, for a varchar or array element, on the result's size ('result of repeat function
    must not take more than 1000000 bytes': one element's bytes at most
    (1000000 + count) / count)."""
    kind = type_of(node.this)
    size = _block_bytes(node.this, kind)
    too_big = (
        ""
        if size is None
        else "WHEN _0 IS NOT NULL AND _1 > 0 AND _2 > (1000000 + _1) DIV _1 THEN "
        "raise_error('result of repeat function must not take more than 1000000 bytes') "
    )
    text = (
        "CASE WHEN _1 > 10000 THEN raise_error('count argument of repeat function must be "
        "less than or equal to 10000') WHEN _1 < 0 THEN raise_error('count argument of repeat "
        f"function must be greater than or equal to 0') {too_big}"
        "ELSE array_repeat(_0, CAST(_1 AS INT)) END"
    )
    out = spark(text, node.this, node.args["times"], *([size] if size is not None else []))
    if kind is not None:
        out.type = exp.DataType.build(f"array<{kind.sql('spark')}>")
    return out


_FLOATING = (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)


def _has_floating(kind: exp.DataType) -> bool:
    return kind.this in _FLOATING or any(
        _has_floating(k) for k in kind.find_all(exp.DataType) if k is not kind
    )


def _unordered_first_key(
    value: exp.Expression, kind: exp.DataType, shape: exp.Expression, depth: int = 0
) -> Optional[exp.Expression]:
    """A Spark value that Spark orders as Trino's COMPARISON_UNORDERED_FIRST orders
    ``value`` (of type ``kind``): each double or real inside an array or row becomes
    (NOT isnan, value), so NaN is below every number. ``shape`` is a value of the same type
    that tells an anonymous row's field names (comparison.row_fields). None: a type the
    emulator cannot order so (a row whose field names it cannot tell, a map)."""
    if kind.this in _FLOATING:
        return spark("named_struct('ordered', NOT isnan(_0), 'value', _0)", value)
    if kind.this == T.ARRAY and kind.expressions:
        element = kind.expressions[0]
        inner_shape = (
            shape.expressions[0] if isinstance(shape, exp.Array) and shape.expressions else shape
        )
        x = exp.column(f"athena_k{depth}")
        inner = _unordered_first_key(x, element, inner_shape, depth + 1)
        return None if inner is None else spark(f"transform(_0, {x.name} -> _1)", value, inner)
    if kind.this == T.STRUCT:
        fields = row_fields(kind, shape)
        if fields is None:
            return None
        pairs = []
        for i, (name, sub) in enumerate(fields):
            key = _unordered_first_key(row_field(value, name), sub, row_field(shape, name), depth)
            if key is None:
                return None
            pairs += [exp.Literal.string(f"f{i}"), key]
        return exp.Anonymous(this="named_struct", expressions=pairs)
    return None if kind.this == T.MAP else value


def _nested_max(array: exp.Expression, element: exp.DataType) -> Optional[exp.Expression]:
    """Trino's array_max of arrays or rows holding doubles or reals (ArrayMaxFunction with
    COMPARISON_UNORDERED_FIRST: NaN orders below every number); Spark orders NaN above
    them. The greatest element by the key of :func:`_unordered_first_key`."""
    shape = unwrapped(array)
    first = shape.expressions[0] if isinstance(shape, exp.Array) and shape.expressions else shape
    key = _unordered_first_key(exp.column("athena_m"), element, first, 1)
    if key is None:
        return None
    return spark(
        "element_at(_0, array_max(transform(_0, (athena_m, athena_i) -> "
        "named_struct('key', _1, 'at', athena_i))).at + 1)",
        array,
        key,
    )


for _cls, _name in ((exp.ArrayMax, "array_max"), (exp.ArrayMin, "array_min")):

    def _array_extreme(node: exp.Expression, name: str = _name) -> exp.Expression:
        """Trino's array_max / array_min: NULL when an element is NULL (Spark skips NULLs);
        of doubles and reals, NaN only when every element is (Trino's doubleGreater /
        doubleLess pass over NaN; Spark orders NaN above everything)."""
        kind = type_of(node.this)
        element = kind.expressions[0] if kind is not None and kind.expressions else None
        if element is None and isinstance(node.this, exp.Array):
            whole = value_type(node.this)
            element = whole.expressions[0] if whole is not None else None
        nested = None
        if (
            name == "array_max"
            and isinstance(element, exp.DataType)
            and element.this in (T.ARRAY, T.STRUCT)
            and _has_floating(element)
        ):
            nested = _nested_max(node.this, element)
            if nested is None:
                raise Refused(
                    f"{node.sql('athena')} (array_max of rows or arrays of doubles: NaN ordering)"
                )
        if isinstance(element, exp.DataType) and element.this in _FLOATING:
            value = f"coalesce({name}(filter(_0, athena_v -> NOT isnan(athena_v))), try_element_at(_0, 1))"
        elif nested is not None:
            value = "_1"
        else:  # an array of values whose type the emulator cannot tell: Spark's ordering
            value = f"{name}(_0)"
        out = spark(
            f"CASE WHEN exists(_0, athena_v -> athena_v IS NULL) THEN NULL ELSE {value} END",
            node.this,
            *([nested] if nested is not None else []),
        )
        if isinstance(element, exp.DataType):
            out.type = element
            text = type_text(element) if nested is not None else None
            if text:
                named_as(out, text)
        return out

    rewrites(_cls, _name)(_array_extreme)


# ---- contains, array_position, array_remove of arrays and rows ------------------------------
def _element_equal(node: exp.Expression, name: str) -> Optional[exp.Expression]:
    """Trino's = of each element ``athena_c`` of the array ``node.this`` and the value
    ``node.expression``, where the elements are arrays or rows (Spark's = holds their NULL
    elements equal: Trino's is indeterminate, comparison.equal_form). None: elements of
    other types, whose Spark = is Trino's here."""
    array, value = node.this, node.expression
    kind = known_type(array)
    element = kind.expressions[0] if kind is not None and kind.expressions else None
    if not isinstance(element, exp.DataType) or element.this not in (T.ARRAY, T.STRUCT):
        return None
    shape = unwrapped(array)
    first = shape.expressions[0] if isinstance(shape, exp.Array) and shape.expressions else value
    equal = equal_form(
        exp.column("athena_c"),
        named_type(element, first),
        value,
        named_type(known_type(value), value),
        1,
    )
    if equal is None:
        raise Refused(
            f"{node.sql('athena')} ({name} of arrays or rows the emulator cannot compare)"
        )
    return equal


def _codes(array: exp.Expression, equal: exp.Expression, on_null: int) -> exp.Expression:
    """Each element's outcome: 1 equal, 0 unequal, 3 indeterminate, ``on_null`` NULL."""
    return spark(
        f"transform(_0, athena_c -> CASE WHEN athena_c IS NULL THEN {on_null} "
        "ELSE coalesce(CAST(_1 AS INT), 3) END)",
        array,
        equal,
    )


def _with_codes(codes: exp.Expression, text: str, *args: exp.Expression) -> exp.Expression:
    """``text`` (holes ``_0``, ``_1``, ... for ``args``) evaluated with the outcomes
    ``codes`` bound once to ``athena_k`` (a one-element transform: Spark SQL has no let)."""
    return spark(f"element_at(transform(array(_{len(args)}), athena_k -> {text}), 1)", *args, codes)


# the first indeterminate comparison comes before the first equal element
_FIRST_FAILS = (
    "array_position(athena_k, 3) > 0 AND (array_position(athena_k, 1) = 0 "
    "OR array_position(athena_k, 3) < array_position(athena_k, 1))"
)


def _indeterminate(name: str) -> exp.Expression:
    return not_supported(
        f"{name} does not support arrays with elements that are null or contain null"
    )


@rewrites(exp.ArrayContains, "contains")
def contains(node: exp.Expression) -> exp.Expression:
    """Trino's contains (ArrayContains): true at the first equal element; an indeterminate
    comparison before it fails NOT_SUPPORTED; else NULL when an element is NULL."""
    equal = _element_equal(node, "contains")
    if equal is None:
        return node
    found = _with_codes(
        _codes(node.this, equal, 2),
        f"CASE WHEN {_FIRST_FAILS} THEN _0 WHEN array_contains(athena_k, 1) THEN true "
        "WHEN array_contains(athena_k, 2) THEN NULL ELSE false END",
        _indeterminate("contains"),
    )
    return _null_on_null(node, found, "boolean")


def _null_on_null(node: exp.Expression, found: exp.Expression, kind: str) -> exp.Expression:
    """``found`` (of type ``kind``), NULL where the array or the value is NULL (contains,
    array_position)."""
    out = spark(
        "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL ELSE _2 END",
        node.this,
        node.expression,
        found,
    )
    return named_as(out, kind)


@rewrites(exp.ArrayPosition, "array_position")
def array_position(node: exp.Expression) -> exp.Expression:
    """Trino's array_position (ArrayPositionFunction): the first equal element's position
    (NULL elements skipped), 0 for none; an indeterminate comparison before it fails
    NOT_SUPPORTED."""
    equal = _element_equal(node, "array_position")
    if equal is None:
        return node
    found = _with_codes(
        _codes(node.this, equal, 0),
        f"CASE WHEN {_FIRST_FAILS} THEN _0 ELSE array_position(athena_k, 1) END",
        _indeterminate("array_position"),
    )
    return _null_on_null(node, found, "bigint")


@rewrites(exp.ArrayRemove, "array_remove")
def array_remove(node: exp.Expression) -> exp.Expression:
    """Trino's array_remove (ArrayRemoveFunction): the elements unequal to the value (NULL
    elements kept); an indeterminate comparison fails NOT_SUPPORTED."""
    equal = _element_equal(node, "array_remove")
    if equal is None:
        return node
    out = spark(
        "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL WHEN array_contains(_2, 3) THEN _3 "
        "ELSE filter(_0, athena_c -> athena_c IS NULL OR NOT _4) END",
        node.this,
        node.expression,
        _codes(node.this, equal, 0),
        _indeterminate("array_remove"),
        equal,
    )
    element = element_type(node.this)
    name = type_text(element) if element is not None else None
    return named_as(out, f"array({name})") if name else out


# ---- contains_sequence ------------------------------------------------------------------------
_SEQUENCE = (
    "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL WHEN size(_1) = 0 THEN true "
    "WHEN size(_1) > size(_0) THEN false ELSE exists(sequence(0, size(_0) - size(_1)), "
    "athena_i -> forall(sequence(0, size(_1) - 1), athena_j -> "
    "element_at(_0, athena_i + athena_j + 1) <=> element_at(_1, athena_j + 1))) END"
)


def _comparable_elements(node: exp.Expression, arrays: List[exp.Expression]) -> None:
    """Refuse arrays whose elements Spark's ``<=>`` cannot compare as Trino's IS DISTINCT
    FROM does: of unknown type, holding maps (Spark compares none), or of two types Trino
    has no common super type for (its analysis fails; Spark's ANSI cast would try)."""
    kinds = [element_type(a) for a in arrays]
    for array, kind in zip(arrays, kinds):
        empty = isinstance(unwrapped(array), exp.Array) and not unwrapped(array).expressions
        if kind is None and not empty and not isinstance(array, exp.Null):
            raise Refused(f"{node.sql('athena')} (arrays of unknown element type)")
        if kind is not None and any(k.this == T.MAP for k in kind.find_all(exp.DataType)):
            raise Refused(f"{node.sql('athena')} (arrays holding maps)")
    known = [k for k in kinds if k is not None and k.this not in (T.NULL, T.UNKNOWN)]
    if len(known) == 2 and _family(known[0]) != _family(known[1]):
        raise Refused(f"{node.sql('athena')} (arrays of two element types)")


def _family(kind: exp.DataType) -> Any:
    """The kind of values Trino coerces ``kind``'s to a common type with: numbers, text,
    arrays of one family, rows, else the type itself."""
    if kind.this in _NUMBERS:
        return "number"
    if kind.this in (T.VARCHAR, T.TEXT, T.CHAR):
        return "text"
    inner = kind.expressions[0] if kind.this == T.ARRAY and kind.expressions else None
    if isinstance(inner, exp.DataType):
        return ("array", _family(inner))
    return kind.this


_NUMBERS = (T.TINYINT, T.SMALLINT, T.INT, T.BIGINT, T.DECIMAL, T.FLOAT, T.DOUBLE)


@rewrites("contains_sequence", "contains_sequence")
def contains_sequence(node: exp.Expression) -> exp.Expression:
    """Trino's contains_sequence(x, seq) (ArrayContainsSequence): true where ``seq``'s
    elements stand in ``x`` one after the other, each compared with IS DISTINCT FROM (a
    NULL element matches a NULL one, NaN matches NaN: Spark's ``<=>``); an empty ``seq``
    is in every array; NULL when an argument is NULL."""
    if len(node.expressions) != 2:
        raise Refused(f"{node.sql('athena')} (two arrays)")
    if any(isinstance(a, exp.Null) for a in node.expressions):
        return named_as(spark("CAST(NULL AS BOOLEAN)"), "boolean")
    _comparable_elements(node, list(node.expressions))
    return named_as(spark(_SEQUENCE, *node.expressions), "boolean")
