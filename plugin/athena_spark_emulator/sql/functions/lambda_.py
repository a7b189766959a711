"""Lambda expressions (Trino's ``functions/lambda.md``): ``x -> ...`` as Spark's, refused
where Athena fails them (a subquery or an aggregate in the body) and where Spark cannot run
the body (a function the emulator runs in Python). The functions that take a lambda are on
their own pages (array.py, map.py). Examples: ``tests/conformance/examples/lambda.yml``.
"""

from __future__ import annotations

from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Fails, Refused, rewrites
from athena_spark_emulator.sql.udfs import PREFIX, UDFS


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


def _name(identifier: exp.Expression) -> str:
    """The name ``identifier`` refers to as a lambda's parameter ('' for a table's column,
    ``t.x``: a parameter has no table; a lambda's body holds its parameters as identifiers)."""
    parent = identifier.parent
    return "" if isinstance(parent, exp.Column) and parent.table else identifier.name


@rewrites(exp.Lambda, "lambda", _lambda_check)
def lambda_(node: exp.Expression) -> exp.Expression:
    """The lambda as Spark's, its body translated. Spark evaluates no Python UDF inside a
    higher-order function's lambda (its PythonUDF is Unevaluable there: the job fails
    'Cannot evaluate expression'), so a body that calls one of the emulator's Python
    functions (udfs.UDFS) on the lambda's parameters is refused, naming it, before Spark
    runs anything (a call on other values only, Spark evaluates outside the lambda)."""
    parameters = {p.name for p in node.expressions}
    for call in node.this.find_all(exp.Anonymous):
        name = str(call.name)
        uses = {_name(i) for i in call.find_all(exp.Identifier)} & parameters
        if name in UDFS and uses:
            raise Refused(
                f"{name[len(PREFIX) :]} inside a lambda",
                f"the emulator runs it in Python ({name}), and Spark cannot call a Python "
                "function inside the lambda of transform, filter, reduce, map_filter, "
                "transform_keys, transform_values and the like: compute it outside the "
                "lambda (UNNEST the array or map and apply it to the elements)",
            )
    return node
