"""Fail closed at the last step: an opted-in model's code without the read plan never runs.

Every Python model dbt-athena runs passes through ``AthenaAdapter.submit_python_job``. The
plugin wraps it (``_patch.install``); the wrapper asks :func:`refusal` first. A model that
opts in and reads refs or sources, but whose code lacks this package's read plan (a root
``create_table_as`` override, a bare-name call, another package's override), is stopped
there, before any Spark session starts. Every other model is submitted as it came, with no
extra call. Pure; no dbt.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from dbt_athena_cross_account.flags import FLAG, opted_in
from dbt_athena_cross_account.overrides import Verdict

#: What the package's _cross_account_get_spark_df emits, and no stock code contains.
READ_PLAN_MARKER = "_CROSS_ACCOUNT_TABLES = _cross_account_json.loads("

NO_READ_PLAN = "dbt_athena_cross_account: model '{model}' opts in with spark_cross_account_catalog: true and reads refs or sources, but its Python code reached dbt-athena's job submission without this package's read plan, so Spark would read the local account: it was not submitted. {why}. Fix: {fix}."
UNKNOWN_WHY = "No project macro named create_table_as or athena__create_table_as was found on the way, so a materialization or another macro renders the code itself"
UNKNOWN_FIX = "build the model's code through adapter.dispatch('create_table_as', 'athena') or dbt_athena_cross_account.athena__create_table_as(...), or remove spark_cross_account_catalog from the model"


def needs_read_plan(parsed_model: Mapping[str, Any]) -> bool:
    """True for a Python model that opts in and reads a ref or source."""
    config = parsed_model.get("config") or {}
    model = str(parsed_model.get("unique_id") or parsed_model.get("alias"))
    get = getattr(config, "get", None)
    flag = get(FLAG) if callable(get) else None
    if not opted_in(model, flag):
        return False
    return bool(parsed_model.get("refs") or parsed_model.get("sources"))


def refusal(
    parsed_model: Mapping[str, Any], code: str, verdict: Callable[[str], Optional[Verdict]]
) -> Optional[str]:
    """The error to raise instead of submitting ``code``; None: submit it.

    ``verdict(package)`` says which macro bypassed the package for models of that package
    (None when it cannot tell); it is called only for a model that is refused.
    """
    # dbt-athena's materializations also submit an empty 'main' statement, which it skips
    if not code.strip() or READ_PLAN_MARKER in code or not needs_read_plan(parsed_model):
        return None
    found = verdict(str(parsed_model.get("package_name") or ""))
    why, fix = UNKNOWN_WHY, UNKNOWN_FIX
    if found is not None and found.bypass is not None:
        why, fix = found.reason[0].upper() + found.reason[1:], found.fix
    elif found is not None and found.winner is not None:
        why = found.reason + ", not to dbt_athena_cross_account"
        fix = "add the athena dispatch entry with dbt_athena_cross_account before 'dbt' (the README's Quick start)"
    model = parsed_model.get("unique_id") or parsed_model.get("alias")
    return NO_READ_PLAN.format(model=model, why=why, fix=fix)
