"""Athena's query constructs beyond a plain SELECT (GROUPING SETS, CUBE, ROLLUP, grouping(),
FILTER of an aggregate, UNNEST of rows, maps and several arrays, WITH ORDINALITY, quantified
subqueries, row.*, row[i], CORRESPONDING, WITH FUNCTION, WITH RECURSIVE, LATERAL subqueries):
each an entry of
the function table (functions/table.py), with a Spark form or a small implementation (a UDF
of udfs.py). Functions are not here but in functions/, one module per page of Trino's
function documentation. Registered when the athena_spark_emulator.sql package is imported
(its __init__)."""

from __future__ import annotations

import re
from typing import Callable, Optional

from sqlglot import exp

from athena_spark_emulator.sql import spark_forms, syntax
from athena_spark_emulator.sql.functions.select import struct_field_names
from athena_spark_emulator.sql.functions.table import SHAPES, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import spark, type_of
from athena_spark_emulator.sql.syntax import Untranslatable
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

# ---- GROUPING SETS, CUBE, ROLLUP, grouping() -------------------------------------------------
# Spark's grouping analytics are Trino's: each grouping set (a CUBE or ROLLUP its sets) run
# as a GROUP BY of its columns, the other grouped columns NULL; several grouping elements
# (GROUP BY GROUPING SETS (...), ROLLUP (...)) cross their sets, in both.


def _grouping_check(node: exp.Expression) -> Optional[str]:
    group = node.parent
    if isinstance(group, exp.Group) and group.args.get("all") is not None:
        # Spark has no GROUP BY ALL / DISTINCT of grouping sets (its GROUP BY ALL differs)
        return "GROUP BY ALL / GROUP BY DISTINCT of grouping sets"
    return None


same(exp.GroupingSets, "GROUPING SETS", _grouping_check)
same(exp.Cube, "CUBE", _grouping_check)
same(exp.Rollup, "ROLLUP", _grouping_check)


@rewrites(exp.Grouping, "grouping")
def grouping(node: exp.Expression) -> exp.Expression:
    """Trino's grouping(a, b, ...) is a bigint whose bit for an argument (the first the most
    significant) is 1 when that column is not in the row's grouping set: Spark's
    grouping_id(a, b, ...) (bigint too; Spark's grouping() is a tinyint of one column)."""
    return exp.Anonymous(this="grouping_id", expressions=list(node.expressions))


# ---- FILTER (WHERE ...) of an aggregate ------------------------------------------------------


@rewrites(exp.Filter, "FILTER (WHERE ...)")
def aggregate_filter(node: exp.Expression) -> exp.Expression:
    """``agg(...) FILTER (WHERE c)``: the aggregate over the rows where ``c`` is true. The
    aggregate's Spark form may use several of Spark's aggregates (count(1) for its NULL on
    no rows, collect_list, ...): each is given the FILTER."""
    where = node.expression
    inner = node.this
    if not isinstance(where, exp.Where) or inner.find(exp.Window, exp.Select, exp.Subquery):
        raise Refused(f"{node.sql('athena')} (FILTER of an aggregate only)")
    calls = list(inner.find_all(exp.AggFunc))
    if not calls:
        raise Refused(f"{node.sql('athena')} (FILTER of an aggregate only)")
    if isinstance(inner, exp.AggFunc):
        return exp.Filter(this=inner, expression=where)
    condition = where.this
    for agg in calls:
        parent = agg.parent
        if isinstance(parent, exp.Filter) and parent.this is agg:  # e.g. collect_list's
            both = exp.and_(exp.paren(parent.expression.this.copy()), exp.paren(condition.copy()))
            parent.set("expression", exp.Where(this=both))
        else:
            agg.replace(exp.Filter(this=agg.copy(), expression=exp.Where(this=condition.copy())))
    return inner


# ---- quantified comparisons: x = ANY (subquery), x < ALL (subquery), SOME ----------------------
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
# SQL's three-valued logic: ANY is true when one comparison is, NULL when none is but one is
# NULL, else false (false for no rows); ALL the other way round.
_ANY = (
    "CASE WHEN count(1) = 0 THEN FALSE WHEN bool_or(_0) THEN TRUE "
    "WHEN count(1) > count(_0) THEN NULL ELSE FALSE END"
)
_ALL = (
    "CASE WHEN count(1) = 0 THEN TRUE WHEN NOT bool_and(_0) THEN FALSE "
    "WHEN count(1) > count(_0) THEN NULL ELSE TRUE END"
)


