"""The few Athena SQL statements a dbt run of Python models depends on, applied to Glue.

moto accepts every ``StartQueryExecution`` and runs nothing. dbt-athena's table and
incremental materializations use SQL for schema creation, renames and the incremental
``insert into``, so without these the tables Spark writes would drift from what dbt sees.
Applied here, on the local account's Glue of the emulator that serves the request:

* ``create schema [if not exists] <db>`` / ``drop schema [if exists] <db> [cascade]``
* ``drop table [if exists] <db>.<table>``
* ``alter table <db>.<table> rename to <db>.<table>``
* ``insert into <rel> (<cols>) (select <cols> from <rel>)`` (dbt-athena's
  ``incremental_insert``): executed with Spark, only when the Spark executor is active.

Identifiers may be quoted with ``"`` or backticks and may carry the ``awsdatacatalog``
part. Statements on other catalogs and all other SQL keep moto's behaviour, and so does
everything while the instant executor (no Spark) is active. A statement
that fails here ends its query execution in ``FAILED`` with the reason.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, List, Optional, Pattern, Tuple

from athena_spark_emulator import backend as backend_module
from athena_spark_emulator import catalog as catalog_module
from athena_spark_emulator.backend import EmulatorBackend
from athena_spark_emulator.catalog import Catalog, TableRef, glue_name

_IDENT = r'(?:"(?:[^"]|"")*"|`(?:[^`]|``)*`|[A-Za-z0-9_][\w$-]*)'
_CHAIN = rf"{_IDENT}(?:\s*\.\s*{_IDENT})*"
_COLS = rf"{_IDENT}(?:\s*,\s*{_IDENT})*"

_CREATE_SCHEMA = re.compile(
    rf"\s*create\s+(?:schema|database)\s+(?:if\s+not\s+exists\s+)?({_CHAIN})", re.I
)
_DROP_SCHEMA = re.compile(rf"\s*drop\s+(?:schema|database)\s+(?:if\s+exists\s+)?({_CHAIN})", re.I)
_DROP_TABLE = re.compile(rf"\s*drop\s+table\s+(?:if\s+exists\s+)?({_CHAIN})\s*;?\s*$", re.I)
_RENAME = re.compile(rf"\s*alter\s+table\s+({_CHAIN})\s+rename\s+to\s+({_CHAIN})\s*;?\s*$", re.I)
_INSERT = re.compile(
    rf"\s*insert\s+into\s+({_CHAIN})\s*\(\s*({_COLS})\s*\)\s*\(?\s*select\s+({_COLS})\s+from\s+({_CHAIN})\s*\)?\s*;?\s*$",
    re.I,
)


def split_identifiers(text: str) -> List[str]:
    parts = re.findall(_IDENT, text)
    out = []
    for part in parts:
        if part.startswith('"'):
            out.append(part[1:-1].replace('""', '"'))
        elif part.startswith("`"):
            out.append(part[1:-1].replace("``", "`"))
        else:
            out.append(part)
    return out


def _local(parts: List[str], want: int) -> Optional[List[str]]:
    """Drop a leading awsdatacatalog; None when the name is on another catalog."""
    if len(parts) == want + 1:
        if parts[0].lower() != "awsdatacatalog":
            return None
        parts = parts[1:]
    return parts if len(parts) == want else None


def _table(catalog: Catalog, text: str) -> Optional[TableRef]:
    parts = _local(split_identifiers(text), 2)
    if parts is None:
        return None
    return TableRef(catalog.local_account, glue_name(parts[0]), glue_name(parts[1]))


SparkRunner = Callable[[Callable[[Any], Any]], Any]


def _spark_runner(backend: EmulatorBackend) -> Optional[SparkRunner]:
    return getattr(backend.calculations.executor, "run_with_spark", None)


def _insert(
    catalog: Catalog, target: TableRef, columns: List[str], source: TableRef
) -> Callable[[Any], None]:
    def run(spark: Any) -> None:
        from pyspark.sql import functions as F

        from athena_spark_emulator.spark_executor import read_table

        meta = catalog.get_table(target)
        types = dict(catalog_module.columns_of(meta))
        df = read_table(spark, catalog, source).select(
            *[F.col(f"`{c}`").cast(types.get(c, "string")).alias(c) for c in columns]
        )
        classification = (meta.get("Parameters") or {}).get("classification", "parquet")
        location = meta["StorageDescriptor"]["Location"]
        df.write.mode("append").format(classification).save(catalog.local_uri(location))
        catalog.sync_to_s3(location, target.account)

    return run


_LEADING_COMMENT = re.compile(r"\A\s*(?:/\*.*?\*/|--[^\n]*(?:\n|\Z))", re.S)
_TRAILING_COMMENT = re.compile(r"(?:/\*(?:(?!\*/).)*\*/|--[^\n'\"`]*)\s*\Z", re.S)


def strip_comments(query: str) -> str:
    """Remove dbt's query comment (and any other) before and after the statement."""
    while True:
        stripped = _TRAILING_COMMENT.sub("", _LEADING_COMMENT.sub("", query))
        if stripped == query:
            return query.strip()
        query = stripped


