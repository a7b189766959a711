"""Machine learning functions (Trino's ``functions/ml.md``): features. Examples:
``tests/conformance/examples/ml.yml``.
"""

from __future__ import annotations

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import (
    is_decimal,
    is_double,
    is_integral,
    spark,
    type_of,
    typed,
)


# ---- machine learning -------------------------------------------------------------------------
@rewrites("features", "features")
def _features(node: exp.Expression) -> exp.Expression:
    """Trino's features(x, ...): map(bigint, double) of the arguments by position."""
    args = list(node.expressions)
    if not 1 <= len(args) <= 10:
        raise Refused(f"{node.sql('athena')} (1 to 10 arguments)")
    for arg in args:
        kind = type_of(arg)
        if not (is_integral(kind) or is_double(kind) or is_decimal(kind)):
            raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    nulls = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    pairs = ", ".join(f"CAST({i} AS BIGINT), CAST(_{i} AS DOUBLE)" for i in range(len(args)))
    return typed(
        spark(f"CASE WHEN {nulls} THEN NULL ELSE map({pairs}) END", *args), "map(bigint, double)"
    )
