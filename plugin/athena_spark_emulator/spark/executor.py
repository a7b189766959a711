"""The Spark executor: runs each calculation's CodeBlock in one real local PySpark session.

Athena for Apache Spark runs the code dbt-athena submits with ``spark`` bound to a
SparkSession whose catalog is Glue. Here:

* one local SparkSession per process (``local[1]``, 2 shuffle partitions, no UI), started
  on first use and shared by every :class:`SparkExecutor`; calculations run one at a time.
  It is stopped, and its scratch directory removed, when the last executor using it is
  closed (``Emulator.stop()`` closes the executor it created);
* ``spark`` is a proxy: ``spark.table(name)`` parses ``name`` with Spark's real parser
  (``sessionState().sqlParser().parseMultipartIdentifier``), resolves it the way Athena's
  Glue client does (``catalog.Catalog.resolve``: the ``<account>/<db>`` form only with the
  separator property, owner grants, AccessDenied text, Spark's error for names of three or
  more parts) and reads the table's Glue location from local disk. Everything else is the
  real SparkSession;
* while a calculation runs, ``DataFrameWriter`` maps ``s3://`` option values and paths to
  local directories, and ``saveAsTable("schema.table")`` writes into a local Spark database
  named after the owning account (``acct_123456789012__schema``: Spark's built-in catalog
  rejects ``/``), registers the table in that account's Glue (moto), as Athena does, and
  mirrors the written files (``_SUCCESS`` included) into moto's S3;
* a failure returns the Python traceback, which becomes the calculation's
  ``StateChangeReason``.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import os
import re
import shutil
import signal
import sys
import tempfile
import threading
import traceback
from pathlib import Path
from typing import Any, Dict, Iterator, Mapping, Optional, Tuple

from athena_spark_emulator.accounts import catalog as catalog_module
from athena_spark_emulator.accounts import hive_partitions
from athena_spark_emulator.accounts.catalog import Catalog, TableRef
from athena_spark_emulator.core import context
from athena_spark_emulator.core.constants import REGION
from athena_spark_emulator.spark import catalogs as spark_catalogs
from athena_spark_emulator.spark.catalogs import SessionState

_RUN_LOCK = threading.RLock()  # one calculation (or Spark-backed SQL statement) at a time
_CONTEXT = threading.local()
SPARK_SESSIONS_STARTED = 0  # in this process, ever


class _SparkProcess:
    """The process's one local SparkSession and the executors that use it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.session: Any = None
        self.scratch: Optional[Path] = None
        self.users: set = set()

    def acquire(self, user: Any) -> Any:
        global SPARK_SESSIONS_STARTED
        with self.lock:
            self.users.add(id(user))
            if self.session is None:
                self.scratch = Path(tempfile.mkdtemp(prefix="athena-emulator-spark-"))
                self.session = _build_session(self.scratch)
                SPARK_SESSIONS_STARTED += 1
            return self.session

    def release(self, user: Any) -> bool:
        """Forget ``user``; stop Spark when nobody uses it any more. True if it stopped."""
        with self.lock:
            self.users.discard(id(user))
            if self.users or self.session is None:
                return False
            session, scratch = self.session, self.scratch
            self.session, self.scratch = None, None
        session.stop()
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        return True

    @property
    def running(self) -> bool:
        return self.session is not None


SPARK = _SparkProcess()


LOG4J2_CONFIG = Path(__file__).with_name("log4j2.properties")
DRIVER_JAVA_OPTIONS = (
    f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}",
    # The JIT's first tier only: the emulator's sessions are short and their data small, so
    # the optimizing compiler (C2) costs more CPU than it ever wins back (measured on
    # tests/integration/test_workflows.py: the JVM's CPU 55.5 s -> 28.8 s, wall 122 -> 108 s).
    "-XX:TieredStopAtLevel=1",
)