def _one_column_query(node: exp.Expression) -> Optional[exp.Expression]:
    while isinstance(node, (exp.Subquery, exp.Paren)) and not node.args.get("alias"):
        node = node.this
    if isinstance(node, exp.Values):
        rows = node.expressions
        if rows and all(isinstance(r, exp.Tuple) and len(r.expressions) == 1 for r in rows):
            return node
        return None
    if isinstance(node, exp.Query):
        first = node
        while isinstance(first, exp.SetOperation):
            first = first.this
        if isinstance(first, exp.Subquery):
            first = first.unnest()
        if (
            isinstance(first, exp.Select)
            and len(first.expressions) == 1
            and not isinstance(first.expressions[0], exp.Star)
        ):
            return node
        return None
    return None


def _quantified(
    node: exp.Expression, query: Optional[exp.Expression], every: bool
) -> exp.Expression:
    comparison = node.parent
    word = "ALL" if every else "ANY"
    if not isinstance(comparison, _COMPARISONS) or comparison.expression is not node:
        raise Refused(f"{word} outside a comparison")
    subquery = _one_column_query(query) if query is not None else None
    if subquery is None:
        raise Refused(f"{comparison.sql('athena')} ({word} of a query of one column only)")
    value = comparison.this
    if value.find(exp.Column):
        raise Refused(f"{comparison.sql('athena')} (a quantified comparison of a column)")
    alias = exp.TableAlias(this=exp.to_identifier("_q"), columns=[exp.to_identifier("_v")])
    if isinstance(subquery, exp.Values):
        source: exp.Expression = subquery.copy()
        source.set("alias", alias)
    else:
        source = exp.Subquery(this=subquery.copy(), alias=alias)
    test = type(comparison)(this=value.copy(), expression=exp.column("_v", "_q"))
    answer = spark(_ALL if every else _ANY, test)
    result = exp.Subquery(this=exp.Select(expressions=[answer]).from_(source))
    comparison.replace(result)
    return node


@rewrites(exp.Any, "ANY (subquery)")
def any_subquery(node: exp.Expression) -> exp.Expression:
    return _quantified(node, node.this, every=False)


@rewrites(exp.All, "ALL (subquery)")
def all_subquery(node: exp.Expression) -> exp.Expression:
    return _quantified(node, node.this, every=True)


def _quantified_call(every: bool) -> Callable[[exp.Expression], exp.Expression]:
    def rewrite(node: exp.Expression) -> exp.Expression:
        args = node.expressions
        return _quantified(node, args[0] if len(args) == 1 else None, every)

    return rewrite


# sqlglot reads ALL (VALUES ...) and SOME (VALUES ...) as calls
rewrites("all", "ALL (subquery)")(_quantified_call(True))
rewrites("some", "SOME (subquery)")(_quantified_call(False))


# ---- (row).* AS (a, b) -----------------------------------------------------------------------
def _aliases_check(node: exp.Expression) -> Optional[str]:
    value = node.this
    if isinstance(value, exp.Dot) and isinstance(value.expression, exp.Star):
        return None  # the row's fields named (functions.row_field expands them)
    return f"{node.sql('athena')} (several names for one expression)"


same(exp.Aliases, "(row).* AS (names)", _aliases_check)


# ---- UNNEST: several arrays, arrays of rows, maps, WITH ORDINALITY ---------------------------------
_MAP_FORMS = (exp.Map, exp.VarMap, exp.MapFromEntries)


def _unnested(value: exp.Expression) -> tuple:
    """(kind, element): kind "array", "map" or None (unknown); element the array's element
    type (None: unknown)."""
    kind = type_of(value)
    if (kind is not None and kind.this == exp.DataType.Type.MAP) or isinstance(value, _MAP_FORMS):
        return "map", None
    if kind is not None and kind.this == exp.DataType.Type.ARRAY:
        element = kind.expressions[0] if kind.expressions else None
        if isinstance(element, exp.DataType) and element.this != exp.DataType.Type.UNKNOWN:
            return "array", element
        return "array", None
    if isinstance(value, exp.Array):
        return "array", None
    return None, None


