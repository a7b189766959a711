"""Mathematical functions and operators (Trino's ``functions/math.md``): ``+ - * / %``
with Trino's typing (integer division truncates, decimals keep their scale), abs, ceil,
floor, round, sign, log, the trigonometric and floating point functions,
cosine_similarity/cosine_distance, truncate, width_bucket, from_base/to_base. Examples: ``tests/conformance/examples/math.yml``.
"""

from __future__ import annotations

import math
import re
from typing import Any, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.array import _DOT, _NORM, _arrays_of_numbers
from athena_spark_emulator.sql.functions.table import Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    arithmetic_type,
    decimal_parts,
    is_date,
    is_decimal,
    is_double,
    is_integral,
    literal_int,
    spark,
    type_of,
    typed,
    wider_integral,
)
from athena_spark_emulator.sql.udfs import ERROR_END, ERROR_MARK, AthenaError, udf, udf_call

T = exp.DataType.Type
_cls: Any
_name: str


# ---- operators ----------------------------------------------------------------
for _cls, _name in (
    (exp.Neg, "unary -"),
    (exp.Mul, "*"),
    (exp.Mod, "%"),
):
    same(_cls, _name)

_TIME_OF_DAY_MILLIS = {"HOUR": 3_600_000, "MINUTE": 60_000, "SECOND": 1000}


def _time_of_day_interval(node: exp.Expression) -> Optional[Tuple[Optional[int]]]:
    """(its milliseconds,) of an interval of hours, minutes or seconds ((None,): its amount
    is no integer literal); None: another value."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    unit = node.args.get("unit") if isinstance(node, exp.Interval) else None
    millis = _TIME_OF_DAY_MILLIS.get(unit.name.upper()) if unit is not None else None
    if millis is None:
        return None
    text = node.this.name.strip() if isinstance(node.this, exp.Literal) else ""
    return (int(text) * millis if re.fullmatch(r"-?\d+", text) else None,)


def _date_plus_time_of_day(node: exp.Expression) -> exp.Expression:
    """A date plus or minus an interval of hours, minutes or seconds: Trino's
    DateTimeOperators fail unless the interval is whole days (Spark answers a timestamp;
    whole days given in hours are refused)."""
    pairs = [(node.this, node.expression)]
    if isinstance(node, exp.Add):
        pairs.append((node.expression, node.this))
    for date, interval in pairs:
        found = _time_of_day_interval(interval)
        if found is None or not is_date(type_of(date)):
            continue
        if found[0] is not None and found[0] % 86_400_000 != 0:
            if isinstance(node, exp.Add):
                raise Fails(
                    "INVALID_FUNCTION_ARGUMENT: Cannot add hour, minutes or seconds to a date"
                )
            raise Fails(
                "INVALID_FUNCTION_ARGUMENT: Cannot subtract hour, minutes or seconds from a date"
            )
        raise Refused(f"{node.sql('athena')} (a date and an interval of hours, minutes or seconds)")
    return node


#: Int128's largest value: Trino's long decimals are 128-bit two's complement integers.
_INT128_MAX = 2**127 - 1


def _rescale_checked(operand: exp.Expression, scale: int) -> exp.Expression:
    """``operand`` (a decimal(p,s) or an integer, as decimal(10,0)-like) failing
    NUMERIC_VALUE_OUT_OF_RANGE ("Decimal overflow") where Trino's rescale of it to
    ``scale`` overflows: DecimalOperators.add/subtract rescale the operand of the smaller
    scale with Int128Math.rescale, which throws once |unscaled| * 10^(scale - s) passes
    2^127 - 1 (decimal(38,0) + decimal(38,1) of 1.7015E37 fails, though the sum fits).
    Spark adds at the wider scale without that bound. An operand that cannot pass it
    (p + scale - s <= 38) stays as it is."""
    kind = type_of(operand)
    parts = decimal_parts(kind) if kind is not None else None
    if kind is None or parts is None or parts[0] + scale - parts[1] <= 38:
        return operand
    own = parts[1]
    bound = _INT128_MAX // 10 ** (scale - own)  # the largest unscaled value that rescales
    text = f"{bound // 10**own}.{bound % 10**own:0{own}d}" if own else str(bound)
    failed = exp.Literal.string(
        f"{ERROR_MARK}NUMERIC_VALUE_OUT_OF_RANGE: Decimal overflow{ERROR_END}"
    )
    check = (
        f"CASE WHEN abs(_0) > CAST('{text}' AS DECIMAL(38, {own})) THEN raise_error(_1) ELSE _0 END"
    )
    return typed(spark(check, operand, failed), kind)


def _add_or_subtract(node: exp.Expression) -> exp.Expression:
    """+ and -: a date with a time-of-day interval (:func:`_date_plus_time_of_day`), and
    decimal operands rescaled as Trino's DecimalOperators do (:func:`_rescale_checked`)."""
    node = _date_plus_time_of_day(node)
    result = arithmetic_type(node) if isinstance(node, (exp.Add, exp.Sub)) else None
    if result is None or not is_decimal(result):
        return node
    scale = decimal_parts(result)[1]  # type: ignore[index]
    node.set("this", _rescale_checked(node.this, scale))
    node.set("expression", _rescale_checked(node.expression, scale))
    return node


