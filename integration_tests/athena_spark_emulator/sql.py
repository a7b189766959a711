"""The few Athena SQL statements a dbt run of Python models depends on, applied to Glue.

moto accepts every ``StartQueryExecution`` and runs nothing. dbt-athena's table and
incremental materializations use SQL for schema creation, renames and the incremental
``insert into``, so without these the tables Spark writes would drift from what dbt sees.
Applied here, on the local account's Glue (``catalog.CATALOG``):

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
from typing import Any, Callable, Dict, List, Optional

from moto.athena.models import AthenaBackend
from moto.athena.responses import AthenaResponse

from athena_spark_emulator import catalog as catalog_module
from athena_spark_emulator.catalog import TableRef, glue_name

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

_original_start = AthenaBackend.start_query_execution
_original_get = AthenaResponse.get_query_execution
FAILURES: Dict[str, str] = {}
APPLIED: List[str] = []  # statements applied here, in order (for tests)
SEEN: List[str] = []  # every statement seen while the Spark executor was active


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


def _table(text: str) -> Optional[TableRef]:
    parts = _local(split_identifiers(text), 2)
    if parts is None:
        return None
    return TableRef(catalog_module.CATALOG.local_account, glue_name(parts[0]), glue_name(parts[1]))


def _spark_runner() -> Optional[Callable[[Callable[[Any], Any]], Any]]:
    from athena_spark_emulator import calculations

    return getattr(calculations.STORE.executor, "run_with_spark", None)


def _insert(target: TableRef, columns: List[str], source: TableRef) -> Callable[[Any], None]:
    def run(spark: Any) -> None:
        from pyspark.sql import functions as F

        from athena_spark_emulator.spark_executor import read_table

        catalog = catalog_module.CATALOG
        meta = catalog.get_table(target)
        types = dict(catalog_module.columns_of(meta))
        df = read_table(spark, catalog, source).select(
            *[F.col(f"`{c}`").cast(types.get(c, "string")).alias(c) for c in columns]
        )
        classification = (meta.get("Parameters") or {}).get("classification", "parquet")
        location = catalog.local_uri(meta["StorageDescriptor"]["Location"])
        df.write.mode("append").format(classification).save(location)

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


def apply(query: str) -> bool:
    """Apply ``query`` to the emulated Glue catalog; True when it was one of ours."""
    query = strip_comments(query)
    catalog = catalog_module.CATALOG
    local = catalog.local_account
    match = _CREATE_SCHEMA.match(query)
    if match:
        parts = _local(split_identifiers(match.group(1)), 1)
        if parts is None:
            return False
        catalog.ensure_database(local, parts[0])
        return True
    match = _DROP_SCHEMA.match(query)
    if match:
        parts = _local(split_identifiers(match.group(1)), 1)
        if parts is None:
            return False
        catalog_module.glue_backend(local).databases.pop(glue_name(parts[0]), None)
        return True
    match = _DROP_TABLE.match(query)
    if match:
        ref = _table(match.group(1))
        if ref is None:
            return False
        catalog.drop_table(ref)
        return True
    match = _RENAME.match(query)
    if match:
        source, target = _table(match.group(1)), _table(match.group(2))
        if source is None or target is None:
            return False
        catalog.rename_table(source, target)
        return True
    match = _INSERT.match(query)
    if match:
        target, source = _table(match.group(1)), _table(match.group(4))
        runner = _spark_runner()
        if target is None or source is None or runner is None:
            return False
        target_cols = split_identifiers(match.group(2))
        source_cols = split_identifiers(match.group(3))
        if [c.lower() for c in target_cols] != [c.lower() for c in source_cols]:
            raise ValueError("the emulator only runs insert into ... select of the same columns")
        runner(_insert(target, target_cols, source))
        return True
    return False


def _start_query_execution(self: AthenaBackend, query: str, *args: Any, **kwargs: Any) -> str:
    exec_id = _original_start(self, query, *args, **kwargs)
    if _spark_runner() is None:  # the instant executor keeps moto's behaviour exactly
        return exec_id
    SEEN.append(query)
    try:
        if apply(query):
            APPLIED.append(query)
    except Exception as exc:  # the query fails, as Athena's would
        FAILURES[exec_id] = f"{type(exc).__name__}: {exc}"
        self.executions[exec_id].status = "FAILED"
    return exec_id


def _get_query_execution(self: AthenaResponse) -> Any:
    body = _original_get(self)
    reason = FAILURES.get(self._get_param("QueryExecutionId"))
    if reason and isinstance(body, str):
        data = json.loads(body)
        data["QueryExecution"]["Status"]["StateChangeReason"] = reason
        data["QueryExecution"]["Status"]["State"] = "FAILED"
        return json.dumps(data)
    return body


def install() -> None:
    """Route moto's StartQueryExecution through :func:`apply` (idempotent)."""
    AthenaBackend.start_query_execution = _start_query_execution  # type: ignore[method-assign]
    AthenaResponse.get_query_execution = _get_query_execution  # type: ignore[method-assign]


def uninstall() -> None:
    AthenaBackend.start_query_execution = _original_start  # type: ignore[method-assign]
    AthenaResponse.get_query_execution = _original_get  # type: ignore[method-assign]
