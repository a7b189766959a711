"""How a calculation's Spark session finds tables, as on Athena for Apache Spark.

* **Runtime conf.** ``spark.conf.set("spark.sql.catalog.<name>...", ...)`` registers a
  catalog for the rest of the calculation (on Athena, for the session); ``spark.conf.get``
  sees it, then the session's Spark properties (the work group's engine configuration),
  then the real session's conf. Other keys go to the real session, as before.
* **Iceberg's classes** are in a session only when its Spark properties configure Iceberg
  (a ``spark.sql.catalog.*`` or ``spark.sql.extensions`` value naming an
  ``org.apache.iceberg.`` class, or Iceberg in ``spark.jars``): what dbt-athena sets for
  ``table_type: iceberg`` models. Without them, using an Iceberg catalog fails with real
  Spark's own error (``Cannot find catalog plugin class``): local PySpark has no Iceberg jar.
* **A registered Iceberg catalog** (``SparkCatalog`` + ``catalog-impl`` GlueCatalog or
  ``type`` glue, ``glue.id``, ``io-impl``, ``client.region``,
  ``glue.skip-name-validation``): ``<catalog>.<db>.<table>`` is loaded from the Glue of
  ``glue.id`` (default: the session's own account), after the same grant check as the Hive
  path, with Iceberg's name rules (``[a-z0-9_]`` unless ``glue.skip-name-validation``), and
  read through its real Iceberg metadata with pyiceberg (``iceberg.py``).
  With ``client.factory=org.apache.iceberg.aws.AssumeRoleAwsClientFactory`` (and
  ``client.assume-role.arn``/``.region``, optional ``.external-id``, ``.timeout-sec``) the
  catalog first assumes the role as the session's execution role (``sts_roles.py``: the
  trust, the external id, the one-hour limit of role chaining; a refusal is STS's error)
  and then reads Glue and S3 as that role.
* **The session catalog** reads one- and two-part names through the Hive Glue client model
  (``catalog.py``: the ``<account>/<db>`` separator, grants, and the refusal of tables
  without Hive storage). When ``spark_catalog`` is Iceberg's ``SparkSessionCatalog`` (and
  the classes are there), a name that is a valid Glue identifier is first tried as an
  Iceberg table of the session's account; anything else falls back to the Hive client,
  as Iceberg's SparkSessionCatalog does (a ``<account>/<db>`` namespace is not a valid
  Iceberg identifier).
* ``spark.sql`` picks its handler from the emulator's one table of statement handlers
  (``handlers.HANDLERS``, dialect ``spark``, keyed by the class of Spark's parsed plan): it
  answers ``SHOW TBLPROPERTIES`` from the same resolution (Glue parameters through the Hive
  client; Iceberg properties through an Iceberg catalog), and runs dbt-athena's ``CREATE
  TABLE ... USING iceberg ... AS SELECT`` by writing a real Iceberg table with pyiceberg into
  the session's account. Every other statement is real Spark's.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence

from athena_spark_emulator.accounts import glue_types, hive_partitions, iceberg
from athena_spark_emulator.accounts.catalog import (
    Catalog,
    HiveClientRefusal,
    InvalidTableName,
    TableRef,
    columns_of,
    glue_name,
    is_iceberg,
)
from athena_spark_emulator.accounts.sts_roles import StsRefusal
from athena_spark_emulator.core.constants import REGION
from athena_spark_emulator.core.context import current_principal
from athena_spark_emulator.core.handlers import HANDLERS, SPARK

CATALOG_PREFIX = "spark.sql.catalog."
SESSION_CATALOG = "spark_catalog"
ICEBERG_SPARK_CATALOG = "org.apache.iceberg.spark.SparkCatalog"
ICEBERG_SESSION_CATALOG = "org.apache.iceberg.spark.SparkSessionCatalog"
GLUE_CATALOG_IMPL = "org.apache.iceberg.aws.glue.GlueCatalog"
FILE_IOS = {
    "org.apache.iceberg.aws.s3.S3FileIO",
    "org.apache.iceberg.io.ResolvingFileIO",
    "org.apache.iceberg.hadoop.HadoopFileIO",
}
ASSUME_ROLE_FACTORY = "org.apache.iceberg.aws.AssumeRoleAwsClientFactory"
DEFAULT_FACTORY = "org.apache.iceberg.aws.AwsClientFactories$DefaultAwsClientFactory"
_GLUE_IDENTIFIER = re.compile(r"[a-z0-9_]{1,252}")
_MISSING = object()


def analysis_error(message: str) -> Exception:
    from pyspark.errors import AnalysisException

    return AnalysisException(message=message)


def quoted(parts: Sequence[str]) -> str:
    return ".".join("`" + p.replace("`", "``") + "`" for p in parts)


def not_found(parts: Sequence[str]) -> Exception:
    """Spark 3.5's error for a table no catalog has."""
    return analysis_error(
        f"[TABLE_OR_VIEW_NOT_FOUND] The table or view {quoted(parts)} cannot be found. Verify "
        "the spelling and correctness of the schema and catalog."
    )


