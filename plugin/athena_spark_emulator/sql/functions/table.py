"""The one table of the Athena SQL the emulator runs: every function, operator, type and
construct of a query, keyed by its sqlglot node (or, for a function sqlglot keeps as
``Anonymous``, by its Athena name), each with its Spark form.

An entry either trusts sqlglot's Spark rendering (``same``: checked against Trino's
documented results in tests/conformance/), or rewrites the node into a Spark expression
with Athena's (Trino's) semantics (``@rewrites``). What is not in the table is refused:
the query fails ``NOT_SUPPORTED`` naming the function or construct (translate.py), never
passed on to Spark to answer with Spark's semantics. The entries are registered by the
modules of this package, one per page of Trino's function documentation (see its
``__init__``); adding a function is one entry in its page's module plus its documented
examples in ``tests/conformance/examples/<page>.yml``.

The Spark session that runs a statement has ``spark.sql.ansi.enabled=true``, so
invalid casts, division by zero, integer and decimal overflow, subscripts out of range
and missing map keys fail as on Athena; ``try``, ``try_cast`` and ``element_at`` are
rendered with Spark's ``try_*`` forms, which return NULL as Athena's do.

:class:`Hooks` are the per-type cases of a function whose home is one module (cast,
``typeof`` and ``format`` in conversion.py): another page registers its case there with an
explicit priority, so neither the order of imports nor of registration decides which runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, Union

from sqlglot import exp

Rewrite = Callable[[exp.Expression], exp.Expression]
Check = Callable[[exp.Expression], Optional[str]]
Key = Union[type, str]


class Refused(Exception):
    """A construct the emulator does not run: ``construct`` names it, ``why`` says why."""

    def __init__(self, construct: str, why: str = "") -> None:
        self.construct = construct
        self.why = why
        super().__init__(construct)


class Fails(Exception):
    """A statement Athena fails for its own reason (the text Athena gives): the query
    ends FAILED with it, as on Athena, not NOT_SUPPORTED."""


@dataclass(frozen=True)
class Entry:
    name: str  # Athena's name for it, as its documentation lists it
    rewrite: Optional[Rewrite] = None  # None: sqlglot's Spark rendering is Athena's semantics
    check: Optional[Check] = None  # a reason to refuse one use of it (None: runs)


class FunctionTable:
    def __init__(self) -> None:
        self.entries: Dict[Key, Entry] = {}

    def _add(self, key: Key, entry: Entry) -> None:
        if key in self.entries:
            raise ValueError(f"two entries for {key!r}")
        self.entries[key] = entry

    def same(self, key: Key, name: str, check: Optional[Check] = None) -> None:
        """``key`` runs as sqlglot renders it for Spark."""
        self._add(key.lower() if isinstance(key, str) else key, Entry(name, None, check))

    def rewrites(
        self, key: Key, name: str, check: Optional[Check] = None
    ) -> Callable[[Rewrite], Rewrite]:
        def register(fn: Rewrite) -> Rewrite:
            self._add(key.lower() if isinstance(key, str) else key, Entry(name, fn, check))
            return fn

        return register

    def find(self, node: Any) -> Optional[Entry]:
        if isinstance(node, exp.Anonymous):
            return self.entries.get(str(node.name).lower())
        return self.entries.get(type(node))

    def names(self) -> list:
        return sorted({e.name for e in self.entries.values()})


TABLE = FunctionTable()
#: Query shapes whose Spark form lives in query_shapes.py (which fills this in on import):
#: WITH RECURSIVE, CORRESPONDING, row[i].
SHAPES: Dict[str, Callable[..., Any]] = {}
same, rewrites = TABLE.same, TABLE.rewrites


class Hooks:
    """The per-type cases of one function whose home is one module (cast, typeof, format:
    conversion.py), registered by the pages whose values they are. Each case answers None
    when it is not its case; the cases are tried lowest priority first, whatever the
    order they were registered in, and the first answer wins (None: the home's own)."""

    def __init__(self, function: str) -> None:
        self.function = function
        self._cases: Dict[int, Tuple[str, Callable[..., Any]]] = {}
        self.types: Set[Any] = set()  # the types the cases add (a cast's target types)

    def register(
        self, priority: int, name: str, types: Tuple[Any, ...] = ()
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def add(fn: Callable[..., Any]) -> Callable[..., Any]:
            if priority in self._cases:
                other = self._cases[priority][0]
                raise ValueError(f"{self.function}: {name} and {other} at priority {priority}")
            self._cases[priority] = (name, fn)
            self.types.update(types)
            return fn

        return add

    def first(self, *args: Any) -> Any:
        for priority in sorted(self._cases):
            found = self._cases[priority][1](*args)
            if found is not None:
                return found
        return None

    def names(self) -> List[str]:
        return [self._cases[p][0] for p in sorted(self._cases)]


__all__ = ["TABLE", "Entry", "Fails", "FunctionTable", "Hooks", "Refused", "rewrites", "same"]
