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
_BITS = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}
_NAMES = {8: "TINYINT", 16: "SMALLINT", 32: "INT", 64: "BIGINT"}


def _bits(node: exp.Expression, value: exp.Expression) -> int:
    kind = type_of(value)
    if kind is not None and kind.this in _BITS:
        return _BITS[kind.this]
    raise Refused(f"{node.sql('athena')} (an integral value only)")


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


def _shift(node: exp.Expression, form: str, long_form: str) -> exp.Expression:
    """BitwiseFunctions' shifts of a tinyint, smallint, integer or bigint, computed on the
    value as a long (``_0``, ``_1``: the value, the shift; ``{mask}``: the type's bits) and
    given back in the value's type; a shift of 64 or more is 0 (-1 for a negative value's
    arithmetic shift); ``long_form`` that of a bigint."""
    value, shift = node.expressions
    bits = _bits(node, value)
    mask, sign = (1 << bits) - 1, 1 << (bits - 1)
    body = long_form if bits == 64 else form.format(mask=mask, sign=sign)
    return spark(f"CAST(({body}) AS {_NAMES[bits]})", value, shift)


# preserveSign(shifted, mask, signedBit): the low bits, sign-extended
_LEFT = (
    "CASE WHEN _1 >= 64 THEN 0 WHEN shiftleft(CAST(_0 AS BIGINT), _1) & {sign} != 0 "
    "THEN (shiftleft(CAST(_0 AS BIGINT), _1) & {mask}) - {mask} - 1 "
    "ELSE shiftleft(CAST(_0 AS BIGINT), _1) & {mask} END"
)
_RIGHT = (
    "CASE WHEN _1 >= 64 THEN 0 WHEN _1 = 0 THEN CAST(_0 AS BIGINT) "
    "ELSE shiftrightunsigned(CAST(_0 AS BIGINT) & {mask}, _1) END"
)
_ARITHMETIC = (
    "CASE WHEN _1 >= 64 THEN CASE WHEN _0 >= 0 THEN 0 ELSE -1 END "
    "ELSE shiftright(CAST(_0 AS BIGINT), _1) END"
)


@rewrites("bitwise_left_shift", "bitwise_left_shift")
def left_shift(node: exp.Expression) -> exp.Expression:
    return _shift(node, _LEFT, "CASE WHEN _1 >= 64 THEN 0 ELSE shiftleft(_0, _1) END")


@rewrites("bitwise_right_shift", "bitwise_right_shift")
def right_shift(node: exp.Expression) -> exp.Expression:
    return _shift(node, _RIGHT, "CASE WHEN _1 >= 64 THEN 0 ELSE shiftrightunsigned(_0, _1) END")


@rewrites("bitwise_right_shift_arithmetic", "bitwise_right_shift_arithmetic")
def right_shift_arithmetic(node: exp.Expression) -> exp.Expression:
    return _shift(node, _ARITHMETIC, _ARITHMETIC)
