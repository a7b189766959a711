"""Row constructors and fields (Trino's ``functions/row.md``): ``ROW(...)`` and ``(a, b)``
as Spark structs with Athena's field names (field0, field1, ...). ``row[i]`` and ``row.*``
are query_shapes.py's and select.py's. Examples: ``tests/conformance/examples/row.yml``.
"""

from __future__ import annotations

from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import spark


def _tuple_check(node: exp.Expression) -> Optional[str]:
    if isinstance(node.parent, exp.Values):
        return None
    return f"the row constructor {node.sql('athena')} (Spark names a row's fields)"


def _unused_tuple_check(node: exp.Expression) -> Optional[str]:
    return _tuple_check(node)


# ---- rows ---------------------------------------------------------------------------------
def _row(values: list) -> exp.Expression:
    """An anonymous row: Athena prints its fields as field0, field1, ..."""
    pairs = ", ".join(f"'field{i}', _{i}" for i in range(len(values)))
    return spark(f"named_struct({pairs})", *values)


@rewrites(exp.Struct, "row")
def row(node: exp.Expression) -> exp.Expression:
    if any(isinstance(e, (exp.PropertyEQ, exp.Alias)) for e in node.expressions):
        raise Refused(f"the row constructor {node.sql('athena')} with field names")
    return _row(list(node.expressions))


@rewrites(exp.Tuple, "row constructor")
def tuple_row(node: exp.Expression) -> exp.Expression:
    if isinstance(node.parent, exp.Values) and len(node.expressions) == 1:
        [only] = node.expressions
        if isinstance(only, exp.Struct):  # Spark takes VALUES (STRUCT(...)) for its fields
            return exp.Tuple(expressions=[_row([only])])
        # another row-typed value (a cast to a row type): query_shapes makes its fields the
        # columns, as Trino's VALUES does (TestValues)
    if isinstance(node.parent, (exp.Values, exp.GroupingSets)):  # not a row there
        return node
    group = node.parent
    if isinstance(group, exp.Group) and node in group.expressions:
        # GROUP BY (a, b): Trino groups by a and b (Spark would by one row value)
        flat: list = []
        for item in group.expressions:
            flat.extend(item.expressions if item is node else [item])
        group.set("expressions", flat)
        return node
    return _row(list(node.expressions))


same(exp.ColumnDef, "row field type")  # the named fields of row(a integer, ...)
