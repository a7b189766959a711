"""An Athena query rendered as Spark SQL: the tables it reads replaced by the temporary
views that stand for them, and MERGE planned as Spark queries. Pure: no Spark, no moto.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional

import sqlglot
from sqlglot import exp

from athena_spark_emulator.sql.syntax import DIALECT, Untranslatable


def to_spark(query: exp.Expression, views: Mapping[int, str]) -> str:
    """Spark SQL for ``query``; ``views`` maps ``id(table node)`` to the temporary view
    that stands for it (an unaliased table keeps its own name as alias, so ``t.col``
    still resolves)."""
    copy = query.copy()
    originals = [t for t in query.find_all(exp.Table)]
    copies = [t for t in copy.find_all(exp.Table)]
    for original, node in zip(originals, copies):
        view = views.get(id(original))
        if view is None:
            continue
        alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name))
        node.replace(exp.Table(this=exp.to_identifier(view, quoted=True), alias=alias))
    if copy.find(*_REWRITTEN):
        copy = copy.transform(_for_spark, copy=False)
    try:
        return copy.sql(dialect="spark", unsupported_level=sqlglot.ErrorLevel.RAISE)
    except sqlglot.errors.UnsupportedError as exc:
        raise Untranslatable(
            "a construct Spark SQL has no form for", query.sql(DIALECT), str(exc)
        ) from None


_REWRITTEN = (exp.Try, exp.StrToTime, exp.TimeToStr, exp.StrToDate)
_FORMAT_LITERAL = re.compile(r"(?<!%)([A-Za-z]+)")


def _for_spark(node: exp.Expression) -> exp.Expression:
    """What sqlglot leaves for Spark to refuse, rewritten:

    * Trino's ``try(expr)`` (NULL where ``expr`` fails) is ``expr``: with ANSI mode off, as
      the emulator's session runs, a failed cast or parse is already NULL (dbt-athena's
      seeds wrap each timestamp format in it);
    * a literal letter in a date format (``%Y-%m-%dT%H``) is quoted (``'T'``), as Spark's
      datetime patterns need.
    """
    if isinstance(node, exp.Try):
        return node.this.transform(_for_spark)
    if isinstance(node, (exp.StrToTime, exp.TimeToStr, exp.StrToDate)):
        fmt = node.args.get("format")
        if isinstance(fmt, exp.Literal) and fmt.is_string:
            node.set("format", exp.Literal.string(_FORMAT_LITERAL.sub(r"'\1'", fmt.this)))
    return node


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

    def deleted(self, spark: Any, target_view: str, source_view: str) -> int:
        query = (
            f"SELECT 1 {self._from(target_view, source_view, 'JOIN')} WHERE {self._delete_case()}"
        )
        return int(spark.sql(query).count())


def _spark(node: Optional[exp.Expression]) -> str:
    if node is None:
        return "true"
    return node.copy().transform(_for_spark).sql(dialect="spark")


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