# ---- one function per statement: (backend, match) -> applied? --------------------------
def _create_schema(backend: EmulatorBackend, match: re.Match[str]) -> bool:
    parts = _local(split_identifiers(match.group(1)), 1)
    if parts is None:
        return False
    backend.catalog.ensure_database(backend.catalog.local_account, parts[0])
    return True


def _drop_schema(backend: EmulatorBackend, match: re.Match[str]) -> bool:
    parts = _local(split_identifiers(match.group(1)), 1)
    if parts is None:
        return False
    glue = catalog_module.glue_backend(backend.catalog.local_account)
    glue.databases.pop(glue_name(parts[0]), None)
    return True


def _drop_table(backend: EmulatorBackend, match: re.Match[str]) -> bool:
    ref = _table(backend.catalog, match.group(1))
    if ref is None:
        return False
    backend.catalog.drop_table(ref)
    return True


def _rename_table(backend: EmulatorBackend, match: re.Match[str]) -> bool:
    source, target = (
        _table(backend.catalog, match.group(1)),
        _table(backend.catalog, match.group(2)),
    )
    if source is None or target is None:
        return False
    backend.catalog.rename_table(source, target)
    return True


def _insert_into(backend: EmulatorBackend, match: re.Match[str]) -> bool:
    catalog = backend.catalog
    target, source = _table(catalog, match.group(1)), _table(catalog, match.group(4))
    runner = _spark_runner(backend)
    if target is None or source is None or runner is None:
        return False
    target_cols = split_identifiers(match.group(2))
    source_cols = split_identifiers(match.group(3))
    if [c.lower() for c in target_cols] != [c.lower() for c in source_cols]:
        raise ValueError("the emulator only runs insert into ... select of the same columns")
    runner(_insert(catalog, target, target_cols, source))
    return True


STATEMENTS: Tuple[Tuple[Pattern[str], Callable[[EmulatorBackend, re.Match[str]], bool]], ...] = (
    (_CREATE_SCHEMA, _create_schema),
    (_DROP_SCHEMA, _drop_schema),
    (_DROP_TABLE, _drop_table),
    (_RENAME, _rename_table),
    (_INSERT, _insert_into),
)


def apply(query: str, backend: Optional[EmulatorBackend] = None) -> bool:
    """Apply ``query`` to the emulated Glue catalog; True when it was one of ours."""
    backend = backend or backend_module.default()
    query = strip_comments(query)
    for pattern, handler in STATEMENTS:
        match = pattern.match(query)
        if match:
            return handler(backend, match)
    return False


# ---- the moto hooks (installed by hooks.py while an emulator runs) ------------------------
def start_query_execution(
    original: Callable[..., str], athena: Any, query: str, *args: Any, **kwargs: Any
) -> str:
    """moto's AthenaBackend.start_query_execution, then :func:`apply` in Spark mode."""
    exec_id = original(athena, query, *args, **kwargs)
    backend = backend_module.current()
    if backend is None or _spark_runner(backend) is None:
        return exec_id  # not an emulator request, or the instant executor: moto's behaviour
    backend.sql.seen.append(query)
    try:
        if apply(query, backend):
            backend.sql.applied.append(query)
    except Exception as exc:  # the query fails, as Athena's would
        backend.sql.failures[exec_id] = f"{type(exc).__name__}: {exc}"
        athena.executions[exec_id].status = "FAILED"
    return exec_id


def get_query_execution(original: Callable[[Any], Any], response: Any) -> Any:
    """moto's AthenaResponse.get_query_execution with the reason of a failed statement."""
    body = original(response)
    backend = backend_module.current()
    if backend is None:
        return body
    reason = backend.sql.failures.get(response._get_param("QueryExecutionId"))
    if reason and isinstance(body, str):
        data = json.loads(body)
        data["QueryExecution"]["Status"]["StateChangeReason"] = reason
        data["QueryExecution"]["Status"]["State"] = "FAILED"
        return json.dumps(data)
    return body


def __getattr__(name: str) -> Any:
    """Compatibility: the module-level lists of earlier versions, now per emulator
    (``emulator.backend.sql``); these read the running emulator's."""
    aliases = {"FAILURES": "failures", "APPLIED": "applied", "SEEN": "seen"}
    if name in aliases:
        return getattr(backend_module.default().sql, aliases[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
