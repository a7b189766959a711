"""An emulator holding a test module's Hive and Iceberg tables and a view over each, built
through the Athena API in a schema of the module's own: emulators of one test process share
their Glue catalog (not their files), so two modules creating the same schema collide;
and the small helpers the modules ask it with."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional

from athena_spark_emulator import Emulator
from tests.emulator.test_athena_semantics import run


def emulator_with_tables(
    schema: str, tables: Dict[str, str], view: str, extra: Optional[List[str]] = None
) -> Iterator[Emulator]:
    """An emulator with ``schema``, the CTAS statements ``tables`` ({kind: statement}) run,
    for each kind a view ``view.format(kind=kind)`` over ``<schema>.<table of kind>``
    (``view`` is the whole CREATE VIEW statement, formatted with ``kind``), then the
    ``extra`` statements."""
    with Emulator(executor="spark") as emulator:
        emulator.prepare()
        for sql in [f"create schema {schema}", *tables.values()]:
            assert run(emulator, sql)[0] == "SUCCEEDED", sql
        for kind in tables:
            statement = view.format(kind=kind)
            assert run(emulator, statement)[0] == "SUCCEEDED", statement
        for sql in extra or []:
            assert run(emulator, sql)[0] == "SUCCEEDED", sql
        yield emulator


def row(emu: Emulator, sql: str) -> List[Optional[str]]:
    """The one row ``sql`` answers (after the header row)."""
    state, found = run(emu, sql)
    assert state == "SUCCEEDED", (sql, found)
    return list(found[1])


def failure(emu: Emulator, sql: str) -> str:
    """The reason ``sql`` failed with."""
    state, reason = run(emu, sql)
    assert state == "FAILED", (sql, reason)
    return str(reason)


def over(source: str, cte: bool, columns: str) -> str:
    """``SELECT columns`` over ``source``, directly or through an import CTE."""
    if cte:
        return f"with s as (select * from {source}) select {columns} from s"
    return f"select {columns} from {source}"
