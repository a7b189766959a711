"""A local stand-in for Athena for Apache Spark: moto's server plus the Calculation API.

Install with ``pip install "dbt-athena-cross-account[emulator]"``.

The package is grouped by responsibility; no module imports from a folder above its own
(``tests/pure/test_import_graph.py``): ``core`` <- ``accounts`` <- ``spark`` <- ``sql`` <- ``aws``
<- the top-level modules.

* ``Emulator`` (``emulator.py``): one loopback endpoint (moto's ThreadedMotoServer) with the
  Spark Calculation API, call counting (S3 included), latency and error injection.
* ``core/``: what every folder shares: constants, AWS errors, the statement handler table and
  the thread's context (which emulator, request and principal a call is for).
* ``accounts/``: what each emulated account holds and who may read it: Glue semantics
  (accounts, grants, separator) over local storage mirrored into moto's S3 (``catalog``),
  Glue types, Hive partitions, Iceberg tables, IAM roles and STS, seeding (``seed``, with
  ``seed_schema.json``) and ``--data-dir`` persistence.
* ``spark/``: what runs Spark: the Calculation API's state (``calculations``), the real local
  PySpark executor (``Emulator(executor="spark")``), the session's catalogs, the JVM shim.
* ``sql/``: Athena SQL (Trino's dialect) applied to Glue and run on Spark with Athena's
  semantics: parsing, the statement handlers, translation, the function table, results.
* ``aws/``: the AWS front: the HTTP endpoint, moto's hooks, the answers to the Athena calls
  moto does not answer as Athena does (``responses``; SQL queries in ``queries``), the
  control API, and the state one emulator owns (``backend.EmulatorBackend``).
* ``profile``: the dbt profile the emulator serves, and helpers to run dbt against it.
* ``cli``: the ``athena-spark-emulator`` command; ``pytest_plugin``: its pytest fixtures.
* ``demo``: ``make demo``.

Importing this package is cheap: ``Emulator`` (and with it moto) is imported on first use.
"""

from __future__ import annotations

from typing import Any

from athena_spark_emulator.core.constants import LOCAL_ACCOUNT, REGION

__all__ = ["LOCAL_ACCOUNT", "REGION", "Emulator"]


def __getattr__(name: str) -> Any:
    if name == "Emulator":
        from athena_spark_emulator.emulator import Emulator

        return Emulator
    raise AttributeError(f"module 'athena_spark_emulator' has no attribute {name!r}")
