"""Mathematical functions and operators (Trino's ``functions/math.md``): ``+ - * / %``
with Trino's typing (integer division truncates, decimals keep their scale), abs, ceil,
floor, round, sign, log, the trigonometric and floating point functions,
cosine_similarity/cosine_distance. Examples: ``tests/conformance/examples/math.yml``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.array import _DOT, _NORM, _arrays_of_numbers
from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    call,
    decimal_parts,
    is_decimal,
    is_double,
    is_integral,
    spark,
    type_of,
    typed,
    wider_integral,
)
from athena_spark_emulator.sql.udfs import udf, udf_call

T = exp.DataType.Type
_cls: Any
_name: str


# ---- operators ----------------------------------------------------------------
for _cls, _name in (
    (exp.Neg, "unary -"),
    (exp.Add, "+"),
    (exp.Sub, "-"),
    (exp.Mul, "*"),
    (exp.Mod, "%"),
):
    same(_cls, _name)


@rewrites(exp.Div, "/")
def divide(node: exp.Expression) -> exp.Expression:
    """Trino's division: integer operands divide as integers (truncating), decimals as
    decimals with scale max(s1, s2), rounded half up; anything else as doubles."""
    left, right = type_of(node.this), type_of(node.expression)
    if is_integral(left) and is_integral(right):
        kind = wider_integral(left, right)  # type: ignore[arg-type]
        out = spark("CAST(_0 DIV _1 AS BIGINT)", node.this, node.expression)
        assert isinstance(out.this, exp.IntDiv)
        out.set("to", kind)
        out.type = kind
        return out
    if is_double(left) or is_double(right):
        return spark("CAST(_0 AS DOUBLE) / _1", node.this, node.expression)
    dleft = decimal_parts(left) if left is not None else None
    dright = decimal_parts(right) if right is not None else None
    if dleft and dright and (is_decimal(left) or is_decimal(right)):
        (p1, s1), (_p2, s2) = dleft, dright
        scale = max(s1, s2)
        precision = min(38, p1 + s2 + max(0, s2 - s1))
        kind = exp.DataType.build(f"decimal({precision},{scale})")
        out = spark("CAST(_0 / _1 AS DECIMAL(38, 0))", node.this, node.expression)
        out.set("to", kind)
        out.type = kind
        return out
    if left is not None and right is not None and (is_double(left) or is_double(right)):
        return node
    raise Refused(
        f"the division {node.sql('athena')}",
        "the emulator cannot tell its operands' types, and Athena divides integers as "
        "integers and decimals as decimals",
    )


# ---- numbers --------------------------------------------------------------------------------
for _cls, _name in (
    (exp.Abs, "abs"),
    (exp.Sqrt, "sqrt"),
    (exp.Exp, "exp"),
    (exp.Ln, "ln"),
):
    same(_cls, _name)


@rewrites(exp.Log, "log10")
def log(node: exp.Expression) -> exp.Expression:
    base = node.this
    if isinstance(base, exp.Literal) and base.this in ("10", "2"):
        return call(f"log{base.this}", node.expression)
    raise Refused(f"log(b, x) ({node.sql('athena')})")


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.Pow, "power"),
    (exp.Round, "round"),
    (exp.Pi, "pi"),
    (exp.Rand, "random"),
    (exp.Cbrt, "cbrt"),
    (exp.Degrees, "degrees"),
    (exp.Radians, "radians"),
    (exp.IsNan, "is_nan"),
):
    same(_cls, _name)


def _maps(node: exp.Expression) -> bool:
    kinds = [type_of(arg) for arg in node.expressions]
    return all(kind is not None and kind.this == T.MAP for kind in kinds)


@rewrites("cosine_similarity", "cosine_similarity")
def cosine_similarity(node: exp.Expression) -> exp.Expression:
    if _maps(node):
        return _cosine(node, list(node.expressions), False)
    _arrays_of_numbers(node)
    text = f"{_DOT} / ({_NORM.format(i=0)} * {_NORM.format(i=1)})"
    return spark(text, *node.expressions)


@rewrites("cosine_distance", "cosine_distance")
def cosine_distance(node: exp.Expression) -> exp.Expression:
    _arrays_of_numbers(node)
    text = f"1 - {_DOT} / ({_NORM.format(i=0)} * {_NORM.format(i=1)})"
    return spark(text, *node.expressions)


@rewrites(exp.Sign, "sign")
def sign(node: exp.Expression) -> exp.Expression:
    """Trino's sign keeps an integer argument's type; Spark's signum is a double."""
    kind = type_of(node.this)
    if is_integral(kind):
        assert kind is not None
        out = exp.Cast(this=spark("signum(_0)", node.this), to=kind)
        out.type = kind
        return out
    if is_double(kind):
        return spark("signum(_0)", node.this)
    raise Refused(f"{node.sql('athena')} (sign of a value other than an integer or double)")


# ---- math -----------------------------------------------------------------------------------
for _cls, _name in (
    (exp.Cos, "cos"),
    (exp.Sin, "sin"),
    (exp.Tan, "tan"),
    (exp.Acos, "acos"),
    (exp.Asin, "asin"),
    (exp.Atan, "atan"),
    (exp.Atan2, "atan2"),
    (exp.Cosh, "cosh"),
    (exp.Sinh, "sinh"),
    (exp.Tanh, "tanh"),
):

    def _double_function(node: exp.Expression) -> exp.Expression:
        """Java's Math functions of doubles, in Spark as in Trino."""
        return typed(node, "double")

    rewrites(_cls, _name)(_double_function)


