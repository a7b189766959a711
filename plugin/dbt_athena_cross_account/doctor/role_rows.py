"""The doctor's ``role`` rows: which tables are read through a role (spark_cross_account_roles).

A table that every model reading it reads through the owner's role is not read by the
work group's execution role at all: Spark assumes the role and reads Glue and S3 as it. So
the doctor's checks as your own identity (metadata, data, format), whose fixes are grants
to the execution role, do not apply to it; its ``role`` row says so, and the Spark probe
(``{spark: true}``) reads it through the role. Without the probe the doctor cannot assume
the role (whether it exists, trusts the execution role with the external id, and reads the
table as Iceberg in the models' session), so the row is a WARN that says what was not
checked; with the probe, :func:`settle` makes it PASS only when the probe read the table
through the role. A role setting the run would refuse (not a
role ARN, another account's role, a source whose meta names no format or Hive) FAILs here
with the run's own message.
Pure; no AWS call.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account import formats, roles
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, ModelFacts
from dbt_athena_cross_account.errors import FAIL, PASS, WARN, CrossAccountCatalogError

KIND = "role"
SPARK_KIND = "spark"  # the Spark probe's rows (spark_probe.KIND)
THROUGH_ROLE = "read through the role {role} by {models} (spark_cross_account_roles): Spark assumes it and reads Glue and S3 as it, Iceberg tables only, so your identity's metadata, data and format checks and grants to the execution role do not apply"
MIXED = "read through the role {role} by {models}, and as the execution role by {others}: both need to work"
NOT_CHECKED = "; not checked: without the Spark probe the doctor cannot assume the role, so whether the role exists, trusts the execution role (with the external id, if one is set) and reads this table as Iceberg in the models' session is unknown"
NOT_CHECKED_FIX = "run `dbt run-operation cross_account_doctor --args '{spark: true}'`: its Spark probe reads the table through the role, in the models' own session configuration"
PROBED = "; the Spark probe read it through the role (its spark row below)"
PROBE_FAILED = "; the Spark probe could not read it through the role: its spark row below FAILs, with the reason and the fix"
PROBE_FAILED_FIX = "see the spark row of this table below"
NOT_PROBED = "; the Spark probe did not read it through the role (no spark row for it below)"
BESIDE_FAILED = "read through the role {role} by {models} (spark_cross_account_roles); the checks as your identity below run too, because the role setting of {failed} FAILs above: once that is fixed they no longer apply to this table"


def _role_of(model: ModelFacts, ref: CheckedTable, owner: str) -> Optional[roles.OwnerRole]:
    """The role ``model`` reads ``ref`` through (None: as the execution role); raises the
    run's own error for a setting or a source format the run refuses."""
    mapping = roles.parse_roles(model.unique_id, model.roles)
    role = roles.role_for(model.unique_id, mapping, ref.catalog, owner)
    if role is not None:
        named = formats.check_override(
            model.unique_id, f"the table {ref.name}", dict(ref.formats).get(model.unique_id)
        )
        problem = {None: roles.FORMAT_NOT_NAMED, formats.HIVE: roles.HIVE_UNDER_ROLE}.get(named)
        if problem:
            raise CrossAccountCatalogError(
                problem.format(
                    model=model.unique_id,
                    label=f"the table {ref.name}",
                    account=owner,
                    role_arn=role.role_arn,
                    catalog=role.catalog,
                )
            )
    return role


def table_role_rows(
    ref: CheckedTable, owner: str, models: Mapping[str, ModelFacts]
) -> Tuple[List[Check], bool]:
    """(the table's ``role`` rows, whether it is read through a role only)."""
    through: Dict[str, List[str]] = {}
    others: List[str] = []
    failed: List[str] = []
    rows: List[Check] = []
    for uid in ref.models:
        model = models.get(uid)
        if model is None:
            continue
        try:
            role = _role_of(model, ref, owner)
        except CrossAccountCatalogError as exc:
            rows.append(Check(FAIL, KIND, ref.name, str(exc)))
            failed.append(uid)
            continue
        if role is None:
            others.append(uid)
        else:
            # one row per role setting: the probe reads each (ARN, external id) on its own
            named = role.role_arn + (
                f" (external id {role.external_id!r})" if role.external_id else ""
            )
            through.setdefault(named, []).append(uid)
    for arn, uids in through.items():
        text = THROUGH_ROLE.format(role=arn, models=", ".join(uids))
        if others:
            text = MIXED.format(role=arn, models=", ".join(uids), others=", ".join(others))
        elif failed:  # the identity checks run, for the models whose setting fails
            text = BESIDE_FAILED.format(role=arn, models=", ".join(uids), failed=", ".join(failed))
        rows.append(Check(WARN, KIND, ref.name, text + NOT_CHECKED, NOT_CHECKED_FIX, through=arn))
    only = bool(through) and not others and not failed
    return rows, only


def role_rows(
    refs: Sequence[CheckedTable], owners: Mapping[str, Optional[str]], models: Sequence[ModelFacts]
) -> Tuple[Dict[int, List[Check]], List[CheckedTable]]:
    """({id(ref): its role rows}, the refs that are read through a role only)."""
    by_id = {m.unique_id: m for m in models}
    found: Dict[int, List[Check]] = {}
    only: List[CheckedTable] = []
    for ref in refs:
        owner = owners.get(ref.catalog.lower())
        if owner is None or not ref.models:
            continue
        rows, role_only = table_role_rows(ref, owner, by_id)
        if rows:
            found[id(ref)] = rows
        if role_only:
            only.append(ref)
    return found, only


def settle(rows: Sequence[Check], spark_rows: Sequence[Check]) -> List[Check]:
    """``rows`` with each ``role`` row settled by the Spark probe's rows of its table through
    its role: PASS only when all of them PASS (the run reads the owner's rows), else a WARN
    pointing at them. Other rows are returned as they are."""
    settled = []
    for row in rows:
        if row.kind != KIND or not row.through:
            settled.append(row)
            continue
        through = f"{row.subject} through {row.through}".lower()
        probed = [r for r in spark_rows if r.kind == SPARK_KIND and r.subject.lower() == through]
        base = row.reason.split(NOT_CHECKED)[0]
        if probed and all(r.status == PASS for r in probed):
            settled.append(replace(row, status=PASS, reason=base + PROBED, fix=""))
        elif probed:
            settled.append(replace(row, reason=base + PROBE_FAILED, fix=PROBE_FAILED_FIX))
        else:
            settled.append(replace(row, reason=base + NOT_PROBED))
    return settled
