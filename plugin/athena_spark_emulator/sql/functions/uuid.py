"""UUID functions (Trino's ``functions/uuid.md``): uuid() and the UUID text a cast reads
(held as ipaddress.py holds IP addresses). Examples: ``tests/conformance/examples/uuid.yml``.
"""

from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import rewrites
from athena_spark_emulator.sql.spark_forms import spark, typed
from athena_spark_emulator.sql.udfs import Unsupported, udf

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@udf("uuid", "string")
def to_uuid(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    if not _UUID.fullmatch(text):
        raise Unsupported(f"the cast of {text!r} to UUID (not a UUID in its 8-4-4-4-12 form)")
    return text.lower()


@rewrites(exp.Uuid, "uuid")
def _uuid(node: exp.Expression) -> exp.Expression:
    return typed(spark("uuid()"), "uuid")
