"""Athena's JSON type and JSON functions (json_parse, json_format, CAST to and from JSON, json_extract*, json_array_*, json_size, json_query, json_value, json_exists, json_object, json_array, ...): each an entry of the function table (functions.py), with a Spark form or a
small implementation (a UDF of udfs.py). Registered when the athena_spark_emulator.sql
package is imported (its __init__)."""

from __future__ import annotations