rewrites(exp.Add, "+")(_add_or_subtract)
rewrites(exp.Sub, "-")(_add_or_subtract)


#: IEEE 754 division, as Java's (DoubleOperators.divide): by zero an infinity of the
#: operands' signs (a -0.0 divisor counts as negative), NaN for 0/0 and NaN/0; Spark's ANSI
#: division fails there (DIVIDE_BY_ZERO).
_DOUBLE_DIVISION = (
    "CASE WHEN CAST(_1 AS DOUBLE) = 0 THEN CAST(_0 AS DOUBLE) * CAST('Infinity' AS DOUBLE) * "
    "CASE WHEN CAST(CAST(_1 AS DOUBLE) AS STRING) LIKE '-%' THEN -1 ELSE 1 END "
    "ELSE CAST(_0 AS DOUBLE) / _1 END"
)


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
        return spark(_DOUBLE_DIVISION, node.this, node.expression)
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
    (exp.Sqrt, "sqrt"),
    (exp.Exp, "exp"),
):
    same(_cls, _name)


def _java_log(function: str, value: exp.Expression) -> exp.Expression:
    """Java's Math.log / log10 as Trino calls them: NaN for a negative number, -Infinity for
    zero (Spark's ln and log10 give NULL for both)."""
    text = (
        "CASE WHEN _0 < 0 THEN CAST('NaN' AS DOUBLE) "
        "WHEN _0 = 0 THEN CAST('-Infinity' AS DOUBLE) "
        f"ELSE {function}(_0) END"
    )
    return typed(spark(text, spark("CAST(_0 AS DOUBLE)", value)), "double")


@rewrites(exp.Ln, "ln")
def _ln(node: exp.Expression) -> exp.Expression:
    return _java_log("ln", node.this)


@rewrites(exp.Log, "log10")
def log(node: exp.Expression) -> exp.Expression:
    base = node.this
    if isinstance(base, exp.Literal) and base.this in ("10", "2"):
        return _java_log(f"log{base.this}", node.expression)
    raise Refused(f"log(b, x) ({node.sql('athena')})")


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.Pow, "power"),
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
    """Trino's sign keeps an integer argument's type; Spark's signum is a double. Of a
    decimal(p,s) it is a decimal(1,0), -1, 0 or 1 (MathFunctions.Sign)."""
    kind = type_of(node.this)
    if is_integral(kind):
        assert kind is not None
        out = exp.Cast(this=spark("signum(_0)", node.this), to=kind)
        out.type = kind
        return out
    if is_double(kind):
        return spark("signum(_0)", node.this)
    if _decimal(kind) is not None:
        return typed(spark("CAST(signum(_0) AS DECIMAL(1, 0))", node.this), "decimal(1,0)")
    raise Refused(
        f"{node.sql('athena')} (sign of a value other than an integer, double or decimal)"
    )


