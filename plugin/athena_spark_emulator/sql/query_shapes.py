"""Athena's query constructs beyond a plain SELECT (GROUPING SETS, CUBE, ROLLUP, grouping(), UNNEST of rows, maps and several arrays, WITH ORDINALITY, quantified subqueries, row.*, VALUES statements) and the array, map and aggregate functions Spark has no form for: each an entry of the function table (functions.py), with a Spark form or a
small implementation (a UDF of udfs.py). Registered when the athena_spark_emulator.sql
package is imported (its __init__)."""

from __future__ import annotations
