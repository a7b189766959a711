"""The doctor's ``role`` rows: which tables are read through a role (spark_cross_account_roles).

A table that every model reading it reads through the owner's role is not read by the
work group's execution role at all: Spark assumes the role and reads Glue and S3 as it. So
the doctor's checks as your own identity (metadata, data, format), whose fixes are grants
to the execution role, do not apply to it; its ``role`` row says so, and the Spark probe
(``{spark: true}``) reads it through the role. A role setting the run would refuse (not a
role ARN, another account's role, a source whose meta names no format or Hive) FAILs here
with the run's own message.
Pure; no AWS call.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account import formats, roles
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, ModelFacts
from dbt_athena_cross_account.errors import FAIL, PASS, CrossAccountCatalogError

KIND = "role"
THROUGH_ROLE = "read through the role {role} by {models} (spark_cross_account_roles): Spark assumes it and reads Glue and S3 as it, Iceberg tables only, so your identity's metadata, data and format checks and grants to the execution role do not apply; `--args '{{spark: true}}'` reads it through the role"
MIXED = "read through the role {role} by {models}, and as the execution role by {others}: both need to work"
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
            through.setdefault(role.role_arn, []).append(uid)
    for arn, uids in through.items():
        text = THROUGH_ROLE.format(role=arn, models=", ".join(uids))
        if others:
            text = MIXED.format(role=arn, models=", ".join(uids), others=", ".join(others))
        elif failed:  # the identity checks run, for the models whose setting fails
            text = BESIDE_FAILED.format(role=arn, models=", ".join(uids), failed=", ".join(failed))
        rows.append(Check(PASS, KIND, ref.name, text))
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