def unnest_generator(unnest: exp.Unnest, columns: list) -> tuple:
    """Spark's generator for Trino's ``UNNEST(a, b, ...) [WITH ORDINALITY] AS t(columns)``
    and its output columns: arrays side by side, the shorter ones padded with NULLs (a NULL
    array as an empty one, all NULL: no rows); an array of rows gives a column per field;
    a map its keys and values; the ordinality a bigint from 1. Athena (unlike Trino, which
    fails on the count of names) keeps the rows of a single array of rows of several fields
    as one column when one name is given. :class:`Refused` where the emulator cannot tell."""
    values = list(unnest.expressions)
    ordinality = unnest.args.get("offset")
    shapes = [_unnested(v) for v in values]
    if not columns and not isinstance(ordinality, exp.Identifier):
        columns = _unnamed_columns(shapes, bool(ordinality))
        ordinality = columns.pop() if ordinality else None
    names = list(columns)
    if isinstance(ordinality, exp.Identifier):
        names.append(ordinality)
    elif ordinality:
        raise Refused("UNNEST ... WITH ORDINALITY without a column name")
    if any(kind == "map" for kind, _ in shapes):
        if len(values) != 1 or ordinality:
            raise Refused("UNNEST of a map with other arrays or WITH ORDINALITY")
        return spark("explode(_0)", values[0]), names
    if len(values) == 1 and not ordinality:
        return _one_array(values[0], shapes[0], len(columns)), names
    return _side_by_side(values, shapes, len(columns), bool(ordinality)), names


def _unnamed_columns(shapes: list, ordinality: bool) -> list:
    """The columns of an ``UNNEST(...)`` without an ``AS t(x, ...)`` list: Trino's
    RelationPlanner gives it one column per array (a map two, an array of rows one per
    field, WITH ORDINALITY one more), which a query reads through ``*`` (named ``_col0``,
    ``_col1``, ... as Trino's unnamed output columns are) or not at all. The column of a
    named row field has the field's name (StatementAnalyzer.visitUnnest: a RowType's
    fields keep their names), so ``SELECT x FROM UNNEST(array of row(x, y))`` reads it."""
    names: list = []
    for kind, element in shapes:
        fields = struct_field_names(element)
        if kind == "map":
            names.extend([None, None])
        elif fields:
            named = [isinstance(f, exp.ColumnDef) for f in element.expressions]
            names.extend(f if is_named else None for f, is_named in zip(fields, named))
        else:
            names.append(None)
    if ordinality:
        names.append(None)
    return [exp.to_identifier(n or f"_col{i}") for i, n in enumerate(names)]


def _one_array(value: exp.Expression, shape: tuple, count: int) -> exp.Expression:
    kind, element = shape
    fields = struct_field_names(element)
    if fields is None:
        if kind is None and count != 1:
            raise Refused(
                f"UNNEST({value.sql('athena')})", "the emulator cannot tell its argument's type"
            )
        if kind == "array" and element is None and count != 1:
            raise Refused(f"UNNEST({value.sql('athena')}) (its element type unknown)")
        return spark("explode(_0)", value)
    if count == len(fields):
        if len(fields) == 1:
            raise Refused("UNNEST of an array of rows of one field")  # Trino and Athena differ
        return spark("inline(_0)", value)
    if count == 1:
        return spark("explode(_0)", value)
    raise Refused(f"UNNEST of an array of rows of {len(fields)} fields into {count} names")


def _side_by_side(values: list, shapes: list, count: int, ordinality: bool) -> exp.Expression:
    """Several arrays, or WITH ORDINALITY: one struct per position up to the longest."""
    parts: list = []
    for value, (kind, element) in zip(values, shapes):
        if kind == "array" and element is None and len(values) == 1:
            element = exp.DataType.build("unknown")  # one array WITH ORDINALITY: its elements
        if kind != "array" or element is None:
            raise Refused(
                f"UNNEST({value.sql('athena')}, ...) (an element type the emulator cannot tell)"
            )
        fields = struct_field_names(element)
        at = spark("try_element_at(_0, _i + 1)", value)
        if fields is None:
            parts.append(at)
        else:
            parts.extend(
                exp.Dot(this=exp.paren(at.copy()), expression=exp.to_identifier(f, quoted=True))
                for f in fields
            )
    if len(parts) != count:
        raise Refused(f"UNNEST of {len(parts)} columns into {count} names")
    if ordinality:
        parts.append(spark("CAST(_i + 1 AS BIGINT)"))
    sizes = [spark("size(_0)", v) for v in values]
    longest = sizes[0] if len(sizes) == 1 else exp.Greatest(this=sizes[0], expressions=sizes[1:])
    fields_text = ", ".join(f"'c{i}', _{i + 1}" for i in range(len(parts)))
    return spark(
        f"inline(transform(array_repeat(0, _0), (_x, _i) -> named_struct({fields_text})))",
        longest,
        *parts,
    )


