"""The one table of the SQL statements the emulator runs itself, keyed by dialect and kind.

Every statement the emulator answers instead of passing it on is picked from
:data:`HANDLERS` by ``(dialect, kind)``, the way moto picks a response method by action
name and sqlglot keys its parsers by expression class:

* ``("athena", kind)``: a ``StartQueryExecution`` statement, ``kind`` being
  ``sql.syntax.statement_kind`` of its sqlglot tree (``SELECT``, ``CREATE TABLE AS``, ...);
  the handlers are in ``sql/statements.py``. A kind without a handler fails the query.
* ``("spark", kind)``: ``spark.sql(...)`` inside a calculation, ``kind`` being the class of
  Spark's parsed logical plan (``ShowTableProperties``, ``CreateTableAsSelect USING
  iceberg``); the handlers are in ``spark_catalogs.py``. A kind without a handler is run by
  real Spark.

Adding a statement is one function, registered with ``HANDLERS.register(dialect, kind)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

ATHENA = "athena"
SPARK = "spark"
DIALECTS = (ATHENA, SPARK)


@dataclass(frozen=True)
class Handler:
    run: Callable[..., Any]
    needs_spark: bool = True  # reads or writes data (else: Glue metadata only)


class HandlerTable:
    def __init__(self) -> None:
        self._handlers: Dict[Tuple[str, str], Handler] = {}

    def register(
        self, dialect: str, kinds: Sequence[str], needs_spark: bool = True
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        if dialect not in DIALECTS:
            raise ValueError(f"unknown dialect {dialect!r}: one of {DIALECTS}")

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            for kind in kinds:
                if (dialect, kind) in self._handlers:
                    raise ValueError(f"two handlers for the {dialect} statement kind {kind!r}")
                self._handlers[(dialect, kind)] = Handler(fn, needs_spark)
            return fn

        return register

    def find(self, dialect: str, kind: str) -> Optional[Handler]:
        return self._handlers.get((dialect, kind))

    def kinds(self, dialect: str) -> Dict[str, Handler]:
        """``{kind: handler}`` of one dialect."""
        return {k: h for (d, k), h in self._handlers.items() if d == dialect}


HANDLERS = HandlerTable()
