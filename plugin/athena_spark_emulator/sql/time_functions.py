"""Athena's time zones and time-of-day types (timestamp with time zone, time, AT TIME ZONE, from_iso8601_*, with_timezone, ...) and the date/time functions Spark has no form for: each an entry of the function table (functions.py), with a Spark form or a
small implementation (a UDF of udfs.py). Registered when the athena_spark_emulator.sql
package is imported (its __init__)."""

from __future__ import annotations
