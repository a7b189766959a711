"""An Athena query rendered as Spark SQL: the tables it reads replaced by the temporary
views that stand for them, and MERGE planned as Spark queries. Pure: no Spark, no moto.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Tuple

import sqlglot
from sqlglot import exp

from athena_spark_emulator.sql.expanded_rows import spread_row_values
from athena_spark_emulator.sql.functions.conversion_types import type_name
from athena_spark_emulator.sql.functions.select import USING_TYPES
from athena_spark_emulator.sql.functions.table import TABLE, Refused
from athena_spark_emulator.sql.functions.window import spread_windows
from athena_spark_emulator.sql.query_shapes import unnest_generator
from athena_spark_emulator.sql.return_types import EXPRESSION_METADATA
from athena_spark_emulator.sql.signature_rules import signature_name
from athena_spark_emulator.sql.spark_forms import SIGNATURE_TYPE, literal_type, type_of
from athena_spark_emulator.sql.syntax import DIALECT, Untranslatable


def to_spark(
    query: exp.Expression,
    views: Mapping[int, str],
    schemas: Optional[Mapping[str, Mapping[str, str]]] = None,
) -> str:
    """Spark SQL for ``query`` with Athena's semantics; ``views`` maps ``id(table node)``
    to the temporary view that stands for it (an unaliased table keeps its own name as
    alias, so ``t.col`` still resolves), ``schemas`` gives each view's columns and their
    Athena types (``column_types.py``: what Athena's typing of division, casts and dates
    needs).

    A function, operator, type or construct not in the function table (functions/table.py)
    fails with :class:`Untranslatable` naming it (``NOT_SUPPORTED``)."""
    copy = query.copy()
    originals = [t for t in query.find_all(exp.Table)]
    copies = [t for t in copy.find_all(exp.Table)]
    for original, node in zip(originals, copies):
        view = views.get(id(original))
        if view is None:
            continue
        alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name))
        node.replace(exp.Table(this=exp.to_identifier(view, quoted=True), alias=alias))
    text = ""
    try:
        name_columns(copy)
        copy = athena_semantics(copy, schemas or {})
        no_variable_references(copy)
        found = json_columns(copy)
        kinds = output_types(copy)
        # the tree is this call's own copy: the generator need not copy it again
        spark_sql = SparkSql(
            sqlglot.Dialect.get_or_raise("spark").generate(
                copy, copy=False, unsupported_level=sqlglot.ErrorLevel.RAISE
            )
        )
        spark_sql.json_columns = found
        spark_sql.athena_types = kinds
        return spark_sql
    except Refused as refused:
        text = text or query.sql(DIALECT)
        raise Untranslatable(
            refused.construct,
            text,
            refused.why
            or "the emulator does not run it: it is not in the emulator's table of "
            "Athena functions and constructs checked against Athena's results",
        ) from None
    except sqlglot.errors.UnsupportedError as exc:
        raise Untranslatable(
            "a construct Spark SQL has no form for", query.sql(DIALECT), str(exc)
        ) from None


class SparkSql(str):
    """A query's Spark SQL, with the positions of the result columns whose Athena type is
    ``json`` (Spark holds them as strings; GetQueryResults reports ``json``) and the
    Athena type of each result column (:func:`output_types`)."""

    json_columns: frozenset = frozenset()
    athena_types: Tuple[Optional[str], ...] = ()


def _values(tree: exp.Expression) -> List[exp.Expression]:
    """The result columns' expressions of ``tree``'s first SELECT, up to a ``*`` (whose
    columns the translation does not know)."""
    select = _first_select(tree)
    if not isinstance(select, exp.Select):
        return []
    found = []
    for projection in select.expressions:
        if isinstance(projection, exp.Star) or isinstance(projection.this, exp.Star):
            break
        found.append(projection.this if isinstance(projection, exp.Alias) else projection)
    return found


def json_columns(tree: exp.Expression) -> frozenset:
    """The positions of ``tree``'s result columns that the translation knows are JSON
    values (up to a ``*``, whose columns it does not know)."""
    found = set()
    for i, value in enumerate(_values(tree)):
        kind = type_of(value)
        if kind is not None and kind.this == exp.DataType.Type.JSON:
            found.add(i)
    return frozenset(found)


STAR_TYPES = "athena_star_types"


def _first_select(tree: exp.Expression) -> exp.Expression:
    while isinstance(tree, exp.SetOperation):
        tree = tree.this
    return tree


def _has_star(tree: exp.Expression) -> bool:
    select = _first_select(tree)
    return isinstance(select, exp.Select) and any(
        isinstance(p, exp.Star) or isinstance(p.this, exp.Star) for p in select.expressions
    )


def output_types(tree: exp.Expression) -> Tuple[Optional[str], ...]:
    """The Athena type of each of ``tree``'s result columns (translated), as ``typeof``
    names it (``decimal(36,8)``, ``bigint``, ``timestamp(6)``); None where the translation
    cannot tell it (then Spark's type stands). A set operation's columns have a type where
    every branch agrees on it (Trino's UNION coerces to the common super type: left to
    Spark's where they differ)."""
    if isinstance(tree, exp.SetOperation):
        left, right = output_types(tree.this), output_types(tree.expression)
        return tuple(a if a == b else None for a, b in zip(left, right))
    behind_star = tree.meta.get(STAR_TYPES) if tree._meta else None
    if behind_star is not None:  # a * expanded by annotate (the columns of a subquery or CTE)
        return tuple(behind_star)
    # the name typeof gives each value, not typeof's Spark form (of an aggregate, a CASE that
    # keeps the query aggregated); else the one Trino's signatures give (record_signatures)
    select = _first_select(tree)
    recorded = [
        p.meta.get(SIGNATURE_TYPE) if p._meta else None
        for p in (select.expressions if isinstance(select, exp.Select) else [])
    ]
    values = _values(tree)
    return tuple(
        type_name(value) or (recorded[i] if i < len(recorded) else None)
        for i, value in enumerate(values)
    )


UNNAMED_PREFIX = "__athena_col"


def name_columns(tree: exp.Expression) -> None:
    """Athena names a query's unaliased expressions ``_col0``, ``_col1``, ... by position
    (a column, or a row field, keeps its name). Behind a ``*`` the position is only known
    once Spark expands it: those are named ``__athena_col`` for :func:`athena_names`."""
    for select in tree.find_all(exp.Select):
        starred = False
        for i, projection in enumerate(select.expressions):
            if isinstance(projection, exp.Star) or (
                isinstance(projection, (exp.Column, exp.Dot))
                and isinstance(
                    projection.args.get(
                        "this" if isinstance(projection, exp.Column) else "expression"
                    ),
                    exp.Star,
                )
            ):
                starred = True
                continue
            if isinstance(projection, (exp.Alias, exp.Aliases, exp.Column, exp.Dot)):
                continue
            name = f"{UNNAMED_PREFIX}{i}" if starred else f"_col{i}"
            projection.replace(exp.alias_(projection.copy(), name, quoted=False))


def athena_names(columns: List[str]) -> List[str]:
    """Spark's output column names with the ``__athena_col`` ones named by position."""
    return [f"_col{i}" if c.startswith(UNNAMED_PREFIX) else c for i, c in enumerate(columns)]


def expression_to_spark(node: exp.Expression) -> str:
    """One expression (a MERGE condition or value) in Spark SQL with Athena's semantics."""
    try:
        return athena_semantics(node.copy(), {}).sql(dialect="spark")
    except Refused as refused:
        raise Untranslatable(refused.construct, node.sql(DIALECT), refused.why) from None


def athena_semantics(
    tree: exp.Expression, schemas: Mapping[str, Mapping[str, str]]
) -> exp.Expression:
    """``tree`` checked against the function table of functions/table.py (:class:`Refused`
    for what is not in it), typed as far as needed, and rewritten into Spark forms with
    Athena's semantics."""
    check(tree)
    annotate(tree, schemas)  # every result column gets its Athena type (output_types)
    unnests = tree.find(exp.Unnest) is not None
    if unnests:
        _from_unnest_check(tree)
    tree = rewrite(tree)
    tree = spread_windows(tree)
    if unnests:
        unnest_joins(tree)
        from_unnests(tree)
    return tree


def no_variable_references(tree: exp.Expression) -> None:
    """Each string literal that holds ``${`` as a ``concat`` that never shows it: Spark's
    SQL variable substitution (``spark.sql.variable.substitute``, on in the session that
    also runs the Python models, as on Athena Spark) reads ``${name}`` in a statement's text
    and empties it, where Athena keeps the characters (``SELECT '${x}'`` is ``${x}``)."""
    for literal in list(tree.find_all(exp.Literal)):
        if not literal.is_string or "${" not in literal.this:
            continue
        first, *rest = literal.this.split("${")
        pieces = [exp.Literal.string(first)]
        for piece in rest:
            pieces += [exp.Literal.string("$"), exp.Literal.string("{" + piece)]
        literal.replace(exp.Anonymous(this="concat", expressions=pieces))


def _name_of(node: Any) -> str:
    if isinstance(node, exp.Anonymous):
        return f"the function {str(node.name).lower()}"
    text = node.sql(DIALECT)
    if isinstance(node, exp.ParseJSON):
        return f"JSON values (the JSON type, JSON literals, json_parse: {text})"
    if isinstance(node, exp.UnicodeString):
        return f"the Unicode string literal {text}"
    if isinstance(node, exp.HexString):
        # Trino's 0x0A (an integer) and X'0A' (varbinary) both parse to it
        return f"the hexadecimal literal 0x{node.this} / X'{node.this}'"
    if isinstance(node, exp.Func):
        match = re.match(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*\(", text)
        if match:
            return f"the function {match.group(1).lower()}"
    short = text if len(text) <= 80 else text[:80] + " ..."
    return f"{type(node).__name__} ({short})"


def check(tree: exp.Expression) -> None:
    for node in tree.walk():
        entry = TABLE.find(node)
        if entry is None:
            raise Refused(_name_of(node))
        if entry.check is not None:
            reason = entry.check(node)  # type: ignore[arg-type]
            if reason:
                raise Refused(reason)


def annotate(tree: exp.Expression, schemas: Mapping[str, Mapping[str, str]]) -> None:
    """sqlglot's types on ``tree``'s nodes (in place); the columns of the views from
    ``schemas`` (Athena type names). The columns are resolved (qualified, a CTE's or a
    subquery's ``*`` expanded) on a copy, whose types are copied back node by node: the
    Spark SQL keeps the statement's own shape."""
    from sqlglot.optimizer.annotate_types import annotate_types
    from sqlglot.schema import MappingSchema

    # Trino's number literal types: 1.5 is decimal(2,1) (sqlglot would say double)
    for literal in list(tree.find_all(exp.Literal)):
        if literal.is_string:
            continue
        kind = literal_type(literal.this)
        if kind.this == exp.DataType.Type.DECIMAL and literal is not tree:
            literal.replace(exp.Cast(this=exp.Literal.string(literal.this), to=kind))
    schema = MappingSchema(
        {name: dict(cols) for name, cols in schemas.items()}, dialect=DIALECT, normalize=False
    )
    using = any(j.args.get("using") for j in tree.find_all(exp.Join))
    if not tree.find(exp.Column) and not using:
        annotate_types(tree, schema=schema, expression_metadata=EXPRESSION_METADATA)
    else:
        _annotate_columns(tree, schema)
    record_signatures(tree)


def record_signatures(tree: exp.Expression) -> None:
    """The type Trino's signatures give (signatures.py) each ``typeof`` argument and each
    result column of ``tree``'s first SELECT, on the typeof node and the projection
    (:data:`SIGNATURE_TYPE`): what typeof and :func:`output_types` name where the
    translation's own types cannot tell."""
    for node in tree.find_all(exp.Typeof):
        name = signature_name(node.this)
        if name is not None:
            node.meta[SIGNATURE_TYPE] = name
    select = _first_select(tree)
    if isinstance(select, exp.Select):
        for projection in select.expressions:
            if isinstance(projection, exp.Alias):
                name = signature_name(projection.this)
                if name is not None:
                    projection.meta[SIGNATURE_TYPE] = name


def _annotate_columns(tree: exp.Expression, schema: Any) -> None:
    from sqlglot.optimizer.annotate_types import annotate_types
    from sqlglot.optimizer.qualify_columns import qualify_columns

    nodes = list(tree.walk())
    for number, node in enumerate(nodes):
        node.meta["athena_node"] = number
    work = tree.copy()
    spread_row_values(work)  # VALUES ROW(1, 'a') t(k, v): two columns (expanded_rows.py)
    # on failure the columns' types stay unknown: what needs them is refused
    with contextlib.suppress(Exception):
        qualify_columns(work, schema, expand_stars=True)
    annotate_types(work, schema=schema, expression_metadata=EXPRESSION_METADATA)
    for node in work.walk():
        found = node.meta.get("athena_node") if node._meta else None
        if found is not None and node.type is not None:
            nodes[found].type = node.type
        if found is not None and isinstance(node, exp.Join) and nodes[found].args.get("using"):
            nodes[found].meta[USING_TYPES] = _using_types(node)
    if _has_star(tree):  # the columns behind a * (qualified on the copy), for output_types
        tree.meta[STAR_TYPES] = tuple(type_name(value) for value in _values(work))


def _using_types(join: exp.Join) -> dict:
    """{column: (left type, right type)} of a JOIN ... USING that sqlglot's qualify_columns
    made ``ON l.k = r.k`` (on the annotated copy)."""
    found = {}
    for equal in join.find_all(exp.EQ):
        left, right = equal.this, equal.expression
        if isinstance(left, exp.Column) and isinstance(right, exp.Column):
            found[left.name] = (type_name(left), type_name(right))
    return found


def rewrite(tree: exp.Expression) -> exp.Expression:
    """Each node replaced by its Spark form, children first (a rewrite sees its arguments
    already translated, with their Athena types)."""
    for node in reversed(list(tree.walk(bfs=False))):
        entry = TABLE.find(node)
        if entry is None or entry.rewrite is None:
            continue
        new = entry.rewrite(node)  # type: ignore[arg-type]
        if new is node:
            continue
        if new.args.get("_type") is None and getattr(new, "_type", None) is None:
            new.type = node.type
        if node is tree:
            tree = new
        else:
            node.replace(new)
    return tree


def _from_unnest_check(tree: exp.Expression) -> None:
    for unnest in tree.find_all(exp.Unnest):
        if not isinstance(unnest.parent, (exp.Join, exp.From)):
            raise Refused(f"UNNEST({unnest.sql(DIALECT)}) outside FROM and JOIN")


def from_unnests(tree: exp.Expression) -> None:
    """``FROM UNNEST(...) AS t(x, ...)`` as Spark's generator in FROM (query_shapes)."""
    for unnest in list(tree.find_all(exp.Unnest)):
        if not isinstance(unnest.parent, exp.From):
            continue
        alias = unnest.args.get("alias")
        columns = list(alias.columns) if alias is not None else []
        generator, names = unnest_generator(unnest, columns)
        name = alias.this if alias is not None and alias.this else exp.to_identifier("unnest")
        unnest.replace(exp.Table(this=generator, alias=exp.TableAlias(this=name, columns=names)))


def unnest_joins(tree: exp.Expression) -> None:
    """``CROSS JOIN UNNEST(a) AS u(x)`` and ``LEFT JOIN UNNEST(a) AS u(x) ON TRUE`` (with
    or without ``WITH ORDINALITY``) as Spark's ``LATERAL VIEW [OUTER]``: Trino keeps the
    left row of an empty array only in the LEFT form, and counts ordinality from 1.
    Spark runs its LATERAL VIEWs after all the joins of a FROM, so where another join
    follows one with UNNEST (and may read its columns), each is Spark's join of a lateral
    generator, ``CROSS JOIN LATERAL explode(a) AS u(x)`` (its ``_outer`` form for LEFT),
    in the statement's order."""
    for select in list(tree.find_all(exp.Select)):
        joins = select.args.get("joins") or []
        if not any(isinstance(j.this, exp.Unnest) for j in joins):
            continue
        first = next(i for i, j in enumerate(joins) if isinstance(j.this, exp.Unnest))
        in_place = any(not isinstance(j.this, exp.Unnest) for j in joins[first:])
        kept, laterals = [], list(select.args.get("laterals") or [])
        for join in joins:
            unnest = join.this
            if not isinstance(unnest, exp.Unnest):
                kept.append(join)
                continue
            side = str(join.args.get("side") or "").upper()
            on = join.args.get("on")
            if side == "LEFT":
                if not (isinstance(on, exp.Boolean) and on.this):
                    raise Refused("LEFT JOIN UNNEST with a condition other than ON TRUE")
                outer = True
            elif side or (on is not None and not (isinstance(on, exp.Boolean) and on.this)):
                raise Refused(f"{side} JOIN UNNEST")
            else:
                outer = False
            if in_place:
                kept.append(exp.Join(this=_lateral(unnest, outer, view=False), kind="CROSS"))
            else:
                laterals.append(_lateral(unnest, outer))
        select.set("joins", kept or None)
        select.set("laterals", laterals or None)


_OUTER_GENERATORS = {"explode": "explode_outer", "inline": "inline_outer"}


def _lateral(unnest: exp.Unnest, outer: bool, view: bool = True) -> exp.Expression:
    """Spark's ``LATERAL VIEW [OUTER] generator`` (``view``), or the lateral generator of a
    join (``outer``: the generator's ``_outer`` form, one row of NULLs for no elements)."""
    alias = unnest.args.get("alias")
    columns = list(alias.columns) if alias is not None else []
    generator, names = unnest_generator(unnest, columns)
    table_alias = exp.TableAlias(
        this=alias.this if alias is not None and alias.this else exp.to_identifier("unnest"),
        columns=names,
    )
    if view:
        return exp.Lateral(this=generator, view=True, outer=outer, alias=table_alias)
    if outer:
        name = generator.sql("spark").split("(", 1)[0].lower()
        if name not in _OUTER_GENERATORS:
            raise Refused(f"LEFT JOIN UNNEST({unnest.sql(DIALECT)}) before another join")
        argument = generator.this if isinstance(generator.this, exp.Expression) else None
        argument = argument or generator.expressions[0]
        generator = exp.Anonymous(this=_OUTER_GENERATORS[name], expressions=[argument])
    return exp.Lateral(this=generator, alias=table_alias)


# ---- MERGE ---------------------------------------------------------------------------------
@dataclass
class MergePlan:
    """A MERGE as three Spark queries over a target view (with ``__emulator_row``) and a
    source view: target rows no source row matches, matched rows after their first
    applicable ``when matched`` clause (deleted ones left out), and the inserted rows."""

    columns: List[str]
    target: str  # the statement's aliases
    source: str
    on: str
    matched: List[tuple]  # (condition, {column: expression} or None for delete)
    insert: Optional[tuple]  # (condition, {column: expression})

    def _from(self, target_view: str, source_view: str, join: str) -> str:
        return (
            f"FROM `{target_view}` AS {self.target} {join} `{source_view}` AS {self.source} "
            f"ON {self.on}"
        )

    def _delete_case(self) -> str:
        whens = " ".join(
            f"WHEN {cond} THEN {'true' if sets is None else 'false'}" for cond, sets in self.matched
        )
        return f"(CASE {whens} ELSE false END)" if whens else "false"

    def queries(self, target_view: str, source_view: str) -> List[str]:
        cols = ", ".join(f"{self.target}.`{c}`" for c in self.columns)
        kept = f"SELECT {cols} {self._from(target_view, source_view, 'LEFT ANTI JOIN')}"
        updated_cols = []
        for c in self.columns:
            whens = " ".join(
                f"WHEN {cond} THEN {sets.get(c.lower(), f'{self.target}.`{c}`')}"
                for cond, sets in self.matched
                if sets is not None
            )
            value = (
                f"CASE {whens} ELSE {self.target}.`{c}` END" if whens else f"{self.target}.`{c}`"
            )
            updated_cols.append(f"{value} AS `{c}`")
        updated = (
            f"SELECT {', '.join(updated_cols)} {self._from(target_view, source_view, 'JOIN')} "
            f"WHERE NOT {self._delete_case()}"
        )
        if self.insert is None:
            inserted = f"SELECT {cols} FROM `{target_view}` AS {self.target} WHERE false"
        else:
            cond, values = self.insert
            picked = ", ".join(f"{values.get(c.lower(), 'NULL')} AS `{c}`" for c in self.columns)
            inserted = (
                f"SELECT {picked} FROM `{source_view}` AS {self.source} LEFT ANTI JOIN "
                f"`{target_view}` AS {self.target} ON {self.on} WHERE {cond}"
            )
        return [kept, updated, inserted]

    def checks(self, target_view: str, source_view: str) -> List[str]:
        """Queries that return rows when a target row matches several source rows."""
        return [
            f"SELECT {self.target}.__emulator_row "
            f"{self._from(target_view, source_view, 'JOIN')} "
            f"GROUP BY {self.target}.__emulator_row HAVING count(*) > 1"
        ]

    def deleted(self, engine: Any, target_view: str, source_view: str) -> int:
        """The target rows the MERGE deletes (``engine``: statements.Engine, which runs SQL)."""
        query = (
            f"SELECT 1 {self._from(target_view, source_view, 'JOIN')} WHERE {self._delete_case()}"
        )
        return int(engine.sql(query).count())


def _spark(node: Optional[exp.Expression]) -> str:
    if node is None:
        return "true"
    return expression_to_spark(node)


def merge_plan(tree: exp.Expression, columns: List[str], statement: str) -> MergePlan:
    """The :class:`MergePlan` of a parsed MERGE on a table with ``columns``."""
    using = tree.args["using"]
    matched: List[tuple] = []
    insert = None
    for when in tree.args["whens"].expressions:
        then, cond = when.args.get("then"), _spark(when.args.get("condition"))
        if when.args.get("matched") and isinstance(then, exp.Update):
            sets = {e.this.name.lower(): _spark(e.expression) for e in then.expressions}
            matched.append((cond, sets))
        elif (
            when.args.get("matched") and isinstance(then, exp.Var) and then.name.lower() == "delete"
        ):
            matched.append((cond, None))
        elif not when.args.get("matched") and isinstance(then, exp.Insert) and insert is None:
            names = (
                [c.name.lower() for c in then.this.expressions]
                if then.this
                else [c.lower() for c in columns]
            )
            values = [_spark(v) for v in then.expression.expressions]
            insert = (cond, dict(zip(names, values)))
        else:
            raise Untranslatable(f"merge clause '{when.sql(DIALECT)}'", statement)
    return MergePlan(
        columns,
        tree.this.alias_or_name,
        using.alias_or_name,
        _spark(tree.args["on"]),
        matched,
        insert,
    )