# ---- TABLE(sequence(...)) -------------------------------------------------------------------
def _table_sequence_check(node: exp.Expression) -> Optional[str]:
    """Spark's range(...) is only the form of Trino's TABLE(sequence(...)) (syntax.py):
    Trino has no function range (refused as any function not in the table)."""
    if node.meta.get(syntax.TABLE_SEQUENCE) if node._meta else False:
        return None
    return "the function range"


same("range", "TABLE(sequence(...))", _table_sequence_check)


# ---- UNION / INTERSECT / EXCEPT CORRESPONDING ---------------------------------------------------
def _output_names(query: exp.Expression) -> Optional[list]:
    """The column names of ``query`` where the statement states them (None: it does not)."""
    if not isinstance(query, exp.Select):
        return None
    names: list = []
    for projection in query.expressions:
        if isinstance(projection, exp.Star):
            source = query.args.get("from_") or query.args.get("from")
            alias = source.this.args.get("alias") if source is not None else None
            if query.args.get("joins") or alias is None or not alias.columns:
                return None
            names.extend(c.name for c in alias.columns)
        elif isinstance(projection, (exp.Alias, exp.Column)) and projection.alias_or_name:
            if re.fullmatch(r"_+(athena_)?col\d+", projection.alias_or_name):
                return None  # an unnamed expression (the name Athena gives it)
            names.append(projection.alias_or_name)
        else:
            return None
    return names


def corresponding(node: exp.Expression) -> exp.Expression:
    """``a UNION [ALL] CORRESPONDING b`` (INTERSECT, EXCEPT): the columns both sides name,
    in the first side's order, matched by name."""
    left, right = node.this, node.expression
    left_names, right_names = _output_names(left), _output_names(right)
    word = f"{type(node).__name__.upper()} CORRESPONDING"
    if left_names is None or right_names is None:
        raise Refused(f"{word} of queries whose column names the emulator cannot tell")
    lowered = [n.lower() for n in right_names]
    if len(set(lowered)) != len(lowered) or len({n.lower() for n in left_names}) != len(left_names):
        raise Refused(f"{word} of queries with a column name twice")
    common = [n for n in left_names if n.lower() in lowered]
    if not common:
        raise Refused(f"{word} of queries with no column name in common")

    def pick(query: exp.Expression, name: str) -> exp.Expression:
        return exp.select(*[exp.column(c, quoted=True) for c in common]).from_(
            exp.Subquery(this=query.copy(), alias=exp.TableAlias(this=exp.to_identifier(name)))
        )

    result = node.copy()
    for flag in ("by_name", "kind"):
        result.set(flag, None)
    result.set("this", pick(left, "_left"))
    result.set("expression", pick(right, "_right"))
    return result


# ---- row.fields() ----------------------------------------------------------------------------
@rewrites("fields", "row.fields()")
def row_fields(node: exp.Expression) -> exp.Expression:
    """``row.fields()``: the row type's field names (an array(varchar), even for a NULL row)."""
    dot = node.parent
    if not isinstance(dot, exp.Dot) or dot.expression is not node or node.expressions:
        raise Refused(f"{node.sql('athena')} (fields() of a row only)")
    kind = type_of(dot.this)
    names = struct_field_names(kind)
    if (
        kind is None
        or names is None
        or not all(isinstance(f, exp.ColumnDef) for f in kind.expressions)
        or any(n != n.lower() for n in names)
    ):
        raise Refused(f"{dot.sql('athena')} (of a row whose field names the emulator cannot tell)")
    dot.replace(exp.Array(expressions=[exp.Literal.string(n) for n in names]))
    return node


# ---- the types of lambda parameters ------------------------------------------------------------
def _element(kind: Optional[exp.DataType], position: int = 0) -> Optional[exp.DataType]:
    if kind is None or kind.this not in (exp.DataType.Type.ARRAY, exp.DataType.Type.MAP):
        return None
    wanted = 1 if kind.this == exp.DataType.Type.MAP and position else 0
    found = kind.expressions[wanted] if len(kind.expressions) > wanted else None
    if not isinstance(found, exp.DataType) or found.this == exp.DataType.Type.UNKNOWN:
        return None
    return found