# ---- abs, round and truncate of decimals: MathFunctions' result types ----------------------
def _decimal(kind: Optional[exp.DataType]) -> Optional[tuple]:
    """(precision, scale) of a decimal type (None: another, or one of unknown size)."""
    return decimal_parts(kind) if is_decimal(kind) and kind is not None else None


def _digits(node: exp.Expression) -> int:
    """The literal n of round(x, n) / truncate(x, n) of a decimal (Spark's round takes a
    constant only)."""
    digits = literal_int(node.args["decimals"])
    if digits is None:
        raise Refused(f"{node.sql('athena')} (of a decimal, with n other than an integer literal)")
    return digits


@rewrites(exp.Abs, "abs")
def abs_(node: exp.Expression) -> exp.Expression:
    """abs(decimal(p,s)) is a decimal(p,s) (MathFunctions.Abs); Spark's abs keeps the
    types of its argument as Trino's does. Of others, as sqlglot renders it."""
    kind = type_of(node.this)
    if _decimal(kind) is not None:
        return typed(node, kind)  # type: ignore[arg-type]
    return node


@rewrites(exp.Round, "round")
def round_(node: exp.Expression) -> exp.Expression:
    """round of a decimal(p,s) rounds half up (away from zero), as Spark's round of a
    decimal does, to Trino's types (MathFunctions.Round, RoundN): round(x) is a
    decimal(min(38, p - s + min(1, s)), 0); round(x, n) a decimal(min(38, p + 1), s), 0
    where n is below -(p - s). Of other types, as sqlglot renders it."""
    parts = _decimal(type_of(node.this))
    if parts is None:
        return node
    precision, scale = parts
    if node.args.get("decimals") is None:
        digits = min(38, precision - scale + min(1, scale))
        out = spark(f"CAST(round(_0, 0) AS DECIMAL({digits}, 0))", node.this)
        return typed(out, f"decimal({digits},0)")
    n, digits = _digits(node), min(38, precision + 1)
    if precision - scale + n < 0:
        out = spark(
            f"CASE WHEN _0 IS NULL THEN NULL ELSE CAST(0 AS DECIMAL({digits}, {scale})) END",
            node.this,
        )
    else:
        out = spark(f"CAST(round(_0, {n}) AS DECIMAL({digits}, {scale}))", node.this)
    return typed(out, f"decimal({digits},{scale})")


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


# ---- truncate, width_bucket, from_base / to_base -------------------------------------------
@udf("truncate_double", "double")
def truncate_double(value: Optional[float]) -> Optional[float]:
    """Trino's truncate(double): Math.signum(x) * Math.floor(Math.abs(x)); NaN and the
    infinities unchanged, the sign of zero kept."""
    if value is None or not math.isfinite(value):
        return value
    return math.copysign(float(math.floor(abs(value))), value)


@rewrites(exp.Trunc, "truncate")
def _truncate(node: exp.Expression) -> exp.Expression:
    """truncate(x) of a double (a double) or a decimal(p, s) (a decimal(max(1, p - s), 0));
    truncate(x, n) of a decimal(p, s) drops the digits after the n-th toward zero, a
    decimal(p, s) (MathFunctions.Truncate, TruncateN); truncate(x, n) of a double and
    truncate of a real are refused."""
    value = node.this
    kind = type_of(value)
    parts = _decimal(kind)
    if node.args.get("decimals") is not None:
        if parts is None:
            raise Refused(f"{node.sql('athena')} (truncate(x, n) of other than a decimal)")
        precision, scale = parts
        n = _digits(node)
        text = (
            f"CAST(CASE WHEN _0 < 0 THEN ceil(_0, {n}) ELSE floor(_0, {n}) END "
            f"AS DECIMAL({precision}, {scale}))"
        )
        return typed(spark(text, value), f"decimal({precision},{scale})")
    if is_double(kind) and kind is not None and kind.this == T.DOUBLE:
        return typed(udf_call("truncate_double", value), "double")
    if parts is not None:
        precision, scale = parts
        digits = max(1, precision - scale)
        out = spark(
            f"CAST(CASE WHEN _0 < 0 THEN ceil(_0) ELSE floor(_0) END AS DECIMAL({digits}, 0))",
            value,
        )
        return typed(out, f"decimal({digits},0)")
    raise Refused(f"{node.sql('athena')} (of a value other than a double or decimal)")


