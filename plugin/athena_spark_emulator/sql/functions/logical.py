"""Logical operators (Trino's ``functions/logical.md``): AND, OR, NOT, as sqlglot renders
them for Spark (three-valued logic is the same). Examples:
``tests/conformance/examples/logical.yml``.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import same

_cls: Any
_name: str


# ---- operators ----------------------------------------------------------------
for _cls, _name in (
    (exp.And, "and"),
    (exp.Or, "or"),
    (exp.Not, "not"),
):
    same(_cls, _name)
