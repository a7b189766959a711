"""Comparison functions and operators (Trino's ``functions/comparison.md``): ``=``, ``<>``,
``<`` ..., BETWEEN, IS [NOT] NULL, IS [NOT] DISTINCT FROM, IN, LIKE, greatest and least.
Quantified comparisons (ALL/ANY/SOME of a subquery) are query_shapes.py's. Examples:
``tests/conformance/examples/comparison.yml``.
"""

from __future__ import annotations

from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import rewrites, same
from athena_spark_emulator.sql.spark_forms import is_double, spark, type_of, typed

_cls: Any
_name: str
_op: str
_on_nan: str


# ---- operators ----------------------------------------------------------------
def _floating(*nodes: exp.Expression) -> bool:
    return any(is_double(type_of(n)) for n in nodes)


def _char(*nodes: exp.Expression) -> bool:
    """Whether a comparison is of CHAR(n) values: Trino compares char values padded with
    spaces to a common length (CharType; a varchar operand is coerced to char): both are
    right-padded to the longer one's length ('abc' equals 'abc  ', 'abc\\0' is below 'abc ')."""
    for node in nodes:
        kind = type_of(node)
        if kind is not None and kind.this == exp.DataType.Type.CHAR:
            return True
    return False


# Trino's = of arrays (ArrayEqualOperator): false when the sizes or two non-NULL elements
# differ, else NULL when an element of either is NULL (indeterminate), else true. Spark's
# = compares NULL elements as equal. Arrays of arrays, maps or rows keep Spark's (the
# inner comparison would need the same rule).
_ARRAY_EQUAL = (
    "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL WHEN size(_0) <> size(_1) THEN false "
    "WHEN exists(zip_with(_0, _1, (athena_x, athena_y) -> athena_x <> athena_y), "
    "athena_v -> athena_v) THEN false "
    "WHEN exists(_0, athena_x -> athena_x IS NULL) OR exists(_1, athena_x -> athena_x IS NULL) "
    "THEN NULL ELSE true END"
)
_NESTED = (exp.DataType.Type.ARRAY, exp.DataType.Type.MAP, exp.DataType.Type.STRUCT)


def _scalar_arrays(left: exp.Expression, right: exp.Expression) -> bool:
    """Whether both operands are arrays of non-nested elements (their types known)."""
    for node in (left, right):
        kind = type_of(node)
        if kind is None or kind.this != exp.DataType.Type.ARRAY or not kind.expressions:
            return False
        element = kind.expressions[0]
        if not isinstance(element, exp.DataType) or element.this in _NESTED:
            return False
        if element.this == exp.DataType.Type.UNKNOWN or is_double(element):
            return False  # NaN elements: Trino's own rule
    return True


# Trino's comparisons of doubles and reals: NaN is equal to nothing, not even NaN, and
# neither less nor greater than anything (Spark orders NaN above +Infinity and equal to
# itself). Of values whose types the emulator cannot tell, Spark's as they are.
for _cls, _name, _op, _on_nan in (
    (exp.EQ, "=", "=", "false"),
    (exp.NEQ, "<>", "<>", "true"),
    (exp.GT, ">", ">", "false"),
    (exp.GTE, ">=", ">=", "false"),
    (exp.LT, "<", "<", "false"),
    (exp.LTE, "<=", "<=", "false"),
):

    def _compare(node: exp.Expression, op: str = _op, on_nan: str = _on_nan) -> exp.Expression:
        left, right = node.this, node.expression
        if op in ("=", "<>") and _scalar_arrays(left, right):
            # (equal) = true for =, (equal) = false for <>: NULL stays NULL; still an =
            equal = exp.paren(spark(_ARRAY_EQUAL, left, right))
            return exp.EQ(this=equal, expression=exp.Boolean(this=op == "="))
        if _char(left, right):
            padded = "rpad(_0, greatest(length(_0), length(_1)), ' ')"
            other = "rpad(_1, greatest(length(_0), length(_1)), ' ')"
            return typed(spark(f"{padded} {op} {other}", left, right), "boolean")
        if not _floating(left, right):
            return node
        text = (
            "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL "
            f"WHEN isnan(_0) OR isnan(_1) THEN {on_nan} ELSE _0 {op} _1 END"
        )
        return typed(spark(text, left, right), "boolean")

    rewrites(_cls, _name)(_compare)

for _cls, _name in (
    (exp.Is, "is"),
    (exp.Between, "between"),
    (exp.NullSafeEQ, "is not distinct from"),
    (exp.NullSafeNEQ, "is distinct from"),
):
    same(_cls, _name)


def _in_check(node: exp.Expression) -> Optional[str]:
    """Spark answers ``x IN (subquery)`` false where SQL's answer is NULL (x NULL, or no
    match and a NULL in the subquery): the same only as a condition of WHERE / HAVING."""
    if node.args.get("query") is None:
        return None
    parent = node.parent
    if isinstance(parent, exp.Not):
        parent = parent.parent
    while isinstance(parent, (exp.And, exp.Paren)):
        parent = parent.parent
    if isinstance(parent, (exp.Where, exp.Having)):
        return None
    return f"{node.sql('athena')} outside a WHERE condition (Spark answers false for NULL)"


same(exp.In, "in", _in_check)


# ---- comparison / conditional functions -------------------------------------------------------
def _null_if_any(node: exp.Expression, name: str) -> exp.Expression:
    args = [node.this, *node.expressions]
    test = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    holes = ", ".join(f"_{i}" for i in range(len(args)))
    return spark(f"CASE WHEN {test} THEN NULL ELSE {name}({holes}) END", *args)


@rewrites(exp.Greatest, "greatest")
def greatest(node: exp.Expression) -> exp.Expression:
    """Trino's greatest orders NaN first (COMPARISON_UNORDERED_FIRST): NaN only when every
    argument is; Spark's orders it last. least orders it last in both."""
    args = [node.this, *node.expressions]
    if not _floating(*args):
        return _null_if_any(node, "greatest")
    test = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    values = ", ".join(f"nanvl(_{i}, NULL)" for i in range(len(args)))
    text = f"CASE WHEN {test} THEN NULL ELSE coalesce(greatest({values}), _0) END"
    return spark(text, *args)


@rewrites(exp.Least, "least")
def least(node: exp.Expression) -> exp.Expression:
    return _null_if_any(node, "least")


def _like_check(node: exp.Expression) -> Optional[str]:
    r"""Trino's LIKE has no escape character unless ESCAPE names one; Spark's is ``\``."""
    pattern = node.expression
    if isinstance(node.parent, exp.Escape):
        return None
    if isinstance(pattern, exp.Literal) and pattern.is_string and "\\" not in pattern.this:
        return None
    return f"LIKE with a pattern that is not a literal without backslashes ({node.sql('athena')})"


same(exp.Escape, "like ... escape")
same(exp.Like, "like", _like_check)
