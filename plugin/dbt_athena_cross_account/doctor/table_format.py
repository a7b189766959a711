"""``format`` rows: can Spark read this table from another account, with the reader its
format needs?

Every verdict comes from :data:`dbt_athena_cross_account.formats.FORMATS`, the one home of
what each table format is (how it is recognised, how Spark reads it, what the doctor says),
which the generated code's read plan uses too. A read that will fail is a FAIL, so that CI
can gate on the doctor; a WARN means the read works, but look.

A format whose reader opens a file named in the Glue entry first (Iceberg's
``metadata_location``) PASSes only when 1 byte of that file can be read (s3:GetObject, and
kms:Decrypt when SSE-KMS): the read starts there, before any data file.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional

from dbt_athena_cross_account import formats
from dbt_athena_cross_account.doctor.calls import Aws
from dbt_athena_cross_account.doctor.data import read_one_object
from dbt_athena_cross_account.doctor.rows import Check, CheckedTable, Identity
from dbt_athena_cross_account.errors import FAIL
from dbt_athena_cross_account.formats import Verdict, is_view

__all__ = ["KIND", "check_format", "is_view"]

KIND = "format"
NO_METADATA_FILE = "{title} table with no {parameter} in its Glue parameters, so Spark's Iceberg catalog cannot load it"
NO_METADATA_FILE_FIX = (
    "ask the owner to repair the table's Glue entry (aws glue get-table shows its parameters)"
)
METADATA_READ = "; read 1 byte of its metadata file {metadata}"
METADATA_REFUSED = "{title} table whose metadata file {metadata} cannot be read: {problem}"


def _verdict(kind: str, data_readable: Optional[bool]) -> Verdict:
    if kind == formats.LAKE_FORMATION:
        if data_readable is False:
            return formats.LAKE_FORMATION_ONLY
        return formats.LAKE_FORMATION_WITH_IAM
    return formats.FORMATS[kind].doctor


def _metadata_row(
    ref: CheckedTable,
    fmt: formats.TableFormat,
    table: Mapping[str, Any],
    aws: Aws,
    identity: Identity,
    owner: str,
) -> Check:
    """PASS when 1 byte of the file the format's reader opens first is readable."""
    assert fmt.metadata_parameter is not None
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    metadata = params.get(fmt.metadata_parameter, "")
    title = fmt.name.capitalize()
    if not metadata:
        reason = NO_METADATA_FILE.format(title=title, parameter=fmt.metadata_parameter)
        return Check(FAIL, KIND, ref.name, reason, NO_METADATA_FILE_FIX)
    problem = read_one_object(aws, ref, metadata, identity, ref.requester_pays)
    if problem is not None:
        reason = METADATA_REFUSED.format(title=title, metadata=metadata, problem=problem.reason)
        return dataclasses.replace(problem, kind=KIND, reason=reason)
    reason = fmt.doctor.reason.format(owner=owner, provider="") + METADATA_READ.format(
        metadata=metadata
    )
    return Check(fmt.doctor.status, KIND, ref.name, reason, fmt.doctor.fix)


def check_format(
    ref: CheckedTable,
    table: Mapping[str, Any],
    data_readable: Optional[bool] = None,
    aws: Optional[Aws] = None,
    identity: Optional[Identity] = None,
    owner: str = "",
) -> Check:
    """The table's verdict. ``data_readable`` is the data check's outcome (Lake Formation
    tables: False means only LF grants let anyone read it, so Spark cannot); with ``aws``,
    the file a format's reader opens first is read too."""
    kind, provider = formats.detect(table)
    fmt = formats.FORMATS.get(kind)
    if fmt is not None and fmt.metadata_parameter and fmt.reader and aws is not None:
        return _metadata_row(ref, fmt, table, aws, identity or Identity(), owner)
    verdict = _verdict(kind, data_readable)
    reason = verdict.reason.format(provider=provider or "unknown format", owner=owner or "<owner>")
    return Check(verdict.status, KIND, ref.name, reason, verdict.fix)
