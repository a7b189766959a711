"""A ``timestamp`` (or ``date``) compared with a ``timestamp with time zone``, as dbt-athena's
microbatch and sample-mode filters write it (``cast(event_time as timestamp) >= timestamp
'2024-01-01 00:00:00+00:00'``, dbt.adapters.athena.relation's event-time filter): Trino
casts the timestamp to a timestamp with time zone in the session's zone (UTC on Athena) and
compares the instants. Over the timestamp and date columns of a Hive and an Iceberg table,
a view over each and an import CTE (tests/emulator/ledger_tables.py).

On main before the change, every such comparison was refused ("a timestamp with time zone
used in ... (only shown, or passed to the time zone functions)")."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.ledger_tables import forms, ledger_emulator, rows
from tests.emulator.table_forms import failure

SCHEMA = "fin_zoned"
FORMS, FORM_IDS = forms(SCHEMA)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from ledger_emulator(SCHEMA)


def keys(emu: Emulator, condition: str, source: str, cte: bool) -> list:
    return [r[0] for r in rows(emu, "t.k", source, cte, f"where {condition} order by t.k")]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_dbt_athena_event_time_filter(emu: Emulator, source: str, cte: bool) -> None:
    """The filter dbt-athena renders for a microbatch batch and for --sample."""
    condition = (
        "cast(t.ts as timestamp) >= timestamp '2024-01-15 00:00:00+00:00' and "
        "cast(t.ts as timestamp) < timestamp '2024-03-01 00:00:00+00:00'"
    )
    assert keys(emu, condition, source, cte) == ["2", "3"]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_instants_in_other_zones(emu: Emulator, source: str, cte: bool) -> None:
    # 10:00 in New York is 15:00 UTC: after the 10:00 UTC rows of 15 January
    zoned = "cast('2024-01-15 10:00:00 America/New_York' as timestamp with time zone)"
    assert keys(emu, f"t.ts >= {zoned}", source, cte) == ["5"]
    assert keys(emu, "t.ts = timestamp '2024-01-01 11:00:00+01:00'", source, cte) == ["1"]
    assert keys(emu, "timestamp '2024-01-01 11:00:00+01:00' <> t.ts", source, cte) == [
        "2",
        "3",
        "5",
    ]
    between = "t.ts between timestamp '2024-01-01 00:00 UTC' and timestamp '2024-01-15 10:00 UTC'"
    assert keys(emu, between, source, cte) == ["1", "2", "3"]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_a_date_and_a_computed_zoned_value(emu: Emulator, source: str, cte: bool) -> None:
    # a date is midnight UTC
    assert keys(emu, "t.d < timestamp '2024-01-15 00:00:00+00:00'", source, cte) == ["1"]
    assert keys(emu, "t.d <= timestamp '2024-01-15 00:00:00+00:00'", source, cte) == ["1", "2", "3"]
    found = keys(emu, "t.ts >= from_iso8601_timestamp('2024-01-15T11:00:00+01:00')", source, cte)
    assert found == ["2", "3", "5"]


def test_a_zoned_value_compared_with_text_is_refused(emu: Emulator) -> None:
    reason = failure(
        emu, f"select 1 from {SCHEMA}.ledger_hive t where timestamp '2024-01-01 00:00 UTC' = 'x'"
    )
    assert reason.startswith("NOT_SUPPORTED"), reason
