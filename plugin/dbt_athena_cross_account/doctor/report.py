"""The report: a fixed-width table, each WARN/FAIL row followed by its indented fix, ending
``N PASS, N WARN, N FAIL``; and the result the macro ``cross_account_doctor`` reads."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence

from dbt_athena_cross_account.doctor.rows import Check, Identity, counts
from dbt_athena_cross_account.errors import FAIL, PASS, WARN

TITLE = "cross_account_doctor report"
CHECKED_AS = "  checked as {who}{where}"
WORK_GROUP = (
    "  Spark work group '{work_group}' runs as {role}; "
    "Spark reads with that role, so policies below name it too"
)
UNKNOWN_CALLER = "<unknown caller>"
UNKNOWN_ROLE = "an execution role the doctor could not read"
SUMMARY = "{PASS} PASS, {WARN} WARN, {FAIL} FAIL"
SUBJECT_WIDTH = 48


def summary_line(rows: Iterable[Check]) -> str:
    return SUMMARY.format(**counts(rows))


def _preamble(identity: Optional[Identity], region: str) -> List[str]:
    if identity is None:
        return []
    where = f" in {region}" if region else ""
    lines = [CHECKED_AS.format(who=identity.arn or UNKNOWN_CALLER, where=where)]
    if identity.work_group:
        role = identity.execution_role or UNKNOWN_ROLE
        lines.append(WORK_GROUP.format(work_group=identity.work_group, role=role))
    return lines


def format_report(
    rows: Sequence[Check],
    identity: Optional[Identity] = None,
    region: str = "",
    notes: Sequence[str] = (),
) -> str:
    """``notes``: lines printed before the summary (the Spark probe's sessions)."""
    width_kind = max([len("CHECK"), *(len(r.kind) for r in rows)])
    width_subject = min(SUBJECT_WIDTH, max([len("SUBJECT"), *(len(r.subject) for r in rows)]))
    header = f"{'STATUS':<6}  {'CHECK':<{width_kind}}  {'SUBJECT':<{width_subject}}  REASON"
    lines = [TITLE, *_preamble(identity, region), header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row.status:<6}  {row.kind:<{width_kind}}  {row.subject:<{width_subject}}  "
            f"{row.reason}"
        )
        if row.fix and row.status != PASS:
            first, *rest = row.fix.splitlines()
            lines.append(f"{'':<8}fix: {first}")
            lines += [f"{'':<13}{line}" for line in rest]
    lines += list(notes)
    lines.append(summary_line(rows))
    return "\n".join(lines)


def macro_result(
    rows: Sequence[Check], identity: Identity, region: str, notes: Sequence[str] = ()
) -> Dict[str, Any]:
    """``{text, rows, pass, warn, fail, failed}``: what the macro logs and gates on."""
    n = counts(rows)
    return {
        "text": format_report(rows, identity, region, notes),
        "rows": [row.as_dict() for row in rows],
        "pass": n[PASS],
        "warn": n[WARN],
        "fail": n[FAIL],
        "failed": [f"{r.kind} {r.subject}" for r in rows if r.status == FAIL],
    }
