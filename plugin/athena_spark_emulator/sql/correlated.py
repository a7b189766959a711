"""Subqueries whose select list reads the outer query's columns (``SELECT (SELECT t.* FROM
(VALUES 0)) FROM t``, ``EXISTS (SELECT t.* ...)``): the ones Trino runs in forms Spark runs,
the others failing as Trino's do. Pure: sqlglot only (functions/select.py calls it)."""

from __future__ import annotations

from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused

#: Trino's message where it cannot decorrelate a subquery (SubqueryPlanner, PlanOptimizers)
UNSUPPORTED = "Given correlated subquery is not supported"


def _relations(select: exp.Select) -> set:
    source = select.args.get("from_") or select.args.get("from")
    found = [source.this] if source is not None else []
    found += [j.this for j in select.args.get("joins") or []]
    return {str(r.alias_or_name).lower() for r in found if r.alias_or_name}


def _reads_outer(select: exp.Select) -> bool:
    """Whether a projection of ``select`` names a relation its own FROM does not have."""
    own = _relations(select)
    for projection in select.expressions:
        for column in projection.find_all(exp.Column):
            if column.table and column.table.lower() not in own:
                return True
    return False


def _one_values_row(select: exp.Select) -> bool:
    source = select.args.get("from_") or select.args.get("from")
    values = source.this if source is not None else None
    return (
        isinstance(values, exp.Values)
        and len(values.expressions) == 1
        and not select.args.get("joins")
    )


def outer_projection(select: exp.Select) -> None:
    """``select`` (in place) when it is a subquery whose select list reads the outer row.

    - In ``EXISTS (...)`` the select list is not read: it becomes ``1`` (Spark refuses an
      outer column there: CORRELATED_REFERENCE).
    - As a value, Trino decorrelates it only over one row of VALUES, with no WHERE other
      than TRUE (TestSelectAll: a filter or a second row fails with "Given correlated
      subquery is not supported"); its LIMIT n keeps the row, LIMIT 0 none (NULL), which
      Spark runs as no LIMIT and WHERE FALSE (Spark refuses an outer column under a LIMIT).
      The others are refused with Trino's reason, unless aggregated (one row)."""
    parent = select.parent
    if not _reads_outer(select):
        return
    if isinstance(parent, exp.Exists):
        select.set("expressions", [exp.Literal.number(1)])
        return
    if not isinstance(parent, exp.Subquery) or isinstance(parent.parent, (exp.From, exp.Join)):
        return
    if select.args.get("group") or select.find(exp.AggFunc):
        return
    where = select.args.get("where")
    limit: Optional[exp.Expression] = select.args.get("limit")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if (
        not _one_values_row(select)
        or (where is not None and where.this != exp.true())
        or (limit is not None and not (isinstance(count, exp.Literal) and count.is_int))
        or select.args.get("offset")
    ):
        raise Refused(
            f"the subquery ({select.sql('athena')}) reading the outer query in its select list",
            f"Athena fails it: {UNSUPPORTED} (Trino decorrelates it over one row of VALUES only)",
        )
    if limit is not None:
        select.set("limit", None)
        if isinstance(count, exp.Literal) and int(count.this) == 0:
            select.set("where", exp.Where(this=exp.false()))
