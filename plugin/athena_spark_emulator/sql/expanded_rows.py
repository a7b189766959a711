"""The columns of a ``VALUES`` or ``UNNEST`` whose rows are row values, typed as Trino
expands them. Pure.

Trino spreads a row value over columns (``RelationPlanner``): ``VALUES ROW(1, 'a'), (2,
'b') t(k, v)`` has two columns, as ``UNNEST(ARRAY[ROW(1, 'a')], ARRAY[2]) t(x, y, z)``
has three (each array of rows gives its fields). sqlglot's type annotation types such a
column as the whole row (``row(x integer, y varchar)``). Each column gets its field's
type here: :func:`spread_row_values` spreads VALUES rows on the copy
translate.annotate types, and :func:`annotate_unnest` (return_types.py) types an UNNEST
as a row named by its alias.
"""

from __future__ import annotations

from typing import Any, List, Optional

from sqlglot import exp

from athena_spark_emulator.sql.spark_forms import type_of

T = exp.DataType.Type
Kinds = List[Optional[exp.DataType]]


def _fields(kind: Optional[exp.DataType]) -> Optional[Kinds]:
    """A row type's field types (None: not a row)."""
    if kind is None or kind.this != T.STRUCT:
        return None
    found: Kinds = []
    for field in kind.expressions:
        sub = field.args.get("kind") if isinstance(field, exp.ColumnDef) else field
        found.append(sub if isinstance(sub, exp.DataType) else None)
    return found


def spread_row_values(tree: exp.Expression) -> None:
    """Each ``VALUES`` row that is one row value (``ROW(1, 'a')``, ``CAST(ROW(...) AS
    row(...))``) where the alias names more columns, as the tuple of its fields (in place:
    translate.annotate calls it on the copy it types, not on the statement)."""
    for values in tree.find_all(exp.Values):
        alias = values.args.get("alias")
        width = len(alias.columns) if isinstance(alias, exp.TableAlias) else 0
        if width < 2:
            continue
        for row in values.expressions:
            items = row.expressions if isinstance(row, exp.Tuple) else [row]
            fields = _row_fields(items[0]) if len(items) == 1 else None
            if fields is not None and len(fields) == width:
                row.replace(exp.Tuple(expressions=fields))


def _row_fields(value: exp.Expression) -> Optional[List[exp.Expression]]:
    """The fields of a row constructor, each cast to its field type where the row is cast."""
    if isinstance(value, exp.Struct):
        return [e.copy() for e in value.expressions]
    to = value.args.get("to") if isinstance(value, exp.Cast) else None
    inner = value.this if isinstance(value, exp.Cast) else None
    kinds = _fields(to) if isinstance(to, exp.DataType) else None
    if not isinstance(inner, exp.Struct) or kinds is None or len(kinds) != len(inner.expressions):
        return None
    return (
        [
            exp.Cast(this=e.copy(), to=k.copy())
            for e, k in zip(inner.expressions, kinds)
            if k is not None
        ]
        if None not in kinds
        else None
    )


def annotate_unnest(annotator: Any, unnest: exp.Unnest) -> None:
    """sqlglot's type of an UNNEST: its first array's element; where the alias names
    several columns, a row of them named by the alias, each of its array's element type or
    of a field of its array's rows (sqlglot then types each column by its name)."""
    alias = unnest.args.get("alias")
    names = [c.name for c in alias.columns] if isinstance(alias, exp.TableAlias) else []
    found: Kinds = []
    for array in unnest.expressions:
        kind = type_of(array)
        item = kind.expressions[0] if kind is not None and kind.this == T.ARRAY else None
        fields = _fields(item)
        found.extend(fields if fields is not None else [item])
    if len(names) < 2 or len(found) != len(names) or None in found:
        annotator._annotate_unnest(unnest)
        return
    columns = [
        exp.ColumnDef(this=exp.to_identifier(n), kind=k.copy())
        for n, k in zip(names, found)
        if k is not None
    ]
    annotator._set_type(unnest, exp.DataType(this=T.STRUCT, expressions=columns, nested=True))