class SessionState:
    """One calculation: the emulator's catalog, the session's Spark properties, and the
    conf set at run time."""

    def __init__(self, catalog: Catalog, spark_properties: Mapping[str, str]) -> None:
        self.catalog = catalog
        self.spark_properties = dict(spark_properties)
        self.runtime_conf: Dict[str, str] = {}

    def conf_value(self, key: str) -> Optional[str]:
        if key in self.runtime_conf:
            return self.runtime_conf[key]
        return self.spark_properties.get(key)

    def iceberg_available(self) -> bool:
        """Were Iceberg's classes loaded when the session started?"""
        for key, value in self.spark_properties.items():
            text = str(value)
            if (key == "spark.sql.extensions" or key.startswith(CATALOG_PREFIX)) and (
                "org.apache.iceberg." in text
            ):
                return True
            if key in ("spark.jars", "spark.jars.packages") and "iceberg" in text.lower():
                return True
        return False

    def catalog_properties(self, name: str) -> Optional[Dict[str, str]]:
        """``{"": class, "<property>": value}`` of catalog ``name``; None when unregistered."""
        key = CATALOG_PREFIX + name
        plugin = self.conf_value(key)
        if plugin is None:
            return None
        found = {"": plugin}
        for source in (self.spark_properties, self.runtime_conf):
            for k, v in source.items():
                if k.startswith(key + "."):
                    found[k[len(key) + 1 :]] = str(v)
        return found

    def iceberg_session_catalog(self) -> Optional[Dict[str, str]]:
        """The properties of ``spark_catalog`` when it is Iceberg's SparkSessionCatalog."""
        props = self.catalog_properties(SESSION_CATALOG)
        if props and props[""] == ICEBERG_SESSION_CATALOG and self.iceberg_available():
            return props
        return None


class RuntimeConf:
    """``spark.conf`` inside a calculation (see the module docstring)."""

    def __init__(self, real: Any, state: SessionState) -> None:
        self._real = real
        self._state = state

    def get(self, key: str, default: Any = _MISSING) -> Any:
        value = self._state.conf_value(key)
        if value is not None:
            return value
        return self._real.get(key) if default is _MISSING else self._real.get(key, default)

    def set(self, key: str, value: Any) -> None:
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if key.startswith(CATALOG_PREFIX):
            self._state.runtime_conf[key] = text
        else:
            self._real.set(key, value)

    def unset(self, key: str) -> None:
        if key.startswith(CATALOG_PREFIX):
            self._state.runtime_conf.pop(key, None)
        else:
            self._real.unset(key)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


