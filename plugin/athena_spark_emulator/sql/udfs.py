"""Small implementations of Athena functions that Spark SQL has no form for, run as Python
UDFs in the session Athena SQL statements run in (aws/queries.py: sql_session).

An entry of the function table (functions/table.py) that needs one renders a call to
``athena_<name>(...)`` (:func:`udf_call`); the function itself is registered here with
:func:`udf` and its Spark return type. Each is a pure Python function of Python values (None
for NULL), testable without Spark.

A function that fails where Athena fails raises :class:`AthenaError` with Athena's error
text (``INVALID_FUNCTION_ARGUMENT: ...``); aws/queries.py reports that text, not Python's
traceback. ``try(...)`` around such a call returns NULL through the ``try_`` twin that
:func:`udf` registers (``athena_try_<name>``), as Athena's ``try`` does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Dict

from sqlglot import exp

#: The prefix of Spark's function names for these UDFs.
PREFIX = "athena_"
#: What marks an Athena error in the text of a failed Python UDF (aws/queries.py: _reason).
ERROR_MARK = "ATHENA_ERROR<<"
ERROR_END = ">>"


class AthenaError(Exception):
    """Athena's own failure of a function (``text`` is Athena's error message)."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__(f"{ERROR_MARK}{text}{ERROR_END}")


class Unsupported(Exception):
    """A value a UDF cannot answer as Athena would: the query fails NOT_SUPPORTED (``try``
    does not turn it into NULL, as it is no failure of Athena's)."""

    def __init__(self, text: str) -> None:
        super().__init__(
            f"{ERROR_MARK}NOT_SUPPORTED: the Athena emulator cannot run {text}{ERROR_END}"
        )


@dataclass(frozen=True)
class Udf:
    name: str  # Spark's name for it (athena_<name>)
    fn: Callable[..., Any]
    returns: str  # Spark's DDL type of its result


UDFS: Dict[str, Udf] = {}


def udf(name: str, returns: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register ``fn`` as the UDF ``athena_<name>`` returning ``returns`` (a Spark DDL type,
    e.g. ``"string"``, ``"array<bigint>"``), and its NULL-on-error twin
    ``athena_try_<name>`` for ``try(...)``."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        spark_name = PREFIX + name
        if spark_name in UDFS:
            raise ValueError(f"two UDFs named {spark_name}")

        def safe(*args: Any) -> Any:
            try:
                return fn(*args)
            except AthenaError:
                return None

        UDFS[spark_name] = Udf(spark_name, fn, returns)
        UDFS[PREFIX + "try_" + name] = Udf(PREFIX + "try_" + name, safe, returns)
        return fn

    return register


def udf_call(name: str, *args: exp.Expression) -> exp.Expression:
    """The Spark call of the UDF registered as ``name``."""
    if PREFIX + name not in UDFS:
        raise KeyError(f"no UDF named {name!r} (register it with @udf)")
    return exp.Anonymous(this=PREFIX + name, expressions=list(args))


def try_form(node: exp.Expression) -> exp.Expression:
    """``node`` (a UDF call) as its NULL-on-error twin, for ``try(...)``; others unchanged."""
    if isinstance(node, exp.Anonymous):
        name = str(node.name)
        if name.startswith(PREFIX) and not name.startswith(PREFIX + "try_"):
            twin = PREFIX + "try_" + name[len(PREFIX) :]
            if twin in UDFS:
                return exp.Anonymous(this=twin, expressions=node.expressions)
    return node


def athena_error(text: str) -> str:
    """Athena's error text inside a failed statement's Spark/Python error, or ''."""
    start = text.find(ERROR_MARK)
    if start < 0:
        return ""
    end = text.find(ERROR_END, start)
    return text[start + len(ERROR_MARK) : end if end >= 0 else None]


_CALLED = re.compile(rf"\b({PREFIX}\w+)\s*\(", re.IGNORECASE)


def register_used(session: Any, spark_sql: str) -> None:
    """Register on ``session`` (a SparkSession) the UDFs ``spark_sql`` calls that it does not
    have yet. Registering is a few dozen JVM calls per UDF (all 140 at once took 4-6 s), so
    a session gets only the ones its statements use, each once."""
    if PREFIX not in spark_sql.lower():
        return
    registered = session.__dict__.setdefault("_athena_udfs", set())
    for name in {m.group(1).lower() for m in _CALLED.finditer(spark_sql)} - registered:
        item = UDFS.get(name)
        if item is not None:
            session.udf.register(item.name, item.fn, item.returns)
            registered.add(name)