def _build_session(scratch: Path) -> Any:
    from pyspark.sql import SparkSession

    # The driver binds to loopback; saying so also stops Spark's warnings about the host.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # Python workers (UDFs, pandas) run this interpreter. PySpark 3.5's driver reads only
    # PYSPARK_PYTHON for them (not spark.pyspark.python), else `python3` from PATH: another
    # Python, which PySpark refuses when its minor version differs from this one.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # PySpark replaces the main thread's SIGINT handler; the host process keeps its own.
    in_main = threading.current_thread() is threading.main_thread()
    sigint = signal.getsignal(signal.SIGINT) if in_main else None
    session = (
        SparkSession.builder.master(os.environ.get("EMULATOR_SPARK_MASTER", "local[1]"))
        .appName("athena-spark-emulator")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.warehouse.dir", str(scratch / "spark-warehouse"))
        .config("spark.local.dir", str(scratch / "local"))
        .config("spark.driver.memory", "1g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")  # loopback only
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.extraJavaOptions", " ".join(DRIVER_JAVA_OPTIONS))
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    if in_main and sigint is not None:
        signal.signal(signal.SIGINT, sigint)
    return session


def get_spark() -> Any:
    """The process's one local SparkSession, started on first use (held until exit)."""
    return SPARK.acquire(SPARK)


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


_Context = SessionState  # one calculation's state (spark_catalogs.py)


def _current() -> Optional[SessionState]:
    return getattr(_CONTEXT, "value", None)


def resolve(spark: Any, context: SessionState, name: str, action: str) -> TableRef:
    """``name`` as Spark parses it and Athena's Glue client resolves it; checks the grant."""
    return spark_catalogs.resolve(spark, context, parse_multipart(spark, name), action)


def read_table(spark: Any, catalog: Catalog, ref: TableRef) -> Any:
    """Read a Glue table of any account (Hive from its files, Iceberg through its metadata);
    checks nothing."""
    return spark_catalogs.frame_of(spark, catalog, ref)


class AthenaSpark:
    """What ``spark`` is inside a calculation: the real session, with Athena's catalogs
    behind ``table``, ``sql`` and ``conf`` (spark_catalogs.py)."""

    def __init__(self, real: Any, context: SessionState) -> None:
        self._real = real
        self._context = context
        self._conf = spark_catalogs.RuntimeConf(real.conf, context)

    @property
    def conf(self) -> spark_catalogs.RuntimeConf:
        return self._conf

    @property
    def _jvm(self) -> Any:  # Class.forName of the classes the emulator stands in for (jvm.py)
        from athena_spark_emulator.spark.jvm import emulated_jvm

        return emulated_jvm(self._real._jvm, self._context)

    def table(self, tableName: str) -> Any:
        parts = parse_multipart(self._real, tableName)
        return spark_catalogs.read(self._real, self._context, parts, tableName)

    def sql(self, sqlQuery: str, *args: Any, **kwargs: Any) -> Any:
        return spark_catalogs.sql(self._real, self._context, sqlQuery, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __repr__(self) -> str:
        return f"<AthenaSpark proxy of {self._real!r}>"


# ---- DataFrameWriter while a calculation runs ------------------------------------------
# The original methods, saved by _patch_writer(); the replacements below call them.
_WRITER: Dict[str, Any] = {}
_S3_URI = re.compile(r"s3[an]?://")


def _writer_option(self: Any, key: str, value: Any) -> Any:
    context = _current()
    if context is not None and isinstance(value, str) and _S3_URI.match(value):
        self.__dict__.setdefault("_emulator_s3", {})[key.lower()] = value
        value = context.catalog.local_uri(value)
    return _WRITER["option"](self, key, value)


def _writer_format(self: Any, source: str) -> Any:
    self.__dict__["_emulator_format"] = source
    return _WRITER["format"](self, source)


def _writer_save(
    self: Any,
    path: Optional[str] = None,
    format: Optional[str] = None,
    mode: Optional[str] = None,
    partitionBy: Any = None,
    **options: Any,
) -> None:
    context = _current()
    if context is not None and isinstance(path, str) and _S3_URI.match(path):
        path = context.catalog.local_uri(path)
    return _WRITER["save"](self, path, format, mode, partitionBy, **options)


def _writer_save_as_table(
    self: Any,
    name: str,
    format: Optional[str] = None,
    mode: Optional[str] = None,
    partitionBy: Any = None,
    **options: Any,
) -> None:
    context = _current()
    if context is None:
        return _WRITER["saveAsTable"](self, name, format, mode, partitionBy, **options)
    spark = self._spark
    ref = resolve(spark, context, name, "glue:CreateTable")
    if not context.catalog.database_exists(ref.account, ref.database):
        raise catalog_module.GlueEntityNotFound(
            f"[SCHEMA_NOT_FOUND] The schema `{ref.database}` cannot be found in the Glue "
            f"catalog of account {ref.account} (Glue: EntityNotFoundException). Create it first."
        )
    database = spark_database(ref.account, ref.database)
    qualified = f"{_quote(database)}.{_quote(ref.table)}"
    spark.sql(f"CREATE DATABASE IF NOT EXISTS {_quote(database)}")
    spark.sql(f"DROP TABLE IF EXISTS {qualified}")  # Glue is the source of truth
    s3 = self.__dict__.get("_emulator_s3", {})
    location = s3.get("path") or (
        f"s3://emulator-{ref.account}-{REGION}/warehouse/{ref.database}/{ref.table}/"
    )
    if "path" not in s3:
        _WRITER["option"](self, "path", context.catalog.local_uri(location))
    _WRITER["saveAsTable"](self, qualified, format, mode, partitionBy, **options)
    classification = (
        format
        or self.__dict__.get("_emulator_format")
        or spark.conf.get("spark.sql.sources.default")
    )
    _register_written_table(spark, context.catalog, ref, qualified, location, classification)


def _register_written_table(
    spark: Any, catalog: Catalog, ref: TableRef, qualified: str, location: str, classification: str
) -> None:
    """Register what Spark wrote in the owning account's Glue, as Athena's catalog does,
    and mirror the files into moto's S3."""
    listed = spark.catalog.listColumns(qualified)
    columns = [(c.name, c.dataType) for c in listed if not c.isPartition]
    keys = [(c.name, c.dataType) for c in listed if c.isPartition]
    catalog.put_table(ref, columns, location, classification.lower(), keys)
    hive_partitions.register_written(catalog, ref)  # Glue's Hive client registers them
    catalog.sync_to_s3(location, ref.account)


def _patch_writer() -> None:
    """Map s3:// to local disk and saveAsTable to the owning account's Glue (idempotent).

    Outside a calculation the original methods run unchanged.
    """
    from pyspark.sql.readwriter import DataFrameWriter

    if _WRITER:
        return
    replacements = {
        "option": _writer_option,
        "format": _writer_format,
        "save": _writer_save,
        "saveAsTable": _writer_save_as_table,
    }
    for name, replacement in replacements.items():
        _WRITER[name] = getattr(DataFrameWriter, name)
        setattr(DataFrameWriter, name, replacement)


class _RoutedStdout:
    """``sys.stdout`` while a calculation runs: the calculation thread's writes go to its
    buffer, every other thread's to the real stdout (``contextlib.redirect_stdout`` would
    swallow the whole process's output into the calculation's)."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def write(self, text: str) -> int:
        buffer = getattr(_CONTEXT, "stdout", None)
        return (buffer if buffer is not None else self.real).write(text)

    def flush(self) -> None:
        buffer = getattr(_CONTEXT, "stdout", None)
        (buffer if buffer is not None else self.real).flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@contextlib.contextmanager
def captured_stdout(buffer: io.StringIO) -> Iterator[io.StringIO]:
    """Capture this thread's ``sys.stdout`` writes into ``buffer``."""
    routed = sys.stdout if isinstance(sys.stdout, _RoutedStdout) else _RoutedStdout(sys.stdout)
    sys.stdout = routed
    _CONTEXT.stdout = buffer
    try:
        yield buffer
    finally:
        _CONTEXT.stdout = None
        if sys.stdout is routed:
            sys.stdout = routed.real


@contextlib.contextmanager
def calculation_context(
    catalog: Catalog, spark_properties: Mapping[str, str]
) -> Iterator[SessionState]:
    _CONTEXT.value = SessionState(catalog, spark_properties)
    try:
        yield _CONTEXT.value
    finally:
        _CONTEXT.value = None


class SparkExecutor:
    """Executor for ``calculations.CalculationStore``: ``(code, spark_properties) -> (ok, text)``.

    Calculations are serialized. ``ok`` with stdout on success; on failure the Python
    traceback (which dbt-athena prints as the calculation's ``Reason``). The catalog is the
    one given, else that of the emulator running the calculation.
    """

    name = "spark"

    def __init__(self, catalog: Optional[Catalog] = None) -> None:
        self._catalog = catalog
        self.executed = 0
        self.sessions_started = 0  # SparkSessions this executor had to start (0 or 1)
        self.closed = False

    @property
    def catalog(self) -> Catalog:
        if self._catalog is not None:
            return self._catalog
        backend = context.current_backend()  # the emulator whose calculation thread this is
        if backend is None:
            raise RuntimeError(
                "SparkExecutor() without a catalog runs only on an emulator's threads; "
                "pass SparkExecutor(catalog=emulator.catalog)"
            )
        return backend.catalog

    def start(self) -> Any:
        """This executor's SparkSession (the process's one), started if needed."""
        if self.closed:
            raise RuntimeError("this SparkExecutor was closed")
        before = SPARK.running
        spark = SPARK.acquire(self)
        if not before:
            self.sessions_started += 1
        _patch_writer()
        return spark

    def close(self) -> None:
        """Wait for the running calculation, then stop Spark unless another executor uses it."""
        with _RUN_LOCK:
            self.closed = True
            SPARK.release(self)

    def cancel(self) -> None:
        """Cancel the Spark jobs of the running calculation (it then fails)."""
        if SPARK.session is not None:
            SPARK.session.sparkContext.cancelAllJobs()

    def __call__(self, code: str, spark_properties: Dict[str, str]) -> Tuple[bool, str]:
        with _RUN_LOCK:
            real = self.start()
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
                    with captured_stdout(stdout):
                        exec(compile(code, filename, "exec"), namespace)
                except BaseException as exc:  # report every failure as Athena does
                    # start at the submitted code's frame: the emulator's own frame is noise
                    tb = exc.__traceback__.tb_next if exc.__traceback__ else None
                    return False, "".join(traceback.format_exception(type(exc), exc, tb))
            return True, stdout.getvalue()

    # Athena SQL statements that need Spark (see sql.py): run under the same lock.
    def run_with_spark(self, fn: Any) -> Any:
        with _RUN_LOCK:
            real = self.start()
            with calculation_context(self.catalog, {}):
                return fn(real)


def read_rows(ref: TableRef, catalog: Catalog, order_by: Optional[str] = None) -> list:
    """The rows of a Glue table of ``catalog`` as dicts, read with the process's Spark
    (tests, the demo). Sorted by ``order_by``, else by all columns."""
    with _RUN_LOCK:
        spark = SPARK.session or get_spark()
        df = read_table(spark, catalog, ref)
        rows = [row.asDict(recursive=True) for row in df.collect()]
    key = (
        (lambda r: (r[order_by] is None, r[order_by]))
        if order_by
        else (lambda r: tuple((v is None, str(v)) for v in r.values()))
    )
    return sorted(rows, key=key)
