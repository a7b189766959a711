"""Conditional expressions (Trino's ``functions/conditional.md``): CASE, if, coalesce,
nullif and try. Examples: ``tests/conformance/examples/conditional.yml``.
"""

from __future__ import annotations

import re
from typing import Any, Dict

from sqlglot import exp

from athena_spark_emulator.sql import udfs
from athena_spark_emulator.sql.functions.table import rewrites, same
from athena_spark_emulator.sql.spark_forms import call, spark, type_of

_cls: Any
_name: str


# ---- operators ----------------------------------------------------------------
for _cls, _name in ((exp.Case, "case"),):
    same(_cls, _name)


def _is_row(arg: exp.Expression) -> bool:
    kind = type_of(arg)
    return (
        isinstance(arg, (exp.Struct, exp.Tuple))
        or (isinstance(arg, exp.Cast) and arg.to.this == exp.DataType.Type.STRUCT)
        or (kind is not None and kind.this == exp.DataType.Type.STRUCT)
    )


@rewrites(exp.Coalesce, "coalesce")
def coalesce(node: exp.Expression) -> exp.Expression:
    """Trino's coalesce skips a row whose fields are all NULL (as NULL), keeps one with
    some: Spark's to_json of a row leaves NULL fields out, '{}' for all of them."""
    for arg in [node.this, *node.expressions]:
        if _is_row(arg):
            arg.replace(spark("CASE WHEN to_json(_0) = '{}' THEN NULL ELSE _0 END", arg))
    return node


@rewrites(exp.If, "if")
def if_(node: exp.Expression) -> exp.Expression:
    if node.args.get("false") is None:
        node.set("false", exp.Null())
    return node


# try(expr): NULL where Athena's expr fails. Under ANSI mode the Spark forms (already
# translated: the table's rewrites run children first) that can fail are replaced inside it
# by forms that return NULL instead.
_SAFE_BINARY: Dict[type, str] = {
    exp.IntDiv: "CASE WHEN _1 = 0 THEN NULL ELSE _0 DIV _1 END",
    exp.Div: "try_divide(_0, _1)",
    exp.Add: "try_add(_0, _1)",
    exp.Sub: "try_subtract(_0, _1)",
    exp.Mul: "try_multiply(_0, _1)",
}


def _safe(inner: exp.Expression) -> exp.Expression:
    if isinstance(inner, exp.Anonymous) and str(inner.name).startswith(udfs.PREFIX):
        return udfs.try_form(inner)
    if type(inner) is exp.Cast:
        return exp.TryCast(this=inner.this, to=inner.to, safe=True)
    form = _SAFE_BINARY.get(type(inner))
    if form is not None:
        return spark(form, inner.this, inner.expression)
    name = str(inner.name).lower() if isinstance(inner, exp.Anonymous) else ""
    if name == "element_at":
        return exp.Anonymous(this="try_element_at", expressions=inner.expressions)
    if name == "raise_error":
        return exp.Null()
    if isinstance(inner, exp.StrToTime):  # rendered TO_TIMESTAMP(x, '<Spark pattern>')
        pattern = re.search(r"'((?:[^'\\]|\\.)*)'\)$", inner.sql("spark"))
        if pattern:
            text = re.sub(r"\\(.)", r"\1", pattern.group(1))
            return call("try_to_timestamp", inner.this, exp.Literal.string(text))
    return inner


@rewrites(exp.Try, "try")
def try_(node: exp.Expression) -> exp.Expression:
    # children first: a form that replaces a node (try_multiply(...)) keeps the safe
    # forms already made inside it (transform would not look inside the new node)
    tree = node.this
    for inner in reversed(list(tree.walk(bfs=False))):
        new = _safe(inner)
        if new is inner:
            continue
        if inner is tree:
            tree = new
        else:
            inner.replace(new)
    return tree


same(exp.Nullif, "nullif")