def _state_type(node: exp.Reduce) -> Optional[exp.DataType]:
    """reduce's state S: the initial state's type where the statement fixes it (a cast, or
    the array's element type), else unknown (Trino's coercions decide it)."""
    initial = node.args.get("initial")
    if initial is None:
        return None
    kind = type_of(initial)
    if isinstance(initial, exp.Cast):
        return kind
    element = _element(type_of(node.this))
    return kind if kind is not None and element is not None and kind == element else None


def _parameter_types(call: exp.Expression, lam: exp.Lambda) -> list:
    """The Athena types of ``lam``'s parameters as ``call`` passes them (None: unknown)."""
    if isinstance(call, exp.Reduce):
        state = _state_type(call)
        if lam is call.args.get("merge"):
            return [state, _element(type_of(call.this))]
        return [state]
    if isinstance(call, exp.RegexpReplace):  # the array of a match's groups
        return [exp.DataType.build("array<varchar>")]
    if isinstance(call, (exp.Transform, exp.ArrayFilter, exp.ArraySort)):
        element = _element(type_of(call.this))
        return [element, element]
    if isinstance(call, exp.Anonymous):
        name = str(call.name).lower()
        args = [a for a in call.expressions if not isinstance(a, exp.Lambda)]
        kinds = [type_of(a) for a in args]
        if name in ("any_match", "all_match", "none_match") and kinds:
            return [_element(kinds[0])]
        if name == "zip_with" and len(kinds) == 2:
            return [_element(kinds[0]), _element(kinds[1])]
        if name in ("transform_values", "transform_keys", "map_filter") and kinds:
            return [_element(kinds[0], 0), _element(kinds[0], 1)]
        if name == "map_zip_with" and len(kinds) == 2:
            return [_element(kinds[0], 0), _element(kinds[0], 1), _element(kinds[1], 1)]
    return []


def lambda_parameter_type(node: exp.Expression) -> Optional[exp.DataType]:
    """The type of a lambda parameter ``x`` (or of its row's field ``x.f``) where the
    function the lambda is passed to tells it; None otherwise."""
    if isinstance(node, exp.Identifier):  # how sqlglot reads a parameter in a lambda's body
        name, field = node.name, None
    elif isinstance(node, exp.Dot) and isinstance(node.this, exp.Identifier):
        name, field = node.this.name, node.name
    elif isinstance(node, exp.Column) and not node.args.get("db"):
        name, field = (node.table, node.name) if node.table else (node.name, None)
    else:
        return None
    lam = node.find_ancestor(exp.Lambda)
    while lam is not None:
        params = [p.name for p in lam.expressions]
        if name in params:
            call = lam.parent
            types = _parameter_types(call, lam) if isinstance(call, exp.Expression) else []
            index = params.index(name)
            kind = types[index] if index < len(types) else None
            if field is None or kind is None:
                return kind
            if kind.this != exp.DataType.Type.STRUCT:
                return None
            for item in kind.expressions:
                if isinstance(item, exp.ColumnDef) and item.name.lower() == field.lower():
                    found = item.args.get("kind")
                    return found if isinstance(found, exp.DataType) else None
            return None
        lam = lam.find_ancestor(exp.Lambda)
    return None


# ---- row[i] (typeof of an ARRAY[...] or MAP(...) is functions/conversion.py's) -----------------
def row_subscript(node: exp.Expression, kind: exp.DataType) -> exp.Expression:
    """``row[i]``: the row's i-th field (from 1; a constant index, as Trino requires)."""
    [index] = node.expressions
    names = struct_field_names(kind) or []
    if not (isinstance(index, exp.Literal) and not index.is_string and index.this.isdigit()):
        raise Refused(f"the subscript {node.sql('athena')} (of a row, by a constant only)")
    position = int(index.this)
    if not 1 <= position <= len(names):
        raise Refused(f"the subscript {node.sql('athena')} (out of the row's fields)")
    return exp.Dot(
        this=exp.paren(node.this.copy()),
        expression=exp.to_identifier(names[position - 1], quoted=True),
    )


