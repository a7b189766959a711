"""``adapter.run_cross_account_doctor(...)``: the dbt side of the doctor.

Builds read-only boto3 clients from the dbt connection (so the profile's region,
``aws_profile_name`` and ``assume_role_arn`` apply, with dbt-athena's retry config), runs
the checks (:func:`~.run.run_doctor`) and hands the report to the macro
``cross_account_doctor``, which logs it and fails the command on any FAIL.

Only dbt and this module are imported when the plugin loads; the checks are imported on
first use, because every dbt command imports the plugin and few run the doctor.
"""

from __future__ import annotations

import contextlib
from importlib import metadata
from typing import Any, Dict, Iterable, List, Mapping, Optional

from dbt_common.exceptions import CompilationError

from dbt_athena_cross_account._aws import connection_clients


def _models(models: Iterable[Mapping[str, Any]]) -> List[Any]:
    from dbt_athena_cross_account.doctor.rows import ModelFacts
    from dbt_athena_cross_account.doctor.session import spark_properties

    facts = []
    for model in models:
        facts.append(
            ModelFacts(
                unique_id=str(model.get("unique_id")),
                opted_in=bool(model.get("opted_in")),
                spark_properties=spark_properties(model.get("engine_config")),
                catalogs=tuple(model.get("catalogs") or ()),
                requester_pays=bool(model.get("requester_pays")),
                roles=model.get("roles"),
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
    probe: Optional[Mapping[str, Any]] = None,
    read_by: Any = None,
) -> Dict[str, Any]:
    """Run every check; return ``{text, rows, pass, warn, fail, failed}`` for the macro.
    ``probe`` (``spark: true``): ``{read_code, timeout, max_sessions}`` of the Spark probe
    (``spark_check.py``); None starts no session. ``read_by``: the graph's cross-account
    tables with the models that read them, for tables passed explicitly."""
    from dbt_athena_cross_account.doctor.report import macro_result
    from dbt_athena_cross_account.doctor.run import run_doctor

    setup = dict(setup or {})
    if "packages" in setup:  # what dbt will really call for the opted-in models
        from dbt_athena_cross_account._adapter import get_spark_cross_account_setup

        setup["verdicts"] = get_spark_cross_account_setup(self, setup.pop("packages") or ())
    with contextlib.suppress(metadata.PackageNotFoundError):
        setup.setdefault("plugin_version", metadata.version("dbt-athena-cross-account"))
    clients, region, creds = connection_clients(self, "athena", "glue", "s3", "sts")
    work_group = getattr(creds, "spark_work_group", None)
    notes: List[str] = []
    try:
        identity, rows = run_doctor(
            **clients,
            region=region,
            catalogs=_as_list(catalogs),
            tables=_as_list(tables),
            models=_models(_as_list(models)),
            setup=setup,
            work_group=work_group,
            read_by=_as_list(read_by),
        )
        if probe:
            from dbt_athena_cross_account.doctor.role_rows import settle
            from dbt_athena_cross_account.doctor.spark_check import check_spark

            spark_rows, notes = check_spark(
                self, probe, _as_list(models), identity, region, clients, work_group
            )
            rows = settle(rows, spark_rows) + spark_rows
    except ValueError as exc:
        raise CompilationError(str(exc)) from None
    return macro_result(rows, identity, region, notes)


def parse_stub(*_args: Any, **_kwargs: Any) -> Dict[str, Any]:
    """Parse time: no AWS call, an empty report."""
    return {"text": "", "rows": [], "pass": 0, "warn": 0, "fail": 0, "failed": []}