# ---- Iceberg catalogs ----------------------------------------------------------------------
def _check_glue_catalog(name: str, props: Mapping[str, str]) -> None:
    """Iceberg's checks when it initialises a Glue-backed catalog."""
    impl, kind = props.get("catalog-impl"), props.get("type")
    if impl and kind:
        raise ValueError(
            f"java.lang.IllegalArgumentException: Cannot create catalog {name}, both type and "
            f"catalog-impl are set: type={kind}, catalog-impl={impl}"
        )
    if impl != GLUE_CATALOG_IMPL and (kind or "").lower() != "glue":
        raise NotImplementedError(
            f"the emulator serves Iceberg catalogs backed by Glue only; catalog {name} has "
            f"type={kind!r}, catalog-impl={impl!r}"
        )
    io_impl = props.get("io-impl")
    if io_impl and io_impl not in FILE_IOS:
        raise ValueError(
            f"java.lang.IllegalArgumentException: Cannot initialize FileIO implementation "
            f"{io_impl}: Cannot find constructor for interface org.apache.iceberg.io.FileIO"
        )


def assumed_role(state: SessionState, name: str, props: Mapping[str, str]) -> Optional[str]:
    """The role catalog ``name``'s AWS clients act as (None: the execution role), as
    iceberg-aws's AssumeRoleAwsClientFactory initialises and then calls STS."""
    factory = props.get("client.factory")
    if not factory or factory == DEFAULT_FACTORY:
        return None
    if factory != ASSUME_ROLE_FACTORY:
        raise NotImplementedError(
            f"the emulator serves Iceberg catalogs with the default AWS client factory or "
            f"{ASSUME_ROLE_FACTORY} only; catalog {name} has client.factory={factory!r}"
        )
    arn, region = props.get("client.assume-role.arn"), props.get("client.assume-role.region")
    if not arn:
        raise ValueError(
            "java.lang.NullPointerException: Cannot initialize AssumeRoleClientConfigFactory "
            "with null role ARN"
        )
    if not region:
        raise ValueError(
            "java.lang.NullPointerException: Cannot initialize AssumeRoleClientConfigFactory "
            "with null region"
        )
    caller = current_principal() or state.catalog.local_account
    try:
        role = state.catalog.roles.assume(
            caller,
            arn,
            props.get("client.assume-role.external-id"),
            int(props.get("client.assume-role.timeout-sec") or 3600),
            chained=current_principal() is not None,
        )
    except StsRefusal as exc:
        raise RuntimeError(str(exc)) from None
    return role.arn


def load_iceberg(
    state: SessionState, name: str, props: Mapping[str, str], parts: Sequence[str]
) -> Any:
    """The pyiceberg table ``parts`` (``<catalog>, <db>, <table>``) of an Iceberg catalog
    over Glue; Spark's errors for what Iceberg cannot load."""
    _check_glue_catalog(name, props)
    namespace, table = list(parts[1:-1]), parts[-1]
    skip = props.get("glue.skip-name-validation", "false").lower() == "true"
    valid = len(namespace) == 1 and (
        skip or (_GLUE_IDENTIFIER.fullmatch(namespace[0]) and _GLUE_IDENTIFIER.fullmatch(table))
    )
    region = props.get("client.region") or REGION
    if not valid or region != REGION:  # an invalid identifier; another region's Glue
        raise not_found(parts)
    ref = TableRef(
        props.get("glue.id") or state.catalog.local_account,
        glue_name(namespace[0]),
        glue_name(table),
    )
    role = assumed_role(state, name, props)
    state.catalog.check_access(ref, "glue:GetTable", caller=role)
    if state.catalog.endpoint_url is None:
        raise RuntimeError("Iceberg tables are read through a started emulator's endpoint")
    # as a role of the table's own account: that account's credentials (Glue and S3)
    as_account = role.split(":")[4] if role and role.split(":")[4] == ref.account else None
    if role and as_account is None:
        raise NotImplementedError(
            f"the emulator reads through a role of the table's own account only; {role} is "
            f"not in account {ref.account}"
        )
    try:
        return iceberg.load_table(
            state.catalog.endpoint_url, ref.account, ref.database, ref.table, as_account=as_account
        )
    except iceberg.IcebergTableNotFound:
        raise not_found(parts) from None


