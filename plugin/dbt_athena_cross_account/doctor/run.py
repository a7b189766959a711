"""One doctor run: the tables and catalogs to check, then every check, in report order.

AWS calls run with bounded parallelism: ``WORKERS`` threads, and per service at most
``calls.MAX_IN_FLIGHT`` calls at once, never more than its client's connection pool holds.
First who the checks run as and every catalog's registration, then every table whose
catalog resolved. Within a table the checks run in
order (metadata, data, format), each distinct call once per run (``calls.Once``).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.calls import MAX_IN_FLIGHT, Aws
from dbt_athena_cross_account.doctor.data import check_data
from dbt_athena_cross_account.doctor.identity import find_identity
from dbt_athena_cross_account.doctor.metadata import check_metadata
from dbt_athena_cross_account.doctor.plugin_setup import check_setup
from dbt_athena_cross_account.doctor.registration import check_registration
from dbt_athena_cross_account.doctor.role_rows import role_rows
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, Identity, ModelFacts
from dbt_athena_cross_account.doctor.session import check_session
from dbt_athena_cross_account.doctor.table_format import check_format, is_view
from dbt_athena_cross_account.errors import FAIL

WORKERS = 32  # threads checking tables at once; calls per service are bounded in calls.Aws
NOT_A_TABLE_NAME = (
    "cross_account_doctor: table {item!r} is not 'catalog.schema.table'. "
    'Fix: pass tables: ["partner_catalog.sales.orders"]'
)


def split_table_name(name: str) -> List[str]:
    """``catalog.schema.table``; a part may be double-quoted (``""`` is a quote)."""
    parts, part, quoted, i = [], "", False, 0
    while i < len(name):
        char = name[i]
        if quoted and char == '"' and name[i + 1 : i + 2] == '"':
            part += '"'
            i += 1
        elif char == '"':
            quoted = not quoted
        elif char == "." and not quoted:
            parts.append(part)
            part = ""
        else:
            part += char
        i += 1
    parts.append(part)
    return parts


def _checked_table(item: Any) -> CheckedTable:
    if isinstance(item, Mapping):
        return CheckedTable(
            str(item["catalog"]),
            str(item["schema"]),
            str(item["table"]),
            tuple(item.get("models") or ()),
            bool(item.get("requester_pays")),
            tuple((item.get("formats") or {}).items()),
        )
    parts = split_table_name(str(item))
    if len(parts) != 3 or not all(p.strip() for p in parts):
        raise ValueError(NOT_A_TABLE_NAME.format(item=item))
    catalog, schema, table = (p.strip() for p in parts)
    return CheckedTable(catalog, schema, table)


def parse_tables(tables: Iterable[Any]) -> List[CheckedTable]:
    """Strings ``catalog.schema.table`` or dicts ``{catalog, schema, table, models}``,
    deduplicated case-insensitively (the models of duplicates are merged)."""
    refs: Dict[str, CheckedTable] = {}
    for item in tables or []:
        ref = _checked_table(item)
        key = ref.key
        if key in refs:
            refs[key].models = tuple(dict.fromkeys(refs[key].models + ref.models))
            refs[key].requester_pays |= ref.requester_pays
            refs[key].formats = tuple({**dict(refs[key].formats), **dict(ref.formats)}.items())
        else:
            refs[key] = ref
    return list(refs.values())


def _catalog_names(catalogs: Iterable[str], refs: List[CheckedTable]) -> Dict[str, str]:
    """{lower-case name: first spelling} of every cross-account catalog to register-check."""
    names: Dict[str, str] = {}
    for name in [*(str(c).strip() for c in catalogs or []), *(r.catalog for r in refs)]:
        if fixes.is_cross_account_catalog(name):
            names.setdefault(name.lower(), name)
    return names


def _table_rows(aws: Aws, ref: CheckedTable, owner: str, identity: Identity) -> List[Check]:
    """metadata, then (when the table resolves) format and data."""
    row, facts = check_metadata(aws, ref, owner, identity)
    if facts is None:
        return [row]
    data: List[Check] = []
    if not is_view(facts.table):  # a view has no data of its own
        data = check_data(aws, ref, facts.table, identity, facts.partitions, ref.requester_pays)
    readable = all(r.status != FAIL for r in data)
    fmt = check_format(ref, facts.table, readable, aws=aws, identity=identity, owner=owner)
    return [row, fmt, *data]


def _check_tables(
    pool: ThreadPoolExecutor,
    aws: Aws,
    refs: List[CheckedTable],
    owners: Dict[str, Optional[str]],
    identity: Identity,
) -> Dict[int, List[Check]]:
    """Every table whose catalog resolved, in parallel: {id(ref): its rows}."""
    jobs: Dict[int, Future[List[Check]]] = {}
    for ref in refs:
        owner = owners[ref.catalog.lower()]
        if owner is not None:
            jobs[id(ref)] = pool.submit(_table_rows, aws, ref, owner, identity)
    return {key: job.result() for key, job in jobs.items()}


def run_doctor(
    *,
    athena: Any,
    glue: Any,
    s3: Any,
    sts: Any,
    region: str,
    catalogs: Iterable[str] = (),
    tables: Iterable[Any] = (),
    models: Iterable[ModelFacts] = (),
    setup: Optional[Mapping[str, Any]] = None,
    work_group: Optional[str] = None,
    max_in_flight: int = MAX_IN_FLIGHT,
    read_by: Iterable[Any] = (),
) -> Tuple[Identity, List[Check]]:
    """Every check, read-only; (who the checks ran as, the rows in report order).
    ``max_in_flight``: calls of one service at once, at most (and never more than its
    client's connection pool). ``read_by``: tables with the models that read them (the
    graph's); a table passed without its models gets theirs, so that it is checked as the
    models read it (through a role: spark_cross_account_roles)."""
    aws = Aws(athena=athena, glue=glue, s3=s3, sts=sts, region=region, max_in_flight=max_in_flight)
    models = list(models)
    rows = check_setup(setup or {}) + check_session(models)
    payers = {m.unique_id for m in models if m.pays_requester}
    refs = [r for r in parse_tables(tables) if fixes.is_cross_account_catalog(r.catalog)]
    known = {r.key: r for r in parse_tables(read_by)}
    for ref in refs:  # an explicit table: the models that read it, from the graph
        if not ref.models and ref.key in known:
            ref.models, ref.formats = known[ref.key].models, known[ref.key].formats
    for ref in refs:  # Spark reads with RequestPayer when any model reading it asks to
        ref.requester_pays |= any(model in payers for model in ref.models)
    names = _catalog_names(catalogs, refs)
    mine = {key: [r for r in refs if r.catalog.lower() == key] for key in names}
    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="doctor") as pool:
        identity_job = pool.submit(find_identity, aws, work_group)
        registration_jobs = {
            key: pool.submit(check_registration, aws, name, [r.name for r in mine[key]])
            for key, name in names.items()
        }
        identity, identity_rows = identity_job.result()
        registrations = {key: job.result() for key, job in registration_jobs.items()}
        owners = {key: owner for key, (_, owner) in registrations.items()}
        # tables read through a role only (spark_cross_account_roles): not as this identity
        through_role, role_only = role_rows(refs, owners, models)
        checked = [r for r in refs if all(r is not o for o in role_only)]
        table_rows = _check_tables(pool, aws, checked, owners, identity)
    rows += identity_rows
    for key, (row, _) in registrations.items():
        rows.append(row)
        for ref in mine[key]:
            rows += through_role.get(id(ref), []) + table_rows.get(id(ref), [])
    return identity, rows