@udf("width_bucket", "bigint")
def width_bucket(
    operand: Optional[float],
    bound1: Optional[float],
    bound2: Optional[float],
    count: Optional[int],
) -> Optional[int]:
    """Trino's MathFunctions.widthBucket, its checks and their texts."""
    if operand is None or bound1 is None or bound2 is None or count is None:
        return None
    for failed, text in (
        (count <= 0, "bucketCount must be greater than 0"),
        (math.isnan(operand), "operand must not be NaN"),
        (not math.isfinite(bound1), "first bound must be finite"),
        (not math.isfinite(bound2), "second bound must be finite"),
        (bound1 == bound2, "bounds cannot equal each other"),
    ):
        if failed:
            raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: {text}")
    lower, upper = min(bound1, bound2), max(bound1, bound2)
    if operand < lower:
        result = 0
    elif operand >= upper:
        if count == 2**63 - 1:
            raise AthenaError(
                f"NUMERIC_VALUE_OUT_OF_RANGE: Bucket for value {operand!r} is out of range"
            )
        result = count + 1
    else:
        result = int(float(count) * (operand - lower) / (upper - lower) + 1)
    if bound1 > bound2:
        result = (count - result) + 1
    return result


@rewrites(exp.WidthBucket, "width_bucket")
def _width_bucket(node: exp.Expression) -> exp.Expression:
    bounds = [node.args.get(k) for k in ("min_value", "max_value", "num_buckets")]
    if any(b is None for b in bounds) or node.args.get("threshold") is not None:
        raise Refused(f"{node.sql('athena')} (width_bucket(x, bins))")
    assert bounds[0] is not None and bounds[1] is not None and bounds[2] is not None
    doubles = [spark("CAST(_0 AS DOUBLE)", v) for v in (node.this, bounds[0], bounds[1])]
    count = spark("CAST(_0 AS BIGINT)", bounds[2])
    return typed(udf_call("width_bucket", *doubles, count), "bigint")


_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _radix(radix: int) -> None:
    if not 2 <= radix <= 36:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Radix must be between 2 and 36")


@udf("from_base", "bigint")
def from_base(text: Optional[str], radix: Optional[int]) -> Optional[int]:
    """Java's Long.parseLong(text, radix): an optional sign, then at least one digit of the
    radix (either case), within a bigint."""
    if text is None or radix is None:
        return None
    _radix(radix)
    digits = text[1:] if text[:1] in ("+", "-") else text
    valid = bool(digits) and all(c.lower() in _DIGITS[:radix] for c in digits)
    value = int(text, radix) if valid else None
    if value is None or not -(2**63) <= value < 2**63:
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Not a valid base-{radix} number: {text}")
    return value


@udf("to_base", "string")
def to_base(value: Optional[int], radix: Optional[int]) -> Optional[str]:
    """Java's Long.toString(value, radix): lower-case digits, a leading '-'."""
    if value is None or radix is None:
        return None
    _radix(radix)
    number, out = abs(value), []
    while True:
        number, digit = divmod(number, radix)
        out.append(_DIGITS[digit])
        if number == 0:
            break
    return ("-" if value < 0 else "") + "".join(reversed(out))


@rewrites(exp.FromBase, "from_base")
def _from_base(node: exp.Expression) -> exp.Expression:
    radix = spark("CAST(_0 AS BIGINT)", node.expression)
    return typed(udf_call("from_base", node.this, radix), "bigint")


@rewrites("to_base", "to_base")
def _to_base(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(f"{node.sql('athena')} (two arguments)")
    value, radix = (spark("CAST(_0 AS BIGINT)", a) for a in node.expressions)
    return typed(udf_call("to_base", value, radix), "varchar(64)")
