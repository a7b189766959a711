"""Athena's scalar functions that Spark has no form for, each an entry of the function
table (functions.py) with a small implementation (a UDF of udfs.py) or a Spark form.
Registered when the ``athena_spark_emulator.sql`` package is imported (its __init__)."""

from __future__ import annotations

from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions import rewrites
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call


@udf("luhn_check", "boolean")
def luhn_check(digits: Optional[str]) -> Optional[bool]:
    """Trino's luhn_check: whether a string of digits passes the Luhn checksum; a string
    with anything but digits fails."""
    if digits is None:
        return None
    if not digits or not digits.isascii() or not digits.isdigit():
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: Input contains non-digit character: {digits}"
        )
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


@rewrites("luhn_check", "luhn_check")
def _luhn_check(node: exp.Expression) -> exp.Expression:
    return udf_call("luhn_check", *node.expressions)
