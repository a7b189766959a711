"""Athena's schema changes, as Athena allows them per table format, and ``show columns``.

=====================  =====================================  ================================
statement              Hive table (Glue columns)              Iceberg table (its metadata)
=====================  =====================================  ================================
add columns            appended after the data columns        added (Iceberg schema evolution)
replace columns        the data columns replaced              refused, as Athena refuses it
drop column            refused, as Athena refuses it          dropped
change column          renamed / retyped in Glue only         renamed; type promoted as Iceberg
                       (the files are not rewritten)          allows (int->bigint, float->double,
                                                              decimal widening), else refused
=====================  =====================================  ================================

A Hive table's files keep what they hold: Parquet, ORC and JSON are read by column name,
so a column added reads NULL in the files written before it. An Iceberg table's change is
a real Iceberg schema update (pyiceberg), and Glue's entry follows it, as Athena keeps it.
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from sqlglot import exp

from athena_spark_emulator.accounts import iceberg
from athena_spark_emulator.accounts.catalog import TableRef, is_iceberg
from athena_spark_emulator.sql import commands, syntax
from athena_spark_emulator.sql.statements import (
    Engine,
    Outcome,
    QueryFailed,
    Statement,
    handles,
    handles_command,
)


def _column(node: exp.Expression) -> Tuple[str, str]:
    kind = node.args.get("kind")
    return node.name, syntax.hive_type(kind.sql("hive") if kind else "string")


def _split(entry: dict) -> Tuple[List[Tuple[str, str]], List[Tuple[str, str]]]:
    columns = [(c["Name"], c["Type"]) for c in entry["StorageDescriptor"].get("Columns", [])]
    keys = [(k["Name"], k["Type"]) for k in entry.get("PartitionKeys") or []]
    return columns, keys


def _iceberg_table(engine: Engine, ref: TableRef) -> Any:
    assert engine.catalog.endpoint_url is not None
    return iceberg.load_table(
        engine.catalog.endpoint_url, ref.account, ref.database, ref.table, as_account=ref.account
    )


def _fail_schema_update(ref: TableRef, exc: Exception) -> QueryFailed:
    return QueryFailed(
        f"ICEBERG_COMMIT_ERROR: schema update of {ref.database}.{ref.table} refused: {exc}"
    )


def _name_taken(ref: TableRef, name: str) -> QueryFailed:
    return QueryFailed(
        f"COLUMN_ALREADY_EXISTS: Column '{name.lower()}' already exists in {ref.database}.{ref.table}"
    )


@handles("ALTER TABLE Schema", "ALTER TABLE ColumnDef", spark=False)
def add_columns(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    ref, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    action = tree.args["actions"][0]
    new = [_column(c) for c in (action.expressions if isinstance(action, exp.Schema) else [action])]
    columns, keys = _split(entry)
    taken = {n.lower() for n, _ in columns + keys}
    if is_iceberg(entry):  # Glue keeps dropped columns (iceberg.field.current=false)
        taken = {f.name.lower() for f in _iceberg_table(engine, ref).schema().fields}
    for name, _ in new:
        if name.lower() in taken:
            raise _name_taken(ref, name)
        taken.add(name.lower())
    if is_iceberg(entry):
        table = _iceberg_table(engine, ref)
        try:
            with table.update_schema(case_sensitive=False) as update:
                for name, kind in new:
                    update.add_column(name.lower(), iceberg.iceberg_type(kind))
        except ValueError as exc:
            raise _fail_schema_update(ref, exc) from None
        return Outcome()
    engine.catalog.set_columns(ref, columns + [(n.lower(), t) for n, t in new])
    return Outcome()


@handles("ALTER TABLE ReplaceColumns", spark=False)
def replace_columns(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    ref, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    if is_iceberg(entry):
        raise QueryFailed(
            f"NOT_SUPPORTED: ALTER TABLE REPLACE COLUMNS is not supported for Iceberg tables "
            f"({ref.database}.{ref.table}): use ADD COLUMNS, DROP COLUMN and CHANGE COLUMN"
        )
    new = [_column(c) for c in tree.args["actions"][0].expressions]
    _, keys = _split(entry)
    names = [n.lower() for n, _ in new]
    clash = sorted(
        {n for n in names if names.count(n) > 1} | (set(names) & {k.lower() for k, _ in keys})
    )
    if clash:
        raise _name_taken(ref, clash[0])
    engine.catalog.set_columns(ref, [(n.lower(), t) for n, t in new])
    return Outcome()


@handles("ALTER TABLE Drop", spark=False)
def drop_column(engine: Engine, statement: Statement) -> Outcome:
    tree = statement.tree
    action = tree.args["actions"][0]
    if str(action.args.get("kind") or "").upper() != "COLUMN":
        raise syntax.Untranslatable("alter table ... drop other than a column", statement.text)
    ref, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    if not is_iceberg(entry):
        raise QueryFailed(
            f"NOT_SUPPORTED: ALTER TABLE DROP COLUMN is not supported for Hive tables "
            f"({ref.database}.{ref.table}; Athena drops columns of Iceberg tables only): use "
            "ALTER TABLE REPLACE COLUMNS with the columns to keep"
        )
    names = [c.name for c in action.args.get("tables") or []]
    table = _iceberg_table(engine, ref)
    current = {f.name.lower() for f in table.schema().fields}
    for name in names:
        if name.lower() not in current:
            raise QueryFailed(
                f"COLUMN_NOT_FOUND: Column '{name.lower()}' does not exist in {ref.database}.{ref.table}"
            )
    try:
        with table.update_schema(case_sensitive=False) as update:
            for name in names:
                update.delete_column(name.lower())
    except ValueError as exc:
        raise _fail_schema_update(ref, exc) from None
    return Outcome()


@handles("ALTER TABLE AlterColumn", spark=False)
def change_column(engine: Engine, statement: Statement) -> Outcome:
    """``alter table t change [column] old new type [comment '...']``."""
    tree = statement.tree
    action = tree.args["actions"][0]
    dtype = action.args.get("dtype")
    if dtype is None:
        raise syntax.Untranslatable("alter table ... alter column without a type", statement.text)
    old = action.this.name
    new = (action.args.get("rename_to") or action.this).name
    kind = syntax.hive_type(dtype.sql("hive"))
    ref, entry = engine.existing(tree.this, statement, "glue:UpdateTable")
    columns, keys = _split(entry)
    if is_iceberg(entry):  # its current schema (Glue keeps dropped columns too)
        columns = [(f.name, "") for f in _iceberg_table(engine, ref).schema().fields]
    names = [n.lower() for n, _ in columns]
    if old.lower() not in names:
        where = "a partition key" if old.lower() in {k.lower() for k, _ in keys} else "no column"
        raise QueryFailed(
            f"COLUMN_NOT_FOUND: Column '{old.lower()}' is {where} of {ref.database}.{ref.table}"
        )
    if new.lower() != old.lower() and new.lower() in names + [k.lower() for k, _ in keys]:
        raise _name_taken(ref, new)
    if is_iceberg(entry):
        table = _iceberg_table(engine, ref)
        try:
            with table.update_schema(case_sensitive=False) as update:
                current = table.schema().find_field(old.lower(), case_sensitive=False)
                wanted = iceberg.iceberg_type(kind)
                if current.field_type != wanted:
                    update.update_column(old.lower(), field_type=wanted)
                if new.lower() != old.lower():
                    update.rename_column(old.lower(), new.lower())
        except (ValueError, TypeError) as exc:
            raise _fail_schema_update(ref, exc) from None
        return Outcome()
    at = names.index(old.lower())
    columns[at] = (new.lower(), kind)
    engine.catalog.set_columns(ref, columns)
    return Outcome()


@handles_command("SHOW COLUMNS")
def show_columns(engine: Engine, statement: Statement, command: commands.Command) -> Outcome:
    """One row per column, in order (a Hive table's partition keys last), as Athena lists
    them (a column ``field``, no header row)."""
    ref = engine.ref(command.name, statement)
    try:
        engine.catalog.check_access(ref, "glue:GetTable", caller=engine.caller)
    except Exception as exc:
        raise QueryFailed(f"ACCESS_DENIED: {exc}") from None
    entry = engine.glue_entry(ref, f"{ref.database}.{ref.table}")
    if is_iceberg(entry):
        names: Sequence[str] = [f.name for f in _iceberg_table(engine, ref).schema().fields]
    else:
        columns, keys = _split(entry)
        names = [n for n, _ in columns + keys]
    return Outcome("UTILITY", [("field", "varchar")], [[n] for n in names])