def _real_catalog_failure(real: Any, state: SessionState, name: str, text: str) -> Exception:
    """Let real Spark load catalog ``name`` (its class is not in this session): its error."""
    base = CATALOG_PREFIX + name
    settings = {
        (f"{base}.{k}" if k else base): v for k, v in (state.catalog_properties(name) or {}).items()
    }
    for key, value in settings.items():
        real.conf.set(key, value)
    try:
        real.table(text)
    except Exception as exc:  # the real error, e.g. Cannot find catalog plugin class
        return exc
    finally:
        for key in settings:
            real.conf.unset(key)
    return RuntimeError(f"catalog {name} loaded in real Spark; the emulator cannot serve it")


def _registered_catalog(state: SessionState, parts: Sequence[str]) -> Optional[Dict[str, str]]:
    if len(parts) < 3 or parts[0] == SESSION_CATALOG:
        return None
    return state.catalog_properties(parts[0])


def catalog_table(real: Any, state: SessionState, parts: Sequence[str], text: str) -> Any:
    """The pyiceberg table behind ``parts`` in a registered catalog; None when ``parts[0]``
    is no registered catalog."""
    props = _registered_catalog(state, parts)
    if props is None:
        return None
    if props[""] != ICEBERG_SPARK_CATALOG or not state.iceberg_available():
        raise _real_catalog_failure(real, state, parts[0], text)
    return load_iceberg(state, parts[0], props, parts)


# ---- the session catalog ---------------------------------------------------------------------
def resolve(real: Any, state: SessionState, parts: Sequence[str], action: str) -> TableRef:
    """A session-catalog name as Athena's Glue client resolves it; checks the grant."""
    try:
        ref = state.catalog.resolve(parts, state.spark_properties)
    except InvalidTableName as exc:
        raise analysis_error(str(exc)) from None
    state.catalog.check_access(ref, action)
    return ref


def session_iceberg_table(state: SessionState, parts: Sequence[str]) -> Any:
    """SparkSessionCatalog's first try: the name as an Iceberg table of the session's
    account; None when it is not one (then the Hive client answers)."""
    props = state.iceberg_session_catalog()
    names = list(parts[1:] if len(parts) == 3 else parts)
    if props is None or len(names) != 2:
        return None
    try:
        return load_iceberg(state, SESSION_CATALOG, props, [SESSION_CATALOG, *names])
    except Exception as exc:
        if "TABLE_OR_VIEW_NOT_FOUND" in str(exc):
            return None
        raise


def hive_frame(real: Any, catalog: Catalog, table: Mapping[str, Any]) -> Any:
    """A Hive table's files from its Glue location, read with the Glue schema (JSON, CSV
    with its OpenCSVSerde properties, Hive text, and empty tables); a partitioned table's
    registered partitions only, each from its own location (``hive_partitions.py``)."""
    storage = table["StorageDescriptor"]
    location = storage.get("Location", "")
    params = table.get("Parameters") or {}
    classification = str(params.get("classification", "parquet")).lower()
    columns = columns_of(table)
    json_selects: List[str] = []
    if classification == "json":
        # Spark's JSON reader takes string map keys only: read them so, then cast them back
        ddl, json_selects = glue_types.spark_json_columns(columns)
    else:
        ddl = _read_ddl(columns)

    def load(paths: Sequence[str], schema: str, base: Optional[str]) -> Any:
        reader = real.read.schema(schema)
        if base is not None:
            reader = reader.option("basePath", base)
        if classification == "json":
            return reader.json(list(paths))
        if classification in ("csv", "textfile"):
            serde = (storage.get("SerdeInfo") or {}).get("Parameters") or {}
            if classification == "csv":
                header = int(params.get("skip.header.line.count", "0") or 0) > 0
                reader = (
                    reader.option("header", header)
                    .option("sep", serde.get("separatorChar", ","))
                    .option("quote", serde.get("quoteChar", '"'))
                    .option("escape", serde.get("escapeChar", "\\"))
                )
            else:
                reader = reader.option("sep", serde.get("field.delim", "\x01")).option(
                    "nullValue", "\\N"
                )
            return reader.csv(list(paths))
        return reader.format(classification).load(list(paths))

    keys = [(k["Name"], k["Type"]) for k in table.get("PartitionKeys") or []]
    if keys:
        data_columns = [(c["Name"], c["Type"]) for c in storage.get("Columns", [])]
        data_ddl = (
            glue_types.spark_json_columns(data_columns)[0]
            if classification == "json"
            else _read_ddl(data_columns)
        )
        frame = hive_partitions.read(real, catalog, table, load, ddl, data_ddl, keys)
    else:
        # Glue's columns, not the files', as Athena reads them: a column added later (alter
        # table ... add columns) reads NULL in the files written before it
        frame = load([catalog.local_uri(location)], ddl, None)
    if any(" AS " in select for select in json_selects):
        return frame.selectExpr(*json_selects)
    return frame


