"""json_table (Trino's ``functions/json.md``, with json.py and json_path.py): PATH and NESTED
PATH columns, the default plan, as Spark's inline of the rows a UDF reads.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.json import JsonSyntaxError, _is_scalar, parse
from athena_spark_emulator.sql.functions.json_cast import (
    CastError,
    _spark_ddl,
    descriptor,
    from_json,
)
from athena_spark_emulator.sql.functions.json_path import PathError, _apply, sql_json_path
from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import call, spark
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call


# ---- json_table ---------------------------------------------------------------------------
def _table_rows(item: Any, schema: dict, lax: bool) -> list:
    """The rows of one COLUMNS schema for a context item, Trino's default plan: the
    parent OUTER its nested paths, sibling nested paths UNION."""
    own = {}
    for column in schema["columns"]:
        if "nested" not in column:
            own[column["name"]] = _column_value(item, column)
    union: list = []
    for column in schema["columns"]:
        if "nested" in column:
            nested_lax, steps = sql_json_path(column["nested"])
            try:
                items = _apply([item], steps, nested_lax)
            except PathError:
                items = []
            for sub in items:
                union.extend(_table_rows(sub, column, nested_lax))
    return [{**own, **row} for row in union] if union else [own]


def _column_value(item: Any, column: dict) -> Any:
    column_lax, steps = sql_json_path(column["path"])
    try:
        found = _apply([item], steps, column_lax)
    except PathError:
        return None  # NULL ON ERROR, the default
    if len(found) != 1 or not _is_scalar(found[0]):
        return None  # NULL ON EMPTY; an error (NULL ON ERROR)
    try:
        return from_json(found[0], column["type"])
    except CastError:
        return None


@udf("json_table", "string")
def json_table(text: Optional[str], spec: str) -> Optional[str]:
    """json_table's rows as a JSON array of objects (for from_json and inline)."""
    if text is None:
        return "[]"
    table = json.loads(spec)
    lax, steps = sql_json_path(table["path"])
    try:
        items = _apply([parse(text)], steps, lax)
    except (PathError, JsonSyntaxError):
        return "[]"  # EMPTY ON ERROR, the default
    try:
        rows = [row for item in items for row in _table_rows(item, table, lax)]
    except Refused as refused:
        raise AthenaError(
            f"NOT_SUPPORTED: the Athena emulator cannot run {refused.construct}"
        ) from None
    return json.dumps(rows, ensure_ascii=False)


def _table_columns(schema: exp.Expression, what: str, names: list) -> list:
    columns = []
    for column in schema.expressions:
        if not isinstance(column, exp.JSONColumnDef):
            raise Refused(what)
        path = column.args.get("path")
        if column.args.get("ordinality") or column.args.get("format_json"):
            raise Refused(f"{what} (FOR ORDINALITY, FORMAT JSON)")
        if not (isinstance(path, exp.Literal) and path.is_string):
            raise Refused(f"{what} (a column without PATH)")
        sql_json_path(path.this)
        nested = column.args.get("nested_schema")
        if nested is not None:
            columns.append({"nested": path.this, "columns": _table_columns(nested, what, names)})
            continue
        kind = descriptor(column.args.get("kind"), what)
        if kind not in ("s", "d", "b") and not (isinstance(kind, list) and kind[0] == "i"):
            raise Refused(f"{what} (a column of type {column.args['kind'].sql('athena')})")
        names.append((column.name, kind))
        columns.append({"name": column.name, "type": kind, "path": path.this})
    return columns


@rewrites(exp.JSONTable, "json_table")
def json_table_(node: exp.Expression) -> exp.Expression:
    what = "json_table"
    path, schema = node.args.get("path"), node.args.get("schema")
    if node.args.get("error_handling") or node.args.get("empty_handling"):
        raise Refused(f"{what} (ON ERROR / ON EMPTY)")
    if not (isinstance(path, exp.Literal) and path.is_string) or schema is None:
        raise Refused(what)
    sql_json_path(path.this)
    names: list = []
    spec = {"path": path.this, "columns": _table_columns(schema, what, names)}
    if len({n.lower() for n, _ in names}) != len(names):
        raise Refused(f"{what} (two columns of one name)")
    ddl = ",".join(f"`{n.lower()}`:{_spark_ddl(k)}" for n, k in names)
    rows = udf_call("json_table", node.this, exp.Literal.string(json.dumps(spec)))
    return call("inline", spark(f"from_json(_0, 'array<struct<{ddl}>>')", rows))
