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
from athena_spark_emulator.sql.spark_forms import spark, type_of
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
    exp.Var,
    exp.Exists,
    exp.DataTypeParam,
    exp.Interval,
):
    same(_cls, _cls.__name__.lower())


def _window_check(node: exp.Expression) -> Optional[str]:
    """Trino's StatementAnalyzer.analyzeWindowFunctions: an ORDER BY inside the call of a
    window function fails (``array_agg(x ORDER BY x) OVER (...)``), as do lag and lead
    over a window without ORDER BY (Spark would run both)."""
    call = node.this
    if isinstance(call, exp.AggFunc) and isinstance(call.this, exp.Order):
        raise Fails("NOT_SUPPORTED: Window function with ORDER BY is not supported")
    if isinstance(call, (exp.Lag, exp.Lead)) and not node.args.get("order"):
        name = "lag" if isinstance(call, exp.Lag) else "lead"
        raise Fails(f"SYNTAX_ERROR: {name} function requires an ORDER BY window clause")
    return None


same(exp.Window, "window", _window_check)


def _frame(node: exp.Expression) -> exp.Expression:
    """Trino's frames are ROWS, RANGE and GROUPS (sql/select.md's window clause; GROUPS
    counts peer groups, WindowOperator's GroupsFraming); Spark has no GROUPS frame."""
    if str(node.args.get("kind") or "").upper() == "GROUPS":
        raise Refused(
            f"the window frame {node.sql('athena')}",
            "Spark has only ROWS and RANGE frames, not GROUPS; a ROWS or RANGE frame may do",
        )
    return node


rewrites(exp.WindowSpec, "windowspec")(_frame)


# ---- a subquery whose select list reads the outer query's columns --------------------------
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
    if not isinstance(parent, exp.Subquery) or isinstance(
        parent.parent, (exp.From, exp.Join, exp.Lateral)
    ):
        return  # a relation (a LATERAL one: query_shapes.lateral_subquery decides)
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


#: meta key of a JOIN ... USING: {column: (left type, right type)} (translate.annotate)
USING_TYPES = "athena_using_types"


def _scope(select: exp.Select) -> list:
    """The nodes of ``select`` outside its subqueries."""
    return list(select.walk(prune=lambda n: n is not select and isinstance(n, exp.Query)))


def _using_references(node: exp.Select) -> None:
    """Trino's StatementAnalyzer gives a JOIN ... USING (k) one column ``k``, unqualified:
    ``t.k`` of a joined relation ``t`` fails (Spark reads it as t's column)."""
    joins = [j for j in node.args.get("joins") or [] if j.args.get("using")]
    if not joins:
        return
    names = {str(i.name).lower() for j in joins for i in j.args["using"]}
    source = node.args.get("from_") or node.args.get("from")
    relations = [source.this] if source is not None else []
    relations += [j.this for j in node.args.get("joins") or []]
    aliases = {str(r.alias_or_name).lower() for r in relations}
    for column in _scope(node):
        if not isinstance(column, exp.Column) or not column.table:
            continue
        if column.table.lower() in aliases and column.name.lower() in names:
            raise Fails(f"SYNTAX_ERROR: Column '{column.table}.{column.name}' cannot be resolved")


def _comparable(value: exp.Expression, drop_tables: bool) -> str:
    """``value``'s text with its names in lower case (Trino's identifiers are), and its
    columns unqualified where the query reads one relation."""
    copy = value.copy()
    for column in list(copy.find_all(exp.Column)):
        name = exp.to_identifier(column.name.lower())
        table = None if drop_tables or not column.table else column.table.lower()
        column.replace(exp.column(name, table))
    return copy.sql("spark")


def _distinct_order(node: exp.Select) -> None:
    """``SELECT DISTINCT ... ORDER BY e``: Trino's StatementAnalyzer.verifySelectDistinct
    requires each ORDER BY expression (other than an output name or position) to be one of
    the select list's, compared after resolving names: in ORDER BY a name of an output
    column is that output column (``SELECT DISTINCT a, a + b ... ORDER BY a + b`` fails,
    its ``a`` being the output ``a``), other names the FROM's columns. Spark's plan cannot
    see the FROM's columns once the projection is named (``_col0``), so each ORDER BY
    expression that repeats a projection is that projection's name (dbt-athena's batched
    partition inserts send this)."""
    order = node.args.get("order")
    if not node.args.get("distinct") or order is None:
        return
    if any(isinstance(p, exp.Star) or isinstance(p.this, exp.Star) for p in node.expressions):
        return
    outputs = {str(p.alias_or_name).lower() for p in node.expressions if p.alias_or_name}
    drop_tables = not node.args.get("joins")
    named: dict = {}
    for projection in node.expressions:
        if isinstance(projection, exp.Alias) and not isinstance(projection.this, exp.Column):
            named.setdefault(_comparable(projection.this, drop_tables), projection.alias)
    for ordered in order.expressions:
        value = ordered.this if isinstance(ordered, exp.Ordered) else ordered
        if isinstance(value, (exp.Column, exp.Literal)):
            continue
        bound_to_output = any(
            not c.table and c.name.lower() in outputs for c in value.find_all(exp.Column)
        )
        name = None if bound_to_output else named.get(_comparable(value, drop_tables))
        if name is None:
            raise Fails(
                "SYNTAX_ERROR: For SELECT DISTINCT, ORDER BY expressions must appear in select list"
            )
        ordered.set("this", exp.column(name, quoted=True))


