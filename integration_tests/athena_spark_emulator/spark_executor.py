"""The Spark executor: runs each calculation's CodeBlock in one real local PySpark session.

Athena for Apache Spark runs the code dbt-athena submits with ``spark`` bound to a
SparkSession whose catalog is Glue. Here:

* one local SparkSession per process (``local[1]``, 2 shuffle partitions, no UI),
  started on the first calculation and reused; calculations run one at a time;
* ``spark`` is a proxy: ``spark.table(name)`` parses ``name`` with Spark's real parser
  (``sessionState().sqlParser().parseMultipartIdentifier``), resolves it the way Athena's
  Glue client does (``catalog.Catalog.resolve``: the ``<account>/<db>`` form only with the
  separator property, owner grants, AccessDenied text) and reads the table's Glue location
  from local disk. Everything else is the real SparkSession;
* while a calculation runs, ``DataFrameWriter`` maps ``s3://`` option values and paths to
  local directories, and ``saveAsTable("schema.table")`` writes into a local Spark database
  named after the owning account (``acct_123456789012__schema``: Spark's built-in catalog
  rejects ``/``) and registers the table in that account's Glue (moto), as Athena does;
* a failure returns the Python traceback, which becomes the calculation's
  ``StateChangeReason``.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import os
import re
import sys
import threading
import traceback
from typing import Any, Dict, Mapping, Optional, Tuple

from athena_spark_emulator import catalog as catalog_module
from athena_spark_emulator.catalog import Catalog, TableRef, columns_of

_SPARK: Any = None
_SPARK_LOCK = threading.Lock()
_RUN_LOCK = threading.RLock()  # one calculation (or Spark-backed SQL statement) at a time
_CONTEXT = threading.local()
_PATCHED = False
SPARK_SESSIONS_STARTED = 0


def get_spark() -> Any:
    """The process's one local SparkSession, started on first use."""
    global _SPARK, SPARK_SESSIONS_STARTED
    with _SPARK_LOCK:
        if _SPARK is None:
            from pyspark.sql import SparkSession

            warehouse = catalog_module.CATALOG.warehouse / "spark-warehouse"
            _SPARK = (
                SparkSession.builder.master(os.environ.get("EMULATOR_SPARK_MASTER", "local[1]"))
                .appName("athena-spark-emulator")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.default.parallelism", "2")
                .config("spark.sql.warehouse.dir", str(warehouse))
                .config("spark.driver.memory", "1g")
                .config("spark.sql.session.timeZone", "UTC")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.driver.host", "127.0.0.1")  # loopback only
                .config("spark.driver.bindAddress", "127.0.0.1")
                # Python workers (UDFs, pandas) run this interpreter, not python3 from PATH
                .config("spark.pyspark.python", sys.executable)
                .getOrCreate()
            )
            _SPARK.sparkContext.setLogLevel("ERROR")
            SPARK_SESSIONS_STARTED += 1
        return _SPARK


def parse_multipart(spark: Any, name: str) -> list:
    """Spark's own parse of a table name, e.g. "`999999999999/sales`.`orders`"."""
    parsed = spark._jsparkSession.sessionState().sqlParser().parseMultipartIdentifier(name)
    return [str(parsed.apply(i)) for i in range(parsed.size())]


def spark_database(account: str, database: str) -> str:
    """Local Spark database standing for ``account``'s Glue database (``/`` is not allowed)."""
    safe = re.sub(r"[^a-z0-9_]", lambda m: f"_{ord(m.group(0)):x}_", database.lower())
    return f"acct_{account}__{safe}"


def _quote(part: str) -> str:
    return "`" + part.replace("`", "``") + "`"


class _Context:
    def __init__(self, catalog: Catalog, spark_properties: Mapping[str, str]) -> None:
        self.catalog = catalog
        self.spark_properties = dict(spark_properties)


def _current() -> Optional[_Context]:
    return getattr(_CONTEXT, "value", None)


