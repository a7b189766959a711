"""``dbt run --sample`` (dbt-core >= 1.10): the event_time window of a ref/source, for Spark.

In sample mode dbt renders a ref or source whose node has ``event_time`` as a filtered
subquery, ``(select * from "cat"."sch"."tbl" where cast(ts as timestamp) >= timestamp
'<start>' and cast(ts as timestamp) < timestamp '<end>')`` (dbt-athena's form). The package
reads the owner's table and applies the same window in Spark, so ``--sample`` means the
same in Python models as in SQL ones. The column and the bounds come from the relation's
``event_time_filter`` (what dbt rendered them from), checked here: the column must be a
column name (plain, or quoted with ``"``/backticks), which is then Spark-quoted; the bounds
must be timestamps. The generated code compares with them as data (``F.col``, ``F.lit``),
never as SQL text. Pure; no dbt.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Dict, Mapping, Optional, Sequence

from dbt_athena_cross_account.names import spark_quote

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUOTED = {'"': re.compile(r'"((?:[^"]|"")+)"'), "`": re.compile(r"`((?:[^`]|``)+)`")}

BAD_COLUMN = "dbt_athena_cross_account: model '{model}' reads {label} under dbt --sample, whose event_time is {value}, which is not a column name, so the sample window cannot be applied in Spark. Fix: set event_time to the name of a timestamp column of that table."
BAD_BOUND = "dbt_athena_cross_account: model '{model}' reads {label} under dbt --sample, whose window {edge} {value} is not a timestamp. Fix: pass --sample a window like \"{{'start': '2026-11-01', 'end': '2026-11-08'}}\" or \"3 days\"."
UNKNOWN_FILTER = "dbt_athena_cross_account: model '{model}' reads {label}, which dbt rendered as the filtered subquery {rendered}, but gave no event_time window the package can apply in Spark; reading the whole table would be a silent wrong result, so the model stops here. Fix: run without --sample, or remove spark_cross_account_catalog from the model."


class SampleError(ValueError):
    """A window the package cannot apply; the message names the model and the fix."""


def column_name(field: str) -> Optional[str]:
    """The column a rendered event_time field names (quotes removed), None if not one."""
    field = field.strip()
    if _PLAIN.fullmatch(field):
        return field
    for quote, pattern in _QUOTED.items():
        match = pattern.fullmatch(field)
        if match:
            return match.group(1).replace(quote * 2, quote)
    return None


def _bound(model: str, label: str, edge: str, value: Any) -> Optional[str]:
    if value is None or value == "":
        return None
    try:
        return datetime.fromisoformat(str(value).strip()).isoformat(sep=" ")
    except ValueError:
        raise SampleError(
            BAD_BOUND.format(model=model, label=label, edge=edge, value=repr(value))
        ) from None


def spark_window(
    model: str, label: str, window: Optional[Mapping[str, Any]]
) -> Optional[Dict[str, Optional[str]]]:
    """``{column: Spark-quoted name, start, end}`` (ISO timestamps, None when open), or
    None without a window. Raises SampleError for what cannot be applied."""
    if not window:
        return None
    start = _bound(model, label, "start", window.get("start"))
    end = _bound(model, label, "end", window.get("end"))
    if start is None and end is None:
        return None
    field = str(window.get("column") or "")
    column = column_name(field)
    if column is None:
        raise SampleError(BAD_COLUMN.format(model=model, label=label, value=repr(field)))
    return {"column": spark_quote(column), "start": start, "end": end}


def unapplied_filter(model: str, label: str, keys: Sequence[str]) -> Optional[str]:
    """The error for a read that dbt rendered filtered (``(select ... where ...)``) when no
    window or --empty explains the filter; None when every key is a plain relation."""
    for key in keys:
        text = " ".join(key.split()).lower()
        if text.startswith("(select ") and " where " in text:
            return UNKNOWN_FILTER.format(model=model, label=label, rendered=key)
    return None
