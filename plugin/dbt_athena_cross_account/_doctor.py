"""``adapter.run_cross_account_doctor(...)``: the dbt side of the preflight.

Builds read-only boto3 clients from the dbt connection (so the profile's region,
``aws_profile_name`` and ``assume_role_arn`` apply, with dbt-athena's retry config), runs
the pure checks in ``doctor.py`` and hands the report back to the Jinja macro
``cross_account_doctor``, which logs it and fails the command on any FAIL.
"""

from __future__ import annotations

import contextlib
from importlib import metadata
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional

from dbt_common.exceptions import CompilationError

from dbt_athena_cross_account._aws import connection_clients

if TYPE_CHECKING:
    from dbt_athena_cross_account import doctor

# doctor.py is imported on first use: every dbt command imports this plugin, few run the doctor.


def _clients(adapter: Any) -> Dict[str, Any]:
    clients, region, creds = connection_clients(adapter, "athena", "glue", "s3", "sts")
    clients["region"] = region
    clients["work_group"] = getattr(creds, "spark_work_group", None)
    return clients


def _models(models: Optional[Iterable[Mapping[str, Any]]]) -> List[doctor.ModelFacts]:
    from dbt_athena_cross_account import doctor

    facts = []
    for model in models or []:
        engine = model.get("engine_config") or {}
        props = engine.get("SparkProperties") if isinstance(engine, Mapping) else None
        facts.append(
            doctor.ModelFacts(
                unique_id=str(model.get("unique_id")),
                opted_in=bool(model.get("opted_in")),
                spark_properties=dict(props or {}),
                catalogs=tuple(model.get("catalogs") or ()),
            )
        )
    return facts


def _as_list(value: Any) -> List[Any]:
    if value is None:
        return []
    if isinstance(value, (str, Mapping)):
        return [value]
    return list(value)


def run_cross_account_doctor(
    self: Any,
    catalogs: Any = None,
    tables: Any = None,
    models: Any = None,
    setup: Optional[Mapping[str, Any]] = None,
) -> Dict[str, Any]:
    """Run every check; return ``{text, rows, pass, warn, fail, failed}`` for the macro."""
    from dbt_athena_cross_account import doctor

    setup = dict(setup or {})
    with contextlib.suppress(metadata.PackageNotFoundError):
        setup.setdefault("plugin_version", metadata.version("dbt-athena-cross-account"))
    clients = _clients(self)
    try:
        identity, rows = doctor.run_doctor(
            athena=clients["athena"],
            glue=clients["glue"],
            s3=clients["s3"],
            sts=clients["sts"],
            region=clients["region"],
            catalogs=_as_list(catalogs),
            tables=_as_list(tables),
            models=_models(_as_list(models)),
            setup=setup,
            work_group=clients["work_group"],
        )
    except ValueError as exc:
        raise CompilationError(str(exc)) from None
    n = doctor.counts(rows)
    return {
        "text": doctor.format_report(rows, identity, clients["region"]),
        "rows": [row.as_dict() for row in rows],
        "pass": n[doctor.PASS],
        "warn": n[doctor.WARN],
        "fail": n[doctor.FAIL],
        "failed": [f"{r.check} {r.subject}" for r in rows if r.status == doctor.FAIL],
    }


def parse_stub(*_args: Any, **_kwargs: Any) -> Dict[str, Any]:
    """Parse time: no AWS call, an empty report."""
    return {"text": "", "rows": [], "pass": 0, "warn": 0, "fail": 0, "failed": []}