def read_table(spark: Any, catalog: Catalog, ref: TableRef) -> Any:
    """Read a Glue table of any account from its local location (checks nothing)."""
    table = catalog.get_table(ref)
    location = table["StorageDescriptor"].get("Location", "")
    classification = (table.get("Parameters") or {}).get("classification", "parquet")
    path = catalog.local_uri(location)
    if classification == "json":
        ddl = ", ".join(f"{_quote(n)} {t}" for n, t in columns_of(table))
        return spark.read.schema(ddl).json(path)
    if classification == "csv":
        ddl = ", ".join(f"{_quote(n)} {t}" for n, t in columns_of(table))
        return spark.read.schema(ddl).csv(path)
    return spark.read.format(classification).load(path)


class AthenaSpark:
    """What ``spark`` is inside a calculation: the real session, with Glue-backed ``table``."""

    def __init__(self, real: Any, context: _Context) -> None:
        self._real = real
        self._context = context

    def table(self, tableName: str) -> Any:
        parts = parse_multipart(self._real, tableName)
        ref = self._context.catalog.resolve(parts, self._context.spark_properties)
        self._context.catalog.check_access(ref, "glue:GetTable")
        return read_table(self._real, self._context.catalog, ref)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __repr__(self) -> str:
        return f"<AthenaSpark proxy of {self._real!r}>"


# ---- DataFrameWriter while a calculation runs ------------------------------------------
def _patch_writer() -> None:
    """Map s3:// to local disk and saveAsTable to the owning account's Glue (idempotent).

    Outside a calculation the original methods run unchanged.
    """
    global _PATCHED
    if _PATCHED:
        return
    from pyspark.sql.readwriter import DataFrameWriter

    original_option = DataFrameWriter.option
    original_format = DataFrameWriter.format
    original_save = DataFrameWriter.save
    original_save_as_table = DataFrameWriter.saveAsTable

    def option(self: Any, key: str, value: Any) -> Any:
        context = _current()
        if context is not None and isinstance(value, str) and re.match(r"s3[an]?://", value):
            self.__dict__.setdefault("_emulator_s3", {})[key.lower()] = value
            value = context.catalog.local_uri(value)
        return original_option(self, key, value)

    def format(self: Any, source: str) -> Any:
        self.__dict__["_emulator_format"] = source
        return original_format(self, source)

    def save(
        self: Any,
        path: Optional[str] = None,
        format: Optional[str] = None,
        mode: Optional[str] = None,
        partitionBy: Any = None,
        **options: Any,
    ) -> None:
        context = _current()
        if context is not None and isinstance(path, str) and re.match(r"s3[an]?://", path):
            path = context.catalog.local_uri(path)
        return original_save(self, path, format, mode, partitionBy, **options)

    def save_as_table(
        self: Any,
        name: str,
        format: Optional[str] = None,
        mode: Optional[str] = None,
        partitionBy: Any = None,
        **options: Any,
    ) -> None:
        context = _current()
        if context is None:
            return original_save_as_table(self, name, format, mode, partitionBy, **options)
        spark = self._spark
        parts = parse_multipart(spark, name)
        ref = context.catalog.resolve(parts, context.spark_properties)
        context.catalog.check_access(ref, "glue:CreateTable")
        if not context.catalog.database_exists(ref.account, ref.database):
            raise catalog_module.GlueEntityNotFound(
                f"[SCHEMA_NOT_FOUND] The schema `{ref.database}` cannot be found in the Glue "
                "catalog of "
                f"account {ref.account} (Glue: EntityNotFoundException). Create it first."
            )
        database = spark_database(ref.account, ref.database)
        qualified = f"{_quote(database)}.{_quote(ref.table)}"
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {_quote(database)}")
        spark.sql(f"DROP TABLE IF EXISTS {qualified}")  # Glue is the source of truth
        s3 = self.__dict__.get("_emulator_s3", {})
        location = s3.get("path") or (
            f"s3://emulator-{ref.account}-{catalog_module.REGION}/warehouse/{ref.database}/{ref.table}/"
        )
        if "path" not in s3:
            original_option(self, "path", context.catalog.local_uri(location))
        original_save_as_table(self, qualified, format, mode, partitionBy, **options)
        # Register what was written in the owning account's Glue, as Athena's catalog does.
        listed = spark.catalog.listColumns(qualified)
        columns = [(c.name, c.dataType) for c in listed if not c.isPartition]
        keys = [(c.name, c.dataType) for c in listed if c.isPartition]
        classification = (
            format
            or self.__dict__.get("_emulator_format")
            or spark.conf.get("spark.sql.sources.default")
        ).lower()
        context.catalog.put_table(ref, columns, location, classification, keys)

    DataFrameWriter.option = option  # type: ignore[method-assign]
    DataFrameWriter.format = format  # type: ignore[method-assign]
    DataFrameWriter.save = save  # type: ignore[method-assign]
    DataFrameWriter.saveAsTable = save_as_table  # type: ignore[method-assign]
    _PATCHED = True


