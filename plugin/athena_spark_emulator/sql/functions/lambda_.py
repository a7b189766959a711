"""Lambda expressions (Trino's ``functions/lambda.md``): ``x -> ...`` as Spark's, refused
where Athena fails them (a subquery or an aggregate in the body). The functions that take
a lambda are on their own pages (array.py, map.py). Examples:
``tests/conformance/examples/lambda.yml``.
"""

from __future__ import annotations

from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Fails, same


def _lambda_check(node: exp.Expression) -> Optional[str]:
    """Athena fails a lambda whose body has a subquery or an aggregate (Spark runs it)."""
    body = node.this
    if body.find(exp.Select, exp.Subquery):
        raise Fails("Lambda expression cannot contain subqueries")
    if body.find(exp.AggFunc, exp.Window):
        raise Fails(
            "Lambda expression cannot contain aggregations, window functions or grouping operations"
        )
    return None


same(exp.Lambda, "lambda", _lambda_check)
