"""Athena's query constructs beyond a plain SELECT (GROUPING SETS, CUBE, ROLLUP, grouping(), UNNEST of rows, maps and several arrays, WITH ORDINALITY, quantified subqueries, row.*, VALUES statements) and the array, map and aggregate functions Spark has no form for: each an entry of the function table (functions.py), with a Spark form or a
small implementation (a UDF of udfs.py). Registered when the athena_spark_emulator.sql
package is imported (its __init__)."""

from __future__ import annotations

from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import spark

# ---- GROUPING SETS, CUBE, ROLLUP, grouping() -------------------------------------------------
# Spark's grouping analytics are Trino's: each grouping set (a CUBE or ROLLUP its sets) run
# as a GROUP BY of its columns, the other grouped columns NULL; several grouping elements
# (GROUP BY GROUPING SETS (...), ROLLUP (...)) cross their sets, in both.
same(exp.GroupingSets, "GROUPING SETS")
same(exp.Cube, "CUBE")
same(exp.Rollup, "ROLLUP")


@rewrites(exp.Grouping, "grouping")
def grouping(node: exp.Expression) -> exp.Expression:
    """Trino's grouping(a, b, ...) is a bigint whose bit for an argument (the first the most
    significant) is 1 when that column is not in the row's grouping set: Spark's
    grouping_id(a, b, ...) (bigint too; Spark's grouping() is a tinyint of one column)."""
    return exp.Anonymous(this="grouping_id", expressions=list(node.expressions))