@contextlib.contextmanager
def calculation_context(catalog: Catalog, spark_properties: Mapping[str, str]) -> Any:
    _CONTEXT.value = _Context(catalog, spark_properties)
    try:
        yield _CONTEXT.value
    finally:
        _CONTEXT.value = None


class SparkExecutor:
    """Executor for ``calculations.CalculationStore``: ``(code, spark_properties) -> (ok, text)``.

    Calculations are serialized. ``ok`` with stdout on success; on failure the Python
    traceback (which dbt-athena prints as the calculation's ``Reason``).
    """

    name = "spark"

    def __init__(self, catalog: Optional[Catalog] = None) -> None:
        self._catalog = catalog
        self.executed = 0

    @property
    def catalog(self) -> Catalog:
        return self._catalog or catalog_module.CATALOG

    def __call__(self, code: str, spark_properties: Dict[str, str]) -> Tuple[bool, str]:
        with _RUN_LOCK:
            real = get_spark()
            _patch_writer()
            self.executed += 1
            filename = f"<calculation {self.executed}>"
            linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
            stdout = io.StringIO()
            with calculation_context(self.catalog, spark_properties) as context:
                namespace: Dict[str, Any] = {
                    "__name__": "__main__",
                    "spark": AthenaSpark(real, context),
                }
                try:
                    with contextlib.redirect_stdout(stdout):
                        exec(compile(code, filename, "exec"), namespace)
                except BaseException as exc:  # report every failure as Athena does
                    # start at the submitted code's frame: the emulator's own frame is noise
                    tb = exc.__traceback__.tb_next if exc.__traceback__ else None
                    return False, "".join(traceback.format_exception(type(exc), exc, tb))
            return True, stdout.getvalue()

    # Athena SQL statements that need Spark (see sql.py): run under the same lock.
    def run_with_spark(self, fn: Any) -> Any:
        with _RUN_LOCK:
            real = get_spark()
            _patch_writer()
            with calculation_context(self.catalog, {}):
                return fn(real)


def read_rows(
    ref: TableRef, catalog: Optional[Catalog] = None, order_by: Optional[str] = None
) -> list:
    """The rows of a Glue table as dicts, read with the emulator's Spark (for tests and the demo).

    Sorted by ``order_by``, else by all columns.
    """
    with _RUN_LOCK:
        spark = get_spark()
        df = read_table(spark, catalog or catalog_module.CATALOG, ref)
        rows = [row.asDict(recursive=True) for row in df.collect()]
    key = (
        (lambda r: (r[order_by] is None, r[order_by]))
        if order_by
        else (lambda r: tuple((v is None, str(v)) for v in r.values()))
    )
    return sorted(rows, key=key)