@rewrites(exp.Select, "select")
def select(node: exp.Expression) -> exp.Expression:
    """A query's checks of names that Spark resolves otherwise than Trino: the columns of
    a JOIN ... USING (:func:`_using_references`), the ORDER BY of a SELECT DISTINCT
    (:func:`_distinct_order`) and a subquery's select list reading the outer query
    (:func:`outer_projection`)."""
    assert isinstance(node, exp.Select)
    _using_references(node)
    _distinct_order(node)
    outer_projection(node)
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


def struct_field_names(element: Optional[exp.Expression]) -> Optional[list]:
    """The Spark field names of a row element type (Trino's anonymous fields are the
    emulator's field0, field1, ...); None when not a row."""
    if not isinstance(element, exp.DataType) or element.this != exp.DataType.Type.STRUCT:
        return None
    names = []
    for i, field in enumerate(element.expressions):
        names.append(field.name if isinstance(field, exp.ColumnDef) else f"field{i}")
    return names


def _row_fields_as_columns(row: exp.Expression) -> exp.Expression:
    """A VALUES row that is one value of a row type (``VALUES CAST(ROW(1, 'a') AS row(x
    double, y varchar))``) as its fields: Trino's StatementAnalyzer.visitValues takes each
    row's type, and a row-typed value gives a column per field (any other value one
    column), as ``ROW(...)`` and ``(...)`` rows do."""
    items = row.expressions if isinstance(row, exp.Tuple) else [row]
    if len(items) != 1:
        return row
    fields = struct_field_names(type_of(items[0]))
    if not fields:
        return row
    value = items[0]
    return exp.Tuple(
        expressions=[
            exp.Dot(this=exp.paren(value.copy()), expression=exp.to_identifier(f, quoted=True))
            for f in fields
        ]
    )


@rewrites(exp.Values, "values")
def values(node: exp.Expression) -> exp.Expression:
    """Trino's ``VALUES`` rows (sql/select.md; its columns the rows' common types, named by
    the alias or ``_col0``, ...). Spark plans an inline table by evaluating each value once
    (its ``ResolveInlineTables`` refuses what it cannot fold: INVALID_INLINE_TABLE), so rows
    holding a UDF call or a random value are rendered as ``SELECT ... UNION ALL SELECT ...``
    with Spark's inline-table column names (col1, col2, ...), which the alias renames as it
    renamed the inline table's; Spark's UNION widens the rows' types as its inline tables do.
    """
    rows: list = [_row_fields_as_columns(row) for row in node.expressions]
    node.set("expressions", rows)
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


def _using_check(node: exp.Expression) -> None:
    """JOIN ... USING (k): Trino fails on a column named twice (StatementAnalyzer
    .analyzeJoinUsing) and gives ``k`` the common super type of both sides' columns, where
    Spark keeps the left one's: where the emulator knows they differ, it refuses."""
    seen: set = set()
    for identifier in node.args.get("using") or []:
        name = str(identifier.name)
        if name.lower() in seen:
            raise Fails(f"SYNTAX_ERROR: Column '{name}' appears multiple times in USING clause")
        seen.add(name.lower())
    kinds = node.meta.get(USING_TYPES) if node._meta else None
    for name, (left, right) in (kinds or {}).items():
        if left and right and _unsized(left) != _unsized(right):
            raise Refused(
                f"JOIN ... USING ({name}) of columns of types {left} and {right}",
                f"Athena's {name} has their common type, Spark's the left column's type; "
                f"join ON the columns and cast {name} to the type wanted instead",
            )


def _unsized(kind: str) -> str:
    """A type name without a varchar's or char's length (the values print the same)."""
    return kind.split("(", 1)[0] if kind.startswith(("varchar", "char")) else kind


def _join(node: exp.Expression) -> exp.Expression:
    _using_check(node)
    return node


rewrites(exp.Join, "join", _join_check)(_join)


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