def _read_ddl(columns: Sequence[Any]) -> str:
    """The read schema of Glue ``columns``: Glue's char(n)/varchar(n) are Spark's string
    (Spark refuses them in a read schema)."""
    return quoted_columns([(n, glue_types.spark_read_type(t)) for n, t in columns])


def quoted_columns(columns: Sequence[Any]) -> str:
    return ", ".join("`" + n.replace("`", "``") + f"` {t}" for n, t in columns)


def hive_table(state: SessionState, ref: TableRef) -> Dict[str, Any]:
    try:
        table = state.catalog.hive_table(ref)
    except HiveClientRefusal as exc:
        raise analysis_error(str(exc)) from None
    if str(table.get("TableType", "")).upper() == "VIRTUAL_VIEW":
        raise analysis_error(athena_view_refusal(ref))
    return table


def athena_view_refusal(ref: TableRef) -> str:
    """Athena for Spark cannot read views that Athena SQL created (AWS, "Considerations
    and limitations"): the error a calculation reading one gets."""
    return (
        f"[UNSUPPORTED_VIEW] `{ref.database}`.`{ref.table}` (account {ref.account}) is a view "
        "created by Athena SQL (Glue TableType VIRTUAL_VIEW, presto_view): Athena for Apache "
        "Spark cannot read views created by Athena SQL. Materialize it as a table "
        "(materialized='table') to read it from a Python model."
    )


def read(real: Any, state: SessionState, parts: Sequence[str], text: str) -> Any:
    """``spark.table(text)`` (``parts``: Spark's parse of it)."""
    table = catalog_table(real, state, parts, text)
    if table is not None:
        return iceberg.spark_frame(real, table)
    ref = resolve(real, state, parts, "glue:GetTable")
    table = session_iceberg_table(state, parts)
    if table is not None:
        return iceberg.spark_frame(real, table)
    return hive_frame(real, state.catalog, hive_table(state, ref))


def properties(real: Any, state: SessionState, parts: Sequence[str], text: str) -> Dict[str, str]:
    """What ``SHOW TBLPROPERTIES`` lists for ``parts``."""
    table = catalog_table(real, state, parts, text)
    if table is None:
        ref = resolve(real, state, parts, "glue:GetTable")
        table = session_iceberg_table(state, parts)
        if table is None:  # the Hive client: the Glue entry's parameters
            entry = hive_table(state, ref)
            return {str(k): str(v) for k, v in (entry.get("Parameters") or {}).items()}
    return iceberg.table_properties(table)


# ---- spark.sql ----------------------------------------------------------------------------------
def _parts(seq: Any) -> List[str]:
    return [str(seq.apply(i)) for i in range(seq.size())]


