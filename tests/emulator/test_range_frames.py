"""``RANGE`` window frames with offsets, as Trino runs them, over the columns of a Hive and
an Iceberg table, a view over each and an import CTE (tests/emulator/ledger_tables.py):
an interval offset over a ``date`` or ``timestamp`` key, a number offset over a number key;
peers (rows with the same key) share a frame, and a row whose key is NULL has the NULL
rows as its frame (Trino's RangeFraming: "X PRECEDING" / "X FOLLOWING" act as CURRENT ROW
for a NULL key).

On main before the change, an interval offset over a ``date`` key failed with Spark's
``DATATYPE_MISMATCH.RANGE_FRAME_INVALID_TYPE``."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.ledger_tables import forms, ledger_emulator, rows
from tests.emulator.table_forms import failure

SCHEMA = "fin_frames"
FORMS, FORM_IDS = forms(SCHEMA)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from ledger_emulator(SCHEMA)


def by_k(emu: Emulator, window_value: str, source: str, cte: bool) -> list:
    found = rows(emu, f"t.k, {window_value}", source, cte, "order by t.k")
    return [r[1] for r in found]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
@pytest.mark.parametrize("key", ["t.d", "t.ts"])
def test_interval_offsets_over_dates_and_timestamps(
    emu: Emulator, source: str, cte: bool, key: str
) -> None:
    # k: 1 on 01-01, 2 and 3 (peers) on 01-15, 4 NULL, 5 on 03-01
    preceding = f"order by {key} range between interval '30' day preceding and current row"
    assert by_k(emu, f"sum(t.amount) over ({preceding})", source, cte) == [
        "10.00", "16.66", "16.66", None, "7.25",
    ]  # fmt: skip
    assert by_k(emu, f"first_value(t.k) over ({preceding})", source, cte) == [
        "1", "1", "1", "4", "5",
    ]  # fmt: skip
    descending = f"order by {key} desc range between interval '30' day preceding and current row"
    assert by_k(emu, f"sum(t.amount) over ({descending})", source, cte) == [
        "16.66", "6.66", "6.66", None, "7.25",
    ]  # fmt: skip
    following = f"order by {key} range between current row and interval '14' day following"
    assert by_k(emu, f"count(t.k) over ({following})", source, cte) == ["3", "2", "2", "1", "1"]
    months = f"order by {key} range between interval '2' month preceding and current row"
    assert by_k(emu, f"count(*) over (partition by t.k > 1 {months})", source, cte) == [
        "1", "2", "2", "1", "3",
    ]  # fmt: skip


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_interval_offsets_over_an_interval(emu: Emulator, source: str, cte: bool) -> None:
    since = "t.ts - timestamp '2024-01-01 00:00:00'"  # an interval day to second
    frame = f"order by {since} range between interval '20' day preceding and current row"
    assert by_k(emu, f"count(*) over ({frame})", source, cte) == ["1", "3", "3", "1", "1"]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_number_offsets_over_numbers(emu: Emulator, source: str, cte: bool) -> None:
    # amounts: -3.35 (k 3), 7.25 (k 5), 10.00 (k 1), 10.01 (k 2), NULL (k 4)
    frame = "order by t.amount range between 1 preceding and current row"
    assert by_k(emu, f"count(*) over ({frame})", source, cte) == ["1", "2", "1", "1", "1"]
    frame = "order by t.k range between 2 preceding and 1 following"
    assert by_k(emu, f"sum(t.k) over ({frame})", source, cte) == ["3", "6", "10", "14", "12"]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_avg_of_a_decimal_over_a_date_range(emu: Emulator, source: str, cte: bool) -> None:
    frame = "order by t.d range between interval '30' day preceding and current row"
    found = rows(
        emu, f"t.k, avg(t.amount) over ({frame}), typeof(avg(t.amount) over ({frame}))",
        source, cte, "order by t.k",
    )  # fmt: skip
    assert [r[1] for r in found] == ["10.00", "5.55", "5.55", None, "7.25"]  # 16.66 / 3
    assert {r[2] for r in found} == {"decimal(18,2)"}


def test_sub_day_offsets_over_a_date_are_refused(emu: Emulator) -> None:
    sql = (
        "select count(*) over (order by d range between interval '3' hour preceding and "
        f"current row), typeof(d) from {SCHEMA}.ledger_hive"
    )
    reason = failure(emu, sql)
    assert reason.startswith("NOT_SUPPORTED") and "Athena fails adding them to a date" in reason
