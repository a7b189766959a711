"""Window functions (Trino's ``functions/window.md``): the ranking and value functions, as
sqlglot renders them for Spark. Aggregates over a window are aggregate.py's. Examples:
``tests/conformance/examples/window.yml``.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import same

_cls: Any
_name: str


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.RowNumber, "row_number"),
    (exp.Rank, "rank"),
    (exp.DenseRank, "dense_rank"),
    (exp.Lag, "lag"),
    (exp.Lead, "lead"),
    (exp.FirstValue, "first_value"),
    (exp.LastValue, "last_value"),
    (exp.NthValue, "nth_value"),
    (exp.PercentRank, "percent_rank"),
    (exp.CumeDist, "cume_dist"),
    (exp.Ntile, "ntile"),
):
    same(_cls, _name)
