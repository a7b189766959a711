"""``information_schema.schemata`` / ``.tables`` / ``.columns`` / ``.views`` of a catalog, as
Athena answers them (dbt packages list relations and columns through them): one row per
Glue database, table or column of the catalog's account, types named as Athena names them
(``varchar``, ``integer``, ``timestamp(3)`` for a Hive table, ``timestamp(6)`` for an
Iceberg one), partition keys after the columns with ``extra_info`` ``partition key``.

Another table of ``information_schema`` fails with ``NOT_SUPPORTED`` naming it; the
information schema's own tables are not listed in ``tables`` and ``columns``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from athena_spark_emulator.accounts import glue_types
from athena_spark_emulator.accounts.catalog import glue_backend, is_iceberg

SCHEMA = "information_schema"

#: Each table: its columns as Spark DDL (what the temporary view is created with).
TABLES: Dict[str, str] = {
    "schemata": "catalog_name string, schema_name string",
    "tables": "table_catalog string, table_schema string, table_name string, table_type string",
    "columns": (
        "table_catalog string, table_schema string, table_name string, column_name string, "
        "ordinal_position bigint, column_default string, is_nullable string, "
        "data_type string, comment string, extra_info string"
    ),
    "views": "table_catalog string, table_schema string, table_name string, view_definition string",
}


def _athena_type(text: str, precision: int) -> str:
    try:
        return glue_types.athena_type(glue_types.parse(text), precision)
    except glue_types.GlueTypeError:
        return text  # a view's column, already named as Athena names it


def _columns(catalog: str, database: str, name: str, table: Dict[str, Any]) -> List[Tuple]:
    precision = 6 if is_iceberg(table) else 3
    storage = table.get("StorageDescriptor") or {}
    described: List[Tuple[Dict[str, Any], Optional[str]]]
    described = [(c, None) for c in storage.get("Columns") or []]
    described += [(c, "partition key") for c in table.get("PartitionKeys") or []]
    return [
        (catalog, database, name, column["Name"], position, None, "YES",
         _athena_type(str(column.get("Type", "")), precision), column.get("Comment"), extra)
        for position, (column, extra) in enumerate(described, 1)
    ]  # fmt: skip


def rows(table: str, catalog: str, account: str) -> Optional[List[Tuple]]:
    """The rows of ``information_schema.<table>`` of ``catalog`` (whose Glue is ``account``'s),
    or None for a table this module does not answer."""
    if table not in TABLES:
        return None
    found: List[Tuple] = []
    databases = glue_backend(account).databases
    for database in sorted(databases):
        if table == "schemata":
            found.append((catalog, database))
            continue
        for name in sorted(databases[database].tables):
            entry = databases[database].tables[name].as_dict()
            view = str(entry.get("TableType", "")).upper() == "VIRTUAL_VIEW"
            if table == "tables":
                found.append((catalog, database, name, "VIEW" if view else "BASE TABLE"))
            elif table == "views" and view:
                found.append((catalog, database, name, entry.get("ViewOriginalText")))
            elif table == "columns":
                found.extend(_columns(catalog, database, name, entry))
    if table == "schemata":
        found.append((catalog, SCHEMA))
    return found