# ---- WITH FUNCTION (inline SQL functions) ------------------------------------------------------
def _inline_function(spec: exp.Expression, text: str) -> tuple:
    """(name, parameters, return type, body) of one ``FUNCTION f(x type) RETURNS type
    RETURN expr``; Untranslatable for any other body or characteristic."""
    signature, body = spec.this, spec.expression
    properties = spec.args.get("characteristics")
    listed = list(properties.expressions) if properties is not None else []
    returns = [p for p in listed if isinstance(p, exp.ReturnsProperty)]
    params = list(signature.expressions) if isinstance(signature, exp.UserDefinedFunction) else []
    if (
        not isinstance(signature, exp.UserDefinedFunction)
        or not isinstance(body, exp.Return)
        or len(returns) != 1
        or len(listed) != 1
        or not all(isinstance(p, exp.ColumnDef) and p.args.get("kind") for p in params)
    ):
        raise Untranslatable(
            "inline SQL functions (WITH FUNCTION ...) other than RETURN expr", text
        )
    return signature.this.name.lower(), params, returns[0].this, body.this


def _expanded(call_node: exp.Expression, function: tuple, text: str) -> exp.Expression:
    _, params, returns, body = function
    if len(call_node.expressions) != len(params):
        raise Untranslatable(
            f"{call_node.sql('athena')} (arguments other than its parameters)", text
        )
    values = {}
    for param, arg in zip(params, call_node.expressions):
        kind = param.args["kind"]
        if isinstance(arg, exp.Literal) and arg.is_string != (kind.this in exp.DataType.TEXT_TYPES):
            # Trino coerces no text to a number (nor back): the call fails there
            raise Untranslatable(f"{call_node.sql('athena')} (an argument of another type)", text)
        values[param.name.lower()] = exp.Cast(this=arg.copy(), to=kind.copy())
    expanded = body.copy()
    for column in list(expanded.find_all(exp.Column)):
        if not column.table and column.name.lower() in values:
            column.replace(values[column.name.lower()].copy())
    return exp.Cast(this=exp.paren(expanded), to=returns.copy())


def inline_functions(tree: exp.Expression) -> exp.Expression:
    """``WITH FUNCTION f(x type) RETURNS type RETURN expr ... SELECT f(...)``: each call of
    ``f`` replaced by its body, the arguments cast to the parameters' types and the body to
    the return type. A body other than one RETURN expression, or a function calling an
    inline function, is refused (Untranslatable, as the parser reports)."""
    key = "with_" if tree.args.get("with_") is not None else "with"
    with_ = tree.args.get(key)
    text = tree.sql("athena")
    if not isinstance(with_, exp.With):
        raise Untranslatable("inline SQL functions (WITH FUNCTION ...)", text)
    functions = {}
    for spec in with_.args.get("udfs") or []:
        function = _inline_function(spec, text)
        functions[function[0]] = function
    for function in functions.values():
        if any(str(n.name).lower() in functions for n in function[3].find_all(exp.Anonymous)):
            raise Untranslatable("an inline SQL function calling an inline function", text)
    with_.set("udfs", None)
    if not with_.expressions:
        tree.set(key, None)
    for call_node in list(tree.find_all(exp.Anonymous)):
        found = functions.get(str(call_node.name).lower())
        if found is not None:
            call_node.replace(_expanded(call_node, found, text))
    return tree


# ---- WITH RECURSIVE --------------------------------------------------------------------------
MAX_RECURSION_DEPTH = 10  # Trino's max_recursion_depth session property, by default


@udf("recursion_depth_exceeded", "boolean")
def recursion_depth_exceeded(depth: Optional[int]) -> Optional[bool]:
    """Called for a row past Trino's recursion depth: the query fails as Trino's does."""
    raise AthenaError(
        f"NOT_SUPPORTED: Recursion depth limit exceeded ({depth}). Use 'max_recursion_depth' "
        "session property to modify the limit."
    )


def _references(query: exp.Expression, name: str) -> list:
    return [t for t in query.find_all(exp.Table) if not t.db and t.name.lower() == name]