@HANDLERS.register(SPARK, ["ShowTableProperties"])
def show_properties(real: Any, state: SessionState, plan: Any, text: str) -> Any:
    parts = _parts(plan.table().multipartIdentifier())
    found = properties(real, state, parts, quoted(parts))
    key = str(plan.propertyKey().get()) if plan.propertyKey().isDefined() else None
    if key is None:
        rows = sorted(found.items())
    else:
        qualified = ".".join([SESSION_CATALOG, *parts] if len(parts) == 2 else parts)
        rows = [(key, found.get(key, f"Table {qualified} does not have property: {key}"))]
    return real.createDataFrame(rows, "key string, value string")


@HANDLERS.register(SPARK, ["CreateTableAsSelect USING iceberg"])
def iceberg_ctas(real: Any, state: SessionState, plan: Any, text: str) -> Any:
    """``CREATE TABLE <db>.<t> USING iceberg LOCATION ... AS SELECT`` into the session's
    account, through SparkSessionCatalog (dbt-athena's write for ``table_type: iceberg``)."""
    pa = iceberg.pyarrow()
    from pyspark.sql import DataFrame
    from pyspark.sql.pandas.types import to_arrow_schema

    if state.iceberg_session_catalog() is None:
        return real.sql(text)  # real Spark's error: no Iceberg data source in this session
    partitioning = [
        str(plan.partitioning().apply(i).describe()) for i in range(plan.partitioning().size())
    ]
    ref = state.catalog.resolve(_parts(plan.name().nameParts()), {})
    if state.catalog.table_exists(ref):
        raise analysis_error(
            f"[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view "
            f"{quoted([ref.database, ref.table])} because it already exists."
        )
    spec = plan.tableSpec()
    location = (
        str(spec.location().get())
        if spec.location().isDefined()
        else f"s3://emulator-{ref.account}-{REGION}/iceberg/{ref.database}/{ref.table}"
    )
    jdf = real._jvm.org.apache.spark.sql.Dataset.ofRows(real._jsparkSession, plan.query())
    frame = DataFrame(jdf, real)
    schema = to_arrow_schema(frame.schema)
    data = pa.Table.from_pylist([row.asDict() for row in frame.collect()], schema=schema)
    assert state.catalog.endpoint_url is not None
    iceberg.write_table(
        state.catalog.endpoint_url, ref.account, ref.database, ref.table, location, data,
        partitioning,
    )  # fmt: skip
    return real.range(0)


def sql(real: Any, state: SessionState, text: str, *args: Any, **kwargs: Any) -> Any:
    """``spark.sql(text)``: the statements above, else real Spark's."""
    try:
        plan = real._jsparkSession.sessionState().sqlParser().parsePlan(text)
    except Exception:  # real Spark raises its own ParseException
        return real.sql(text, *args, **kwargs)
    handler = HANDLERS.find(SPARK, spark_kind(plan))
    if handler is None:
        return real.sql(text, *args, **kwargs)
    return handler.run(real, state, plan, text)


def spark_kind(plan: Any) -> str:
    """The kind of a parsed Spark plan in the handler table: its class name, with the
    provider for a CTAS (``CreateTableAsSelect USING iceberg``)."""
    kind = str(plan.getClass().getSimpleName())
    if kind == "CreateTableAsSelect":
        provider = plan.tableSpec().provider()
        if provider.isDefined():
            return f"{kind} USING {str(provider.get()).lower()}"
    return kind


def frame_of(real: Any, catalog: Catalog, ref: TableRef) -> Any:
    """Any Glue table of any account as a DataFrame, checking nothing (tests, the demo,
    the incremental insert): Iceberg through its metadata (as its owner), Hive from its files."""
    table = catalog.get_table(ref)
    if is_iceberg(table):
        assert catalog.endpoint_url is not None
        loaded = iceberg.load_table(
            catalog.endpoint_url, ref.account, ref.database, ref.table, as_account=ref.account
        )
        return iceberg.spark_frame(real, loaded)
    return hive_frame(real, catalog, table)
