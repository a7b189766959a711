"""A local stand-in for Athena for Apache Spark: moto's server plus the Calculation API.

* ``server.Emulator``: one loopback endpoint (moto's ThreadedMotoServer) with the Spark
  Calculation API, call counting, latency and error injection.
* ``calculations``: the Calculation API and the instant executor (nothing runs).
* ``spark_executor``: the real local PySpark executor (``Emulator(executor="spark")``).
* ``catalog``: Glue semantics (accounts, grants, separator) over local storage.
* ``sql``: the Athena SQL statements dbt-athena needs applied to Glue (Spark mode only).
* ``seed``: seed catalogs, grants and tables from YAML/JSON or a dict.
* ``demo``: ``make demo``.
"""

from athena_spark_emulator.catalog import LOCAL_ACCOUNT, REGION
from athena_spark_emulator.server import Emulator

__all__ = ["LOCAL_ACCOUNT", "REGION", "Emulator"]