def _unrolled(cte: exp.CTE, name: str) -> list:
    """The CTEs for one recursive WITH query: its base, each step reading the one before,
    and the query itself, their UNION ALL (failing when the step past the depth has rows)."""
    body = cte.this
    alias = cte.args.get("alias")
    columns = list(alias.columns) if alias is not None else []
    if not isinstance(body, exp.Union) or body.args.get("distinct") is not False or not columns:
        raise Refused("WITH RECURSIVE other than (base UNION ALL step) with column names")
    base, step = body.this, body.expression
    if _references(base, name) or len(_references(step, name)) != 1:
        raise Refused("WITH RECURSIVE whose step reads the query other than once in FROM")
    if body.args.get("order") or body.args.get("limit") or body.args.get("offset"):
        raise Refused("WITH RECURSIVE with ORDER BY or LIMIT on its UNION")
    levels = []
    for depth in range(MAX_RECURSION_DEPTH + 2):
        level = f"{name}__level{depth}"
        if depth == 0:
            query = base.copy()
        else:
            query = step.copy()
            [ref] = _references(query, name)
            ref_alias = ref.args.get("alias") or exp.TableAlias(this=exp.to_identifier(ref.name))
            ref.replace(
                exp.Table(this=exp.to_identifier(f"{name}__level{depth - 1}"), alias=ref_alias)
            )
        levels.append(
            exp.CTE(
                this=query,
                alias=exp.TableAlias(
                    this=exp.to_identifier(level), columns=[c.copy() for c in columns]
                ),
            )
        )
    parts = [exp.select("*").from_(f"{name}__level{d}") for d in range(MAX_RECURSION_DEPTH + 1)]
    past = exp.select("*").from_(f"{name}__level{MAX_RECURSION_DEPTH + 1}")
    past = past.where(udf_call("recursion_depth_exceeded", exp.Literal.number(MAX_RECURSION_DEPTH)))
    union: exp.Expression = parts[0]
    for part in [*parts[1:], past]:
        union = exp.Union(this=union, expression=part, distinct=False)
    whole = exp.CTE(
        this=union,
        alias=exp.TableAlias(
            this=cte.args["alias"].this.copy(), columns=[c.copy() for c in columns]
        ),
    )
    return [*levels, whole]


def recursive_with(node: exp.Expression) -> exp.Expression:
    """Trino's WITH RECURSIVE: a query ``t(cols) AS (base UNION ALL step)`` whose step reads
    ``t`` once is unrolled to a fixed depth (Trino's: 10 steps, failing if there would be
    rows past it); the other queries of the list stay as they are."""
    ctes = []
    for cte in node.expressions:
        name = cte.alias_or_name.lower()
        if _references(cte.this, name):
            ctes.extend(_unrolled(cte, name))
        else:
            ctes.append(cte)
    result = node.copy()
    result.set("expressions", ctes)
    result.set("recursive", None)
    return result


# ---- LATERAL (subquery) -----------------------------------------------------------------------
# Trino 410 runs a correlated LATERAL subquery only where its planner can decorrelate it
# (PlanNodeDecorrelator and the rules TransformCorrelatedSingleRowSubqueryToProject,
# TransformCorrelatedGlobalAggregationWithProjection / ...GroupedAggregation...): other
# forms fail "Given correlated subquery is not supported" (TestSelectAll, TestLateral).
# Spark 3.5 decorrelates more, so only the forms Trino's tests show running are run.

_LATERAL_FORMS = (
    "Trino 410 runs a correlated LATERAL subquery only in the forms it can decorrelate; the "
    "emulator runs two of them: a subquery without FROM (``LATERAL (SELECT t.a * 2)``) and "
    "an aggregation over uncorrelated relations whose WHERE alone reads the outer query "
    "(``LEFT JOIN LATERAL (SELECT count(*) FROM u WHERE u.k < t.k) ON TRUE``); rewrite the "
    "query as a join with GROUP BY, or use a scalar subquery"
)
_SOURCES = (exp.Table, exp.Subquery, exp.Values, exp.Unnest, exp.Lateral, exp.CTE)


def _inner_names(query: exp.Expression) -> tuple:
    """(the relation names, the column names, whether a relation's columns are unknown)
    that ``query`` defines inside itself."""
    names, columns, opaque = set(), set(), False
    for source in query.find_all(*_SOURCES):
        alias = source.args.get("alias")
        if isinstance(source, exp.Table):
            names.add(source.name.lower())
        if alias is not None and alias.name:
            names.add(alias.name.lower())
        known = [c.name.lower() for c in alias.columns] if alias is not None else []
        if isinstance(source, (exp.Subquery, exp.CTE)) and isinstance(source.this, exp.Select):
            known = known or [e.alias_or_name.lower() for e in source.this.expressions]
        columns.update(known)
        opaque = opaque or (isinstance(source, exp.Table) and not known)
    return names, columns, opaque