@rewrites("nan", "nan")
def _nan(node: exp.Expression) -> exp.Expression:
    return typed(spark("CAST('NaN' AS DOUBLE)"), "double")


@rewrites("infinity", "infinity")
def _infinity(node: exp.Expression) -> exp.Expression:
    return typed(spark("CAST('Infinity' AS DOUBLE)"), "double")


@rewrites("e", "e")
def _e(node: exp.Expression) -> exp.Expression:
    return typed(spark("e()"), "double")


@rewrites("is_finite", "is_finite")
def _is_finite(node: exp.Expression) -> exp.Expression:
    return typed(
        spark(
            "NOT isnan(CAST(_0 AS DOUBLE)) AND abs(CAST(_0 AS DOUBLE)) <> CAST('Infinity' AS DOUBLE)",
            *node.expressions,
        ),
        "boolean",
    )


@rewrites("is_infinite", "is_infinite")
def _is_infinite(node: exp.Expression) -> exp.Expression:
    return typed(
        spark("abs(CAST(_0 AS DOUBLE)) = CAST('Infinity' AS DOUBLE)", *node.expressions), "boolean"
    )


@udf("cosine_similarity_map", "double")
def cosine_similarity_map(left: Optional[dict], right: Optional[dict]) -> Optional[float]:
    """Trino's cosine_similarity of two map(varchar, double): NULL when a value is NULL."""
    if left is None or right is None:
        return None
    norms = []
    for side in (left, right):
        norm = 0.0
        for value in side.values():
            if value is None:
                return None
            norm += value * value
        norms.append(math.sqrt(norm))
    dot = 0.0
    for key, value in left.items():
        if key in right:
            dot += value * right[key]
    try:
        return dot / (norms[0] * norms[1])
    except ZeroDivisionError:
        return math.nan if dot == 0 else math.copysign(math.inf, dot)


def _cosine(node: exp.Expression, args: list, distance: bool) -> exp.Expression:
    kinds = [type_of(a) for a in args]
    if all(k is not None and k.this == exp.DataType.Type.MAP for k in kinds):
        for kind in kinds:
            assert kind is not None
            key = kind.expressions[0] if kind.expressions else None
            if not isinstance(key, exp.DataType) or key.this not in (
                exp.DataType.Type.VARCHAR,
                exp.DataType.Type.TEXT,
            ):
                raise Refused(f"{node.sql('athena')} (maps with varchar keys only)")
        maps = [spark("CAST(_0 AS MAP<STRING, DOUBLE>)", a) for a in args]
        similarity = udf_call("cosine_similarity_map", *maps)
        out = spark("1 - _0", similarity) if distance else similarity
        return typed(out, "double")
    call_node = exp.Anonymous(
        this="cosine_distance" if distance else "cosine_similarity", expressions=args
    )
    rewrite = cosine_distance if distance else cosine_similarity
    return typed(rewrite(call_node), "double")


@rewrites(exp.CosineDistance, "cosine_distance")
def _cosine_distance(node: exp.Expression) -> exp.Expression:
    return _cosine(node, [node.this, node.expression], True)


# ---- ceil and floor: the argument's type kept, as Trino's -------------------------------------
@udf("ceil_double", "double")
def ceil_double(value: Optional[float]) -> Optional[float]:
    """Java's Math.ceil: NaN and the infinities unchanged, -0.5 is -0.0."""
    if value is None or not math.isfinite(value):
        return value
    return math.copysign(float(math.ceil(value)), value)


@udf("floor_double", "double")
def floor_double(value: Optional[float]) -> Optional[float]:
    """Java's Math.floor: NaN and the infinities unchanged, -0.0 stays -0.0."""
    if value is None or not math.isfinite(value):
        return value
    return math.copysign(float(math.floor(value)), value)


def _rounding(node: exp.Expression, name: str) -> exp.Expression:
    if node.args.get("decimals") is not None or node.args.get("to") is not None:
        raise Refused(f"{node.sql('athena')} (with a scale)")
    value = node.this
    kind = type_of(value)
    if is_integral(kind):
        assert kind is not None
        same_type = exp.Cast(this=value, to=kind.copy())
        same_type.type = kind
        return same_type
    if is_double(kind) and kind is not None and kind.this == T.DOUBLE:
        return typed(udf_call(f"{name}_double", value), "double")
    if is_decimal(kind):
        parts = decimal_parts(kind)  # type: ignore[arg-type]
        if parts is not None:
            precision, scale = parts
            out = spark(
                f"CAST({name}(_0) AS DECIMAL({precision - scale + min(scale, 1)}, 0))", value
            )
            return typed(out, f"decimal({precision - scale + min(scale, 1)},0)")
    raise Refused(f"{node.sql('athena')} (of a value other than an integer, double or decimal)")


@rewrites(exp.Ceil, "ceil")
def _ceil(node: exp.Expression) -> exp.Expression:
    return _rounding(node, "ceil")


@rewrites(exp.Floor, "floor")
def _floor(node: exp.Expression) -> exp.Expression:
    return _rounding(node, "floor")
