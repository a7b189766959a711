"""The SQL the dbt packages' Athena shims generate (tests/integration/package_heavy_project/,
docs/testing-on-the-emulator.md), over columns of the ledger's Hive and Iceberg tables, views
and import CTEs: dbt-date's convert_timezone (Trino's form: with_timezone of a CAST to bare
TIMESTAMP, which is timestamp(3)) and dbt-expectations' quantile (approx_percentile of a
decimal column, which Trino resolves to its real form). Both were refused: found by the
package-heavy project."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.ledger_tables import forms, ledger_emulator, rows

SCHEMA = "package_macros"
FORMS, IDS = forms(SCHEMA)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from ledger_emulator(SCHEMA)


@pytest.mark.parametrize(("source", "cte"), FORMS, ids=IDS)
def test_convert_timezone_of_dbt_date(emu: Emulator, source: str, cte: bool) -> None:
    converted = (
        "cast(at_timezone(with_timezone(cast(ts as timestamp), 'UTC'), 'Europe/Berlin')"
        " as timestamp)"
    )
    found = rows(emu, f"k, cast({converted} as varchar), typeof({converted})", source, cte,
                 "where k in (1, 5) order by k")  # fmt: skip
    assert found == [
        ["1", "2024-01-01 11:00:00.000", "timestamp(3)"],
        ["5", "2024-03-01 11:00:00.000", "timestamp(3)"],
    ]


@pytest.mark.parametrize(("source", "cte"), FORMS, ids=IDS)
def test_quantile_of_dbt_expectations(emu: Emulator, source: str, cte: bool) -> None:
    """approx_percentile(decimal, 0.5): Trino's real form; over 10.00, 10.01, -3.35, 7.25
    (one NULL) the lower median is 7.25 (Spark's approximation at accuracy 10000 is exact
    for so few rows)."""
    found = rows(emu, "approx_percentile(amount, 0.5), typeof(approx_percentile(amount, 0.5))",
                 source, cte)  # fmt: skip
    assert found == [["7.25", "real"]]
