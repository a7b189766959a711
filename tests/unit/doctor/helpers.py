"""Run the doctor against the served emulator and pick rows out of its answer."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

from dbt_athena_cross_account.doctor.rows import Check, Identity
from dbt_athena_cross_account.doctor.run import run_doctor
from tests.doctor_support import REGION, DoctorAws

CALLER = "arn:aws:iam::123456789012:user/dbt"


def run(
    aws: DoctorAws,
    user: str = "dbt",
    catalogs: Tuple[str, ...] = (),
    tables: Tuple[Any, ...] = (),
    work_group: Optional[str] = "spark_wg",
    **kwargs: Any,
) -> Tuple[Identity, List[Check]]:
    clients = {name: aws.client(name, user) for name in ("athena", "glue", "s3", "sts")}
    return run_doctor(
        region=REGION, catalogs=catalogs, tables=tables, work_group=work_group, **clients, **kwargs
    )


def only(rows: List[Check], kind: str, subject: str) -> Check:
    found = [r for r in rows if r.kind == kind and r.subject == subject]
    assert len(found) == 1, rows
    return found[0]


def json_blocks(text: str) -> List[Dict[str, Any]]:
    """The policy documents printed in a fix, parsed."""
    blocks, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                blocks.append(json.loads(text[start : i + 1]))
    return blocks
