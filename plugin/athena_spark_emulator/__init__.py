"""A local stand-in for Athena for Apache Spark: moto's server plus the Calculation API.

Install with ``pip install "dbt-athena-cross-account[emulator]"``.

* ``server.Emulator``: one loopback endpoint (moto's ThreadedMotoServer) with the Spark
  Calculation API, call counting (S3 included), latency and error injection.
* ``backend``: the state one emulator owns (``EmulatorBackend``, with ``reset()``).
* ``calculations`` / ``responses``: the Calculation API's state, and the answers to it
  and to the Athena actions moto does not answer as Athena does.
* ``spark_executor``: the real local PySpark executor (``Emulator(executor="spark")``).
* ``catalog``: Glue semantics (accounts, grants, separator) over local storage, mirrored
  into moto's S3.
* ``sql``: the Athena SQL statements dbt-athena needs applied to Glue (Spark mode only).
* ``seed``: seed catalogs, grants and tables from YAML/JSON or a dict (``seed_schema.json``).
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
        from athena_spark_emulator.server import Emulator

        return Emulator
    raise AttributeError(f"module 'athena_spark_emulator' has no attribute {name!r}")