def _outer_columns(query: exp.Expression, part: Optional[exp.Expression]) -> bool:
    """Whether ``part`` of the LATERAL subquery ``query`` reads a column of the outer query:
    one qualified by a relation ``query`` does not define, or an unqualified one that none
    of its relations has (one whose columns are unknown, a table, is taken to have it)."""
    if part is None:
        return False
    names, columns, opaque = _inner_names(query)
    has_from = query.args.get("from_") is not None
    for column in part.find_all(exp.Column):
        if column.table:
            if column.table.lower() not in names:
                return True
        elif not has_from or not (opaque or column.name.lower() in columns):
            return True
    return False


def _lateral_join_check(node: exp.Lateral) -> Optional[str]:
    join = node.parent
    if not isinstance(join, exp.Join):
        return None
    side = str(join.args.get("side") or "").upper()
    on = join.args.get("on")
    if side in ("RIGHT", "FULL"):
        return f"{side} JOIN LATERAL (Trino allows a LATERAL reference in no {side} JOIN)"
    if on is not None and not (isinstance(on, exp.Boolean) and on.this):
        return f"JOIN LATERAL ... ON {on.sql('athena')} (a correlated LATERAL join runs ON TRUE)"
    return None


def _has_aggregate(query: exp.Select) -> bool:
    return any(e.find(exp.AggFunc) is not None for e in query.expressions)


def _decorrelated_form(query: exp.Select) -> bool:
    """Whether the correlated ``query`` is one of the forms Trino decorrelates (see
    :data:`_LATERAL_FORMS`)."""
    if query.find(exp.Window) is not None or query.find(exp.Lateral) is not None:
        return False
    shaping = ("having", "order", "offset", "distinct", "joins", "qualify")
    if any(query.args.get(k) for k in shaping):
        return False
    limit = query.args.get("limit")
    if query.args.get("from_") is None:  # one row: TransformCorrelatedSingleRowSubqueryToProject
        count = limit.expression if isinstance(limit, exp.Limit) else None
        one_row = limit is None or (isinstance(count, exp.Literal) and int(count.this or 0) >= 1)
        plain = not any(query.args.get(k) for k in ("where", "group"))
        return one_row and plain and not _has_aggregate(query)
    outer = [query.args.get("from_"), query.args.get("group"), *query.expressions]
    if limit is not None or any(_outer_columns(query, part) for part in outer):
        return False
    return _has_aggregate(query) or query.args.get("group") is not None


def _lateral_check(node: exp.Expression) -> Optional[str]:
    if node.args.get("view"):
        return "LATERAL VIEW (Hive's syntax: Athena runs CROSS JOIN UNNEST)"
    subquery = node.this
    query = subquery.this if isinstance(subquery, exp.Subquery) else None
    if query is None:
        return f"LATERAL {node.sql('athena')} (a LATERAL of a subquery only)"
    if query.find(exp.Lateral) is not None:
        return f"LATERAL {subquery.sql('athena')} (a LATERAL inside a LATERAL subquery)"
    if not _outer_columns(query, query):
        return None  # uncorrelated: a subquery (lateral_subquery)
    if not isinstance(query, exp.Select) or not _decorrelated_form(query):
        return f"the correlated subquery LATERAL {subquery.sql('athena')} ({_LATERAL_FORMS})"
    return _lateral_join_check(node)  # type: ignore[arg-type]


@rewrites(exp.Lateral, "LATERAL (subquery)", _lateral_check)
def lateral_subquery(node: exp.Expression) -> exp.Expression:
    """A LATERAL subquery that reads no column of the outer query is that subquery (a join
    of it, or the relation in FROM: Spark takes no LATERAL there); a correlated one of the
    forms :func:`_lateral_check` lets through is Spark's LATERAL subquery, which gives
    Trino's rows (an aggregation over no rows is one row: count 0, others NULL)."""
    query = node.this.this
    if not _outer_columns(query, query):
        return exp.Subquery(this=query, alias=node.args.get("alias"))
    if query.args.get("from_") is None:
        query.set("limit", None)  # LIMIT n >= 1 of one row (Spark takes no outer column under one)
    return node


SHAPES.update(
    recursive_with=recursive_with,
    corresponding=corresponding,
    row_subscript=row_subscript,
)
spark_forms.LAMBDA_TYPES.append(lambda_parameter_type)
syntax.INLINE_FUNCTIONS.append(inline_functions)
