"""The Trino corpus's ledger (ledger.py), without Spark: what it records, how it is written
and read back, and which outcomes contradict it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.harness import (
    ERROR,
    MATCH,
    SUCCESS_ON_ERROR,
    WRONG,
    Example,
    Outcome,
)
from tests.conformance.ledger import disagreement, ledger_of, read_ledger, write_ledger


def outcome(name: str, kind: str, clean: bool = False) -> Outcome:
    example = Example("math", 0, "", "SELECT 1", [["1"]], source=f"x/io/trino/{name}.java:1")
    return Outcome(example, kind, clean)


def test_the_ledger_holds_every_outcome_but_match_and_reads_back(tmp_path: Path) -> None:
    outcomes = [
        outcome("B", WRONG),
        outcome("A", ERROR, clean=True),
        outcome("C", MATCH),
        outcome("D", ERROR),
        outcome("E", SUCCESS_ON_ERROR),
    ]
    ledger = ledger_of(outcomes)
    assert ledger == {
        "trino/math/A:1": "ERROR clean",
        "trino/math/B:1": "WRONG",
        "trino/math/D:1": "ERROR other",
        "trino/math/E:1": "SUCCESS-ON-ERROR",
    }
    path = tmp_path / "ledger.json"
    write_ledger(ledger, path)
    assert read_ledger(path) == ledger
    assert path.read_text().splitlines()[1] == '  "trino/math/A:1": "ERROR clean",'


@pytest.mark.parametrize(
    "kind, clean, known, fails",
    [
        (MATCH, False, None, False),
        (MATCH, False, "WRONG", True),  # the ledger must stay true: regenerate it
        (WRONG, False, "WRONG", False),
        (WRONG, False, None, True),
        (WRONG, False, "ERROR clean", True),
        (ERROR, True, None, False),  # a clean NOT_SUPPORTED passes
        (ERROR, True, "WRONG", False),
        (ERROR, False, "ERROR other", False),
        (ERROR, False, "ERROR clean", True),
        (SUCCESS_ON_ERROR, False, None, True),
    ],
)
def test_which_outcomes_contradict_the_ledger(
    kind: str, clean: bool, known: str, fails: bool
) -> None:
    ledger = {} if known is None else {"trino/math/A:1": known}
    assert (disagreement(outcome("A", kind, clean), ledger) is not None) is fails
