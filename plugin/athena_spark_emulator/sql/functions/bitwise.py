"""Bitwise functions (Trino's ``functions/bitwise.md``): bitwise_and/or/xor/not, bit_count
and the shifts, with Trino's two's complement of the argument's bits. Examples:
``tests/conformance/examples/bitwise.yml``.
"""

from __future__ import annotations

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import spark, type_of

T = exp.DataType.Type


# ---- bitwise --------------------------------------------------------------------------------
def _bits(node: exp.Expression, value: exp.Expression) -> int:
    kind = type_of(value)
    if kind is not None and kind.this == T.INT:
        return 32
    if kind is not None and kind.this == T.BIGINT:
        return 64
    raise Refused(f"{node.sql('athena')} (an integer or bigint value only)")


@rewrites(exp.BitwiseAnd, "bitwise_and")
def bitwise_and(node: exp.Expression) -> exp.Expression:
    return spark("CAST(_0 AS BIGINT) & CAST(_1 AS BIGINT)", node.this, node.expression)


@rewrites(exp.BitwiseOr, "bitwise_or")
def bitwise_or(node: exp.Expression) -> exp.Expression:
    return spark("CAST(_0 AS BIGINT) | CAST(_1 AS BIGINT)", node.this, node.expression)


@rewrites(exp.BitwiseXor, "bitwise_xor")
def bitwise_xor(node: exp.Expression) -> exp.Expression:
    return spark("CAST(_0 AS BIGINT) ^ CAST(_1 AS BIGINT)", node.this, node.expression)


@rewrites(exp.BitwiseNot, "bitwise_not")
def bitwise_not(node: exp.Expression) -> exp.Expression:
    return spark("~CAST(_0 AS BIGINT)", node.this)


@rewrites("bit_count", "bit_count")
def bit_count(node: exp.Expression) -> exp.Expression:
    value, bits = node.expressions
    if not (isinstance(bits, exp.Literal) and not bits.is_string and 2 <= int(bits.this) <= 64):
        raise Refused(f"{node.sql('athena')} (bits must be a literal from 2 to 64)")
    n = int(bits.this)
    if n == 64:
        return spark("CAST(bit_count(CAST(_0 AS BIGINT)) AS BIGINT)", value)
    low, high = -(2 ** (n - 1)), 2 ** (n - 1) - 1
    return spark(
        f"CASE WHEN CAST(_0 AS BIGINT) < {low} OR CAST(_0 AS BIGINT) > {high} THEN "
        f"raise_error('Number must be representable with the bits specified. "
        f"' || _0 || ' cannot be represented with {n} bits') "
        f"ELSE CAST(bit_count(CAST(_0 AS BIGINT) & {2**n - 1}) AS BIGINT) END",
        value,
    )


def _shift(node: exp.Expression, form: str, past: str) -> exp.Expression:
    value, shift = node.expressions
    bits = _bits(node, value)
    kind = "INT" if bits == 32 else "BIGINT"
    return spark(
        f"CASE WHEN _1 >= {bits} THEN {past} ELSE {form}(CAST(_0 AS {kind}), _1) END",
        value,
        shift,
    )


@rewrites("bitwise_left_shift", "bitwise_left_shift")
def left_shift(node: exp.Expression) -> exp.Expression:
    return _shift(node, "shiftleft", "0")


@rewrites("bitwise_right_shift", "bitwise_right_shift")
def right_shift(node: exp.Expression) -> exp.Expression:
    return _shift(node, "shiftrightunsigned", "0")


@rewrites("bitwise_right_shift_arithmetic", "bitwise_right_shift_arithmetic")
def right_shift_arithmetic(node: exp.Expression) -> exp.Expression:
    return _shift(node, "shiftright", "CASE WHEN _0 >= 0 THEN 0 ELSE -1 END")
