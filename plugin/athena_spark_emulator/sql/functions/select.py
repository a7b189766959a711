"""The constructs of a query (Trino's ``sql/select.md``): SELECT, FROM, WITH (RECURSIVE:
query_shapes.py), set operations (CORRESPONDING: query_shapes.py), joins, UNNEST, FETCH
FIRST, identifiers, aliases and ``(row).*``. No semantics of their own beyond the checks
here; GROUPING SETS, CUBE, ROLLUP and the other shapes Spark has no form for are in
query_shapes.py. Examples: ``tests/conformance/examples/select.yml``.
"""

from __future__ import annotations

from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import SHAPES, Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import spark
from athena_spark_emulator.sql.udfs import PREFIX

_cls: Any


# ---- the shape of a query (no semantics of their own) ------------------------------------
for _cls in (
    exp.From,
    exp.Table,
    exp.TableAlias,
    exp.Subquery,
    exp.CTE,
    exp.Where,
    exp.Group,
    exp.Having,
    exp.Order,
    exp.Ordered,
    exp.Limit,
    exp.Offset,
    exp.Distinct,
    exp.Column,
    exp.Star,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Paren,
    exp.Window,
    exp.WindowSpec,
    exp.Var,
    exp.Exists,
    exp.DataTypeParam,
    exp.Interval,
):
    same(_cls, _cls.__name__.lower())


@rewrites(exp.Select, "select")
def select(node: exp.Expression) -> exp.Expression:
    """``SELECT DISTINCT f(x) ... ORDER BY f(x)``: Trino orders by the output column the
    ORDER BY expression repeats (StatementAnalyzer: in a DISTINCT query ORDER BY may only
    use the select list). Spark's plan cannot see ``x`` once the projection is named
    (``_col0``), so each ORDER BY expression that repeats a projection's is that
    projection's name (dbt-athena's batched partition inserts send this)."""
    order = node.args.get("order")
    if not node.args.get("distinct") or order is None:
        return node
    named: dict = {}
    for projection in node.expressions:
        if isinstance(projection, exp.Alias) and not isinstance(projection.this, exp.Column):
            named.setdefault(projection.this.sql("spark"), projection.alias)
    for ordered in order.expressions:
        name = named.get(ordered.this.sql("spark")) if isinstance(ordered, exp.Ordered) else None
        if name:
            ordered.set("this", exp.column(name, quoted=True))
    return node


# ---- VALUES ----------------------------------------------------------------------------------
def _not_foldable(node: exp.Expression) -> bool:
    """Whether Spark cannot evaluate ``node`` while it plans an inline table: a call of the
    emulator's Python UDFs (udfs.py) or a random value."""
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower().startswith(PREFIX) or str(node.name).lower() in (
            "rand",
            "random",
            "uuid",
        )
    return isinstance(node, (exp.Rand, exp.Uuid))


@rewrites(exp.Values, "values")
def values(node: exp.Expression) -> exp.Expression:
    """Trino's ``VALUES`` rows (sql/select.md; its columns the rows' common types, named by
    the alias or ``_col0``, ...). Spark plans an inline table by evaluating each value once
    (its ``ResolveInlineTables`` refuses what it cannot fold: INVALID_INLINE_TABLE), so rows
    holding a UDF call or a random value are rendered as ``SELECT ... UNION ALL SELECT ...``
    with Spark's inline-table column names (col1, col2, ...), which the alias renames as it
    renamed the inline table's; Spark's UNION widens the rows' types as its inline tables do.
    """
    rows = list(node.expressions)
    if not any(_not_foldable(n) for row in rows for n in row.walk()):
        return node
    selects = []
    for row in rows:
        items = row.expressions if isinstance(row, exp.Tuple) else [row]
        selects.append(
            exp.select(*[exp.alias_(v.copy(), f"col{i + 1}") for i, v in enumerate(items)])
        )
    union: exp.Expression = selects[0]
    for select in selects[1:]:
        union = exp.Union(this=union, expression=select, distinct=False)
    alias = node.args.get("alias")
    if isinstance(node.parent, exp.Subquery) and alias is None:
        return union
    return exp.Subquery(this=union, alias=alias.copy() if alias is not None else None)


