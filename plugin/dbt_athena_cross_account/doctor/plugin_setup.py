"""``setup`` rows: the athena dispatch entry and the plugin version (no AWS call).

The rows for a *missing* plugin come from the macro ``cross_account_doctor``: without the
plugin none of this Python runs.
"""

from __future__ import annotations

from typing import Any, List, Mapping

from dbt_athena_cross_account import fixes
from dbt_athena_cross_account.doctor.rows import Check
from dbt_athena_cross_account.errors import FAIL, PASS, WARN

KIND = "setup"
READERS = "{readers} read cross-account catalogs, so `dbt run` fails"
NO_READERS = "no selected opted-in model reads a cross-account catalog yet"
DISPATCH_WRONG = (
    "create_table_as dispatches to package '{winner}', "
    "so the cross-account get_spark_df is never used ({who})"
)
DISPATCH_FIX = "add to {project}/dbt_project.yml:\n{yaml}"
DISPATCH_OK = "create_table_as reaches dbt_athena_cross_account's athena__create_table_as"
PLUGIN_OK = "dbt-athena-cross-account {version} is installed"


def _dispatch_row(verdict: Mapping[str, Any], readers: List[str], project: str) -> Check:
    """One package's verdict (``overrides.find_bypass``, as the on-run-start check sees it)."""
    status = FAIL if readers else WARN
    if verdict.get("winner"):
        who = READERS.format(readers=", ".join(readers)) if readers else NO_READERS
        fix = DISPATCH_FIX.format(project=project, yaml=fixes.dispatch_yaml(project))
        reason = DISPATCH_WRONG.format(winner=verdict["winner"], who=who)
        return Check(status, KIND, "dispatch", reason, fix)
    return Check(status, KIND, "dispatch", str(verdict.get("reason")), str(verdict.get("fix")))


def check_setup(setup: Mapping[str, Any]) -> List[Check]:
    """FAIL when an opted-in model reads a cross-account catalog and dbt would not call this
    package's athena__create_table_as for it (``verdicts``: {package: verdict dict})."""
    rows: List[Check] = []
    readers = list(setup.get("readers") or [])
    project = setup.get("project_name") or "<your project>"
    verdicts = setup.get("verdicts")
    if verdicts is not None:
        wrong = [v for v in verdicts.values() if not v.get("ok")]
        rows += [_dispatch_row(v, readers, project) for v in wrong]
        if not wrong:
            rows.append(Check(PASS, KIND, "dispatch", DISPATCH_OK))
    if "plugin_version" in setup:
        reason = PLUGIN_OK.format(version=setup["plugin_version"])
        rows.append(Check(PASS, KIND, "plugin", reason))
    return rows
