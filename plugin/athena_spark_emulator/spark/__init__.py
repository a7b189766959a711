"""Spark: the Calculation API's sessions and calculations (``calculations``), the real
local PySpark executor that runs them (``executor``), the session's catalogs, which read an
owner's Glue databases and Iceberg tables as Athena's Glue client would (``catalogs``), and
the JVM shim that a calculation's ``sparkContext._jvm`` calls reach (``jvm``)."""