@rewrites(exp.With, "with")
def with_(node: exp.Expression) -> exp.Expression:
    if node.args.get("recursive"):  # unrolled to Trino's recursion depth (query_shapes)
        return SHAPES["recursive_with"](node)
    return node


def _set_operation_check(node: exp.Expression) -> Optional[str]:
    # Trino's CORRESPONDING (sqlglot: INNER ... BY NAME): query_shapes.corresponding
    corresponding = node.args.get("by_name") and str(node.args.get("kind")).upper() == "INNER"
    for flag in ("by_name", "corresponding", "on", "side", "kind"):
        if node.args.get(flag) and not (corresponding and flag in ("by_name", "kind")):
            return f"{type(node).__name__.upper()} {str(flag).upper()}"
    return None


def _set_operation(node: exp.Expression) -> exp.Expression:
    if node.args.get("by_name"):
        return SHAPES["corresponding"](node)
    return node


for _cls in (exp.Union, exp.Intersect, exp.Except):
    rewrites(_cls, _cls.__name__.lower(), _set_operation_check)(_set_operation)


def _identifier_check(node: exp.Expression) -> Optional[str]:
    if node.args.get("quoted") and not node.this:
        raise Fails("SYNTAX_ERROR: Zero-length delimited identifier not allowed")
    return None


same(exp.Identifier, "identifier", _identifier_check)


def _alias_check(node: exp.Expression) -> Optional[str]:
    """``0o40``, ``0b1001``: sqlglot reads them as ``0 AS o40``; the alias starts right
    where the number ends."""
    value, alias = node.this, node.args.get("alias")
    if isinstance(value, exp.Literal) and not value.is_string and alias is not None:
        end, start = value.meta.get("end") if value._meta else None, None
        if alias._meta:
            start = alias.meta.get("start")
        if end is not None and start is not None and start == end + 1:
            return f"the number literal {value.this}{alias.name}"
    return None


same(exp.Alias, "alias", _alias_check)


def _dot_check(node: exp.Expression) -> Optional[str]:
    if isinstance(node.expression, exp.Star):
        select = node.parent.parent if isinstance(node.parent, exp.Aliases) else node.parent
        if (
            not isinstance(select, exp.Select)
            or len([d for d in select.find_all(exp.Dot) if isinstance(d.expression, exp.Star)]) != 1
            or select.args.get("group")
            or select.find(exp.AggFunc, exp.Window, exp.Explode, exp.Inline)
        ):
            return f"{node.sql('athena')} (the fields of a row as columns)"
    return None


@rewrites(exp.Dot, "row field", _dot_check)
def row_field(node: exp.Expression) -> exp.Expression:
    """``(row).*`` (one projection of a plain SELECT): the row's fields as columns, by
    Spark's inline() of a one-row array (a NULL row gives NULL fields, as Trino's)."""
    if isinstance(node.expression, exp.Star):
        return spark("inline(array(_0))", node.this)
    return node


def _join_check(node: exp.Expression) -> Optional[str]:
    if str(node.args.get("method") or "").upper() == "NATURAL":
        # Trino's analyzer refuses it (StatementAnalyzer: "Natural join not supported");
        # Spark would run it, so dbt_utils.deduplicate's natural join passed only locally
        raise Fails("NOT_SUPPORTED: Natural join not supported")
    kind = str(node.args.get("kind") or "").upper()
    if kind and kind not in ("INNER", "CROSS", "OUTER"):
        return f"{kind} JOIN"
    return None


same(exp.Join, "join", _join_check)


def _fetch_check(node: exp.Expression) -> Optional[str]:
    options = node.args.get("limit_options")
    if options is not None and options.args.get("percent"):
        return "FETCH FIRST ... PERCENT"
    return None


@rewrites(exp.Fetch, "fetch first", _fetch_check)
def fetch(node: exp.Expression) -> exp.Expression:
    options = node.args.get("limit_options")
    if options is not None and options.args.get("with_ties"):
        raise Refused("FETCH FIRST ... WITH TIES")
    return exp.Limit(expression=node.args.get("count") or exp.Literal.number(1))


same(exp.LimitOptions, "fetch first")


@rewrites(exp.Unnest, "unnest")
def unnest(node: exp.Expression) -> exp.Expression:
    return node  # the join around it renders it (translate.unnest_joins)
