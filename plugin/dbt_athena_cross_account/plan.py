"""The read plan of one opted-in Python model: which Spark table each ref/source reads.

Pure; nothing here imports dbt. The package's Jinja hands in every ``ref()``/``source()``
of the model *as dbt rendered it in this invocation* (``--defer``/``--state``, ``--empty``
and versioned refs included), and gets back, for each string that the generated
``get_spark_df`` can receive, the finished Spark table name. The generated code only
looks names up; it never parses or normalises them, so what was resolved is what is read.

Fail closed: a catalog that cannot be read cross-account stops the model at compile time
with the reason and the fix, unless the model sets ``spark_cross_account_fallback: local``
(then a warning, and the local account's table is read, as stock dbt-athena does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account import formats, roles, sample
from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.fixes import create_data_catalog, update_data_catalog
from dbt_athena_cross_account.names import (
    catalog_key,
    iceberg_table_name,
    is_local_catalog,
    is_s3_tables_catalog,
    local_table_name,
    table_part,
)
from dbt_athena_cross_account.resolver import Resolution

FALLBACK_CONFIG = "spark_cross_account_fallback"
FALLBACK_ERROR = "error"
FALLBACK_LOCAL = "local"
FALLBACKS = (FALLBACK_ERROR, FALLBACK_LOCAL)

# ---- messages: one template each, so that every text the README quotes can be found ----
NOT_READABLE = "dbt_athena_cross_account: model '{model}' reads {label} from catalog '{catalog}', but {reason}. Spark would read the local account's table {local} instead, so the model stops here. Fix: {fix}. To read the local account's table on purpose, set spark_cross_account_fallback: local on the model."
READ_LOCAL_INSTEAD = "dbt_athena_cross_account: model '{model}' reads {label} from catalog '{catalog}', but {reason}. spark_cross_account_fallback is 'local', so the local account's table {local} is read instead."
PYTHON_MODEL_ELSEWHERE = "Python model whose database is catalog '{catalog}': dbt-athena writes Python models with Spark's saveAsTable into the local account's Glue catalog, so the table is not in the account that '{catalog}' names"
WRITES_LOCALLY = "dbt_athena_cross_account: model '{model}' opts in with spark_cross_account_catalog: true and its database is catalog '{catalog}', but dbt-athena writes Python models with Spark's saveAsTable into the local account's Glue catalog, never into another account's, so dbt would record '{catalog}' for a table written to the local account. Fix: set database: awsdatacatalog on the model (its reads stay cross-account). To write to the local account on purpose, set spark_cross_account_fallback: local on the model."
WRITE_LOCAL_INSTEAD = "dbt_athena_cross_account: model '{model}' has database '{catalog}', but dbt-athena writes Python models into the local account's Glue catalog; spark_cross_account_fallback is 'local', so it is written there."
DOUBLE_QUOTE_IN_NAME = "dbt_athena_cross_account: model '{model}' reads {label}, whose {part} name {value} contains a double quote (\"). dbt-athena does not escape '\"' when it renders relation names, so Spark would read another table. Fix: rename the {part}, or point the source at a name without '\"'."
NO_CATALOG = "dbt_athena_cross_account: model '{model}' reads {label}, which has no catalog (database) (it rendered as {rendered}): an ephemeral model, or anything else that is not a table in a data catalog, has no table Spark can read. Fix: materialize it as a table (materialized='table'), or remove spark_cross_account_catalog from this model."
BAD_FALLBACK = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_fallback: {value}, which is not one of 'error' (the default: stop when a catalog cannot be read cross-account) and 'local' (warn, then read the local account's table). Fix: set it to 'error' or 'local'."

FIX_REGISTER = "if '{catalog}' is a typo, correct the database of {label}; otherwise register the owner's Glue catalog in this account and region: {command}"
FIX_NOT_GLUE = "Spark reads another account's tables only through a GLUE data catalog; register the owner's Glue catalog as one ({command}) and use that catalog in {label}"
FIX_CATALOG_ID = "{command}"
FIX_S3_TABLES = "read S3 Tables from a SQL model, or from Spark with an Iceberg catalog set up for S3 Tables in the model's engine_config"
FIX_PYTHON_MODEL = "set database: awsdatacatalog on that Python model"
S3_TABLES_REASON = "'{catalog}' is an S3 Tables catalog, which Spark's Glue separator cannot read"


@dataclass(frozen=True)
class Read:
    """One ``ref()`` or ``source()`` of a model, as dbt rendered it in this invocation."""

    label: str  # how the model names it, e.g. "source('partner', 'orders')"
    keys: Tuple[str, ...]  # the strings the generated get_spark_df can receive for it
    catalog: str
    schema: str
    table: str
    empty: bool = False  # dbt --empty: read the schema, no rows
    python_model: bool = False  # a ref to a Python model (Spark wrote it locally)
    table_format: Optional[str] = None  # the source's meta spark_table_format (None: detect)
    window: Optional[Mapping[str, Any]] = None  # dbt --sample: {column, start, end} as dbt gave

    @classmethod
    def from_mapping(cls, value: Mapping[str, Any]) -> Read:
        return cls(
            label=str(value["label"]),
            keys=tuple(str(k) for k in value["keys"]),
            catalog=str(value.get("catalog") or ""),
            schema=str(value.get("schema") or ""),
            table=str(value.get("table") or ""),
            empty=bool(value.get("empty")),
            python_model=bool(value.get("python_model")),
            table_format=value.get("table_format"),
            window=value.get("window") or None,
        )


@dataclass
class ReadPlan:
    """``tables``: {relation string: entry}; ``warnings`` to log.

    Every entry has ``table`` (the Spark table name: through the separator for an owner's
    table, two parts for a local one), ``account`` (the owner, or None) and ``empty``. An
    owner's table also has what :func:`cross_account_entry` adds: how to detect and read
    each format.
    """

    tables: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    warnings: List[str] = field(default_factory=list)

    def as_dict(self) -> Dict[str, Any]:
        return {"tables": self.tables, "warnings": list(self.warnings)}


Resolve = Callable[[Iterable[str]], Mapping[str, Resolution]]


def _fix_for(resolution: Resolution, read: Read) -> str:
    name = resolution.name
    if resolution.catalog_type is None:
        return FIX_REGISTER.format(
            catalog=name, label=read.label, command=create_data_catalog(name)
        )
    if resolution.malformed:
        return FIX_CATALOG_ID.format(command=update_data_catalog(name))
    return FIX_NOT_GLUE.format(command=create_data_catalog("<name>"), label=read.label)


def _unreadable(read: Read, resolutions: Mapping[str, Resolution]) -> Optional[Tuple[str, str]]:
    """``(reason, fix)`` when ``read`` cannot be read cross-account, else None."""
    catalog = table_part(read.catalog)
    if read.python_model:
        return PYTHON_MODEL_ELSEWHERE.format(catalog=catalog), FIX_PYTHON_MODEL
    if is_s3_tables_catalog(catalog):
        return S3_TABLES_REASON.format(catalog=catalog), FIX_S3_TABLES
    resolution = resolutions[catalog_key(catalog)]
    if resolution.account_id:
        return None
    return resolution.reason, _fix_for(resolution, read)


def _no_catalog_errors(model: str, reads: Sequence[Read]) -> List[str]:
    """A message per read without a catalog (an ephemeral model's CTE): nothing to resolve."""
    return [
        NO_CATALOG.format(
            model=model,
            label=read.label,
            rendered=repr(".".join(p for p in (read.schema, read.table) if p) or "nothing"),
        )
        for read in reads
        if not read.catalog.strip()
    ]


def _double_quote_errors(model: str, reads: Sequence[Read]) -> List[str]:
    errors = []
    for read in reads:
        for part, value in (
            ("catalog", read.catalog),
            ("schema", read.schema),
            ("table", read.table),
        ):
            if '"' in value:
                errors.append(
                    DOUBLE_QUOTE_IN_NAME.format(
                        model=model, label=read.label, part=part, value=repr(value)
                    )
                )
    return errors


def check_fallback(model: str, value: Any) -> str:
    """The model's ``spark_cross_account_fallback``, validated (None means the default)."""
    if value is None:
        return FALLBACK_ERROR
    if isinstance(value, str) and value.strip().lower() in FALLBACKS:
        return value.strip().lower()
    raise CrossAccountCatalogError(BAD_FALLBACK.format(model=model, value=repr(value)))


def check_write(model: str, catalog: Optional[str], fallback: str) -> Optional[str]:
    """A warning when an opted-in Python model's own database is another catalog.

    Raises (fallback ``error``): Spark writes the table into the local account whatever
    catalog dbt records for it, so reads of it would go to the wrong account.
    """
    if not catalog or is_local_catalog(catalog):
        return None
    if fallback == FALLBACK_LOCAL:
        return WRITE_LOCAL_INSTEAD.format(model=model, catalog=table_part(catalog))
    raise CrossAccountCatalogError(WRITES_LOCALLY.format(model=model, catalog=table_part(catalog)))


def cross_account_entry(
    read: Read, account: str, table_format: Optional[str], region: Optional[str]
) -> Dict[str, Any]:
    """An owner's table, for the generated code (every value from ``formats.py``):

    * ``table``: the separator name (the Hive read), ``account``, ``empty``;
    * ``format``: the source's override, or None; then ``detect`` is the metadata lookup
      that names the format inside Spark (``formats.runtime_detection``), else None;
    * ``reads``: per format, the table name to read and the Spark properties to set first;
    * ``refuse``: for a format the lookup names but Spark cannot read (Delta, ...), the
      error raised instead of reading;
    * ``errors``: how an exception raised inside Spark is re-raised, with what to do.
    """
    reads = formats.spark_reads(account, read.schema, read.table, region)
    return {
        "table": reads[formats.HIVE]["table"],
        "account": account,
        "empty": read.empty,
        "format": table_format,
        "detect": None
        if table_format
        else formats.runtime_detection(account, read.schema, read.table),
        "reads": reads,
        "refuse": formats.unreadable_errors(read.label, account, read.schema, read.table),
        "errors": formats.read_errors(read.label, account, read.schema, read.table),
    }


NO_REGION = "dbt_athena_cross_account: model '{model}' reads {label} through the role {role_arn} (spark_cross_account_roles), but the profile has no region_name, which client.assume-role.region needs. Fix: set region_name in the profile."


def role_entry(
    model: str,
    read: Read,
    role: roles.OwnerRole,
    table_format: Optional[str],
    region: Optional[str],
) -> Dict[str, Any]:
    """An owner's table read through ``role`` (``spark_cross_account_roles``): Iceberg only,
    through a catalog of its own whose clients come from iceberg-aws's
    AssumeRoleAwsClientFactory, so Glue and S3 are read as the role. The format is not
    looked up as the execution role (which holds no grant): the source's meta must name it,
    so that a Hive table fails here, at compile time, before any session starts. Raises for
    a source whose meta names no format or ``hive``. (A source whose meta says ``iceberg``
    for a Hive table fails in Spark, before any write: Iceberg's GlueCatalog does not find
    it, ``roles.ROLE_NOT_FOUND``.)
    """
    account = role.account
    names = dict(
        model=model, label=read.label, account=account, role_arn=role.role_arn, catalog=role.catalog
    )
    if table_format is None:
        raise CrossAccountCatalogError(roles.FORMAT_NOT_NAMED.format(**names))
    if table_format == formats.HIVE:
        raise CrossAccountCatalogError(roles.HIVE_UNDER_ROLE.format(**names))
    if not region:
        raise CrossAccountCatalogError(
            NO_REGION.format(model=model, label=read.label, role_arn=role.role_arn)
        )
    catalog = roles.role_catalog_name(role)
    conf = formats.iceberg_catalog_conf(account, region, catalog)
    # S3FileIO always, never the session's io-impl: client.factory (the role) applies to
    # S3FileIO only, so HadoopFileIO would read the owner's S3 as the execution role
    conf = [
        [key, value, None if str(key).endswith(".io-impl") else inherit]
        for key, value, inherit in conf
    ]
    conf += roles.assume_role_conf("spark.sql.catalog." + catalog, role, region, model)
    table = iceberg_table_name(account, read.schema, read.table, catalog)
    # no Iceberg classes in the session: the same error as without a role
    classes = [
        rule
        for rule in formats.read_errors(read.label, account, read.schema, read.table)
        if rule["markers"] == list(formats.CLASSES_MISSING_MARKERS)
    ]
    return {
        "table": table,
        "account": account,
        "empty": read.empty,
        "format": formats.ICEBERG,
        "detect": None,
        "reads": {formats.ICEBERG: {"table": table, "conf": conf}},
        "refuse": {},
        "errors": classes
        + roles.read_errors(
            read.label,
            role,
            read.schema,
            read.table,
            formats.NOT_FOUND_MARKERS,
            formats.DENIED_MARKERS,
        ),
        "role": role.as_dict(),
    }


def _windows(model: str, reads: Sequence[Read]) -> Tuple[Dict[int, Any], List[str]]:
    """{index of the read: its --sample window for Spark}, and a message per bad one."""
    found: Dict[int, Any] = {}
    errors: List[str] = []
    for i, read in enumerate(reads):
        try:
            found[i] = sample.spark_window(model, read.label, read.window)
        except sample.SampleError as exc:
            errors.append(str(exc))
            continue
        problem = (
            None
            if found[i] or read.empty
            else sample.unapplied_filter(model, read.label, read.keys)
        )
        if problem:
            errors.append(problem)
    return found, errors


def _override_errors(model: str, reads: Sequence[Read]) -> Tuple[Dict[int, str], List[str]]:
    """{index of the read: its valid override}, and a message per invalid override."""
    found: Dict[int, str] = {}
    errors: List[str] = []
    for i, read in enumerate(reads):
        try:
            value = formats.check_override(model, read.label, read.table_format)
        except CrossAccountCatalogError as exc:
            errors.append(str(exc))
            continue
        if value:
            found[i] = value
    return found, errors


def _add(plan: ReadPlan, read: Read, entry: Dict[str, Any], window: Any) -> None:
    """``entry`` under every key of ``read``, with its --sample window (if any)."""
    if window:  # dbt --sample: the event_time window to apply in Spark
        entry["window"] = window
    for key in read.keys:
        # one relation read through several sources: a source's format override wins
        if not (plan.tables.get(key, {}).get("format") and not entry.get("format")):
            plan.tables[key] = entry


def build_read_plan(
    model: str,
    reads: Iterable[Read],
    resolve: Resolve,
    fallback: Any = None,
    write_catalog: Optional[str] = None,
    region: Optional[str] = None,
    owner_roles: Any = None,
) -> ReadPlan:
    """The read plan of ``model``; raises CrossAccountCatalogError listing every problem.

    ``resolve`` maps catalog names to Resolutions (keyed by ``catalog_key``); it is
    called once, with the distinct non-local catalogs that need an account id. ``region``
    is the profile's (the owner's Glue catalog is read in the session's region).
    ``owner_roles`` is the model's ``spark_cross_account_roles`` (``roles.py``): only the
    entries of catalogs the model reads are validated.
    """
    reads = list(reads)
    mode = check_fallback(model, fallback)
    role_map = roles.parse_roles(model, owner_roles)
    overrides, errors = _override_errors(model, reads)
    windows, window_errors = _windows(model, reads)
    errors += window_errors + _double_quote_errors(model, reads) + _no_catalog_errors(model, reads)
    if errors:
        raise CrossAccountCatalogError("\n".join(errors))
    plan = ReadPlan()
    write_warning = check_write(model, write_catalog, mode)
    if write_warning:
        plan.warnings.append(write_warning)

    wanted = {
        catalog_key(r.catalog): table_part(r.catalog)
        for r in reads
        if not is_local_catalog(r.catalog)
        and not r.python_model
        and not is_s3_tables_catalog(r.catalog)
    }
    resolutions = resolve(list(wanted.values())) if wanted else {}

    for i, read in enumerate(reads):
        entry: Dict[str, Any] = {"table": None, "account": None, "empty": read.empty}
        local = local_table_name(read.schema, read.table)
        problem = None if is_local_catalog(read.catalog) else _unreadable(read, resolutions)
        if is_local_catalog(read.catalog):
            entry["table"] = local
        elif problem is None:
            account = str(resolutions[catalog_key(read.catalog)].account_id)
            try:
                role = roles.role_for(model, role_map, read.catalog, account)
                entry = (
                    role_entry(model, read, role, overrides.get(i), region)
                    if role
                    else cross_account_entry(read, account, overrides.get(i), region)
                )
            except CrossAccountCatalogError as exc:
                if str(exc) not in errors:
                    errors.append(str(exc))
                continue
        else:
            reason, fix = problem
            fields = dict(
                model=model,
                label=read.label,
                catalog=table_part(read.catalog),
                reason=reason,
                local=local,
                fix=fix,
            )
            if mode == FALLBACK_ERROR:
                errors.append(NOT_READABLE.format(**fields))
                continue
            plan.warnings.append(READ_LOCAL_INSTEAD.format(**fields))
            entry["table"] = local
        _add(plan, read, entry, windows.get(i))
    if errors:
        raise CrossAccountCatalogError("\n".join(errors))
    return plan
