"""The ledger of the Trino corpus (trino_examples/): the known outcome of every entry that
does not MATCH, so that CI can run the corpus and fail on what changed
(test_trino_ledger.py).

``trino_ledger.json`` maps an entry's id to its outcome: ``WRONG``, ``SUCCESS-ON-ERROR``,
``ERROR clean`` (a NOT_SUPPORTED naming the construct) or ``ERROR other``; an entry not in
it MATCHes. ``bench/conformance.py --corpus trino --write-ledger`` runs the whole corpus and
writes it again, one entry a line, sorted by id.

A run fails the ledger (:func:`disagreement`) when an entry is WRONG, SUCCESS-ON-ERROR or
ERROR other and the ledger does not say so, or when an entry the ledger lists now MATCHes
(the ledger must stay true: regenerate it). An entry that fails with a clean NOT_SUPPORTED
passes whatever the ledger says: the emulator may refuse what it cannot run as Athena does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, Iterable, Optional

from tests.conformance.harness import ERROR, MATCH, Outcome

LEDGER_PATH = Path(__file__).resolve().parent / "trino_ledger.json"
CLEAN = "ERROR clean"
OTHER = "ERROR other"


def outcome_key(outcome: Outcome) -> str:
    """MATCH, WRONG, SUCCESS-ON-ERROR, ``ERROR clean`` or ``ERROR other``."""
    if outcome.outcome == ERROR:
        return CLEAN if outcome.clean else OTHER
    return outcome.outcome


def ledger_of(outcomes: Iterable[Outcome]) -> Dict[str, str]:
    """``{id: outcome}`` of every outcome that is not a MATCH."""
    keys = {o.example.id: outcome_key(o) for o in outcomes}
    return {i: key for i, key in sorted(keys.items()) if key != MATCH}


def write_ledger(ledger: Dict[str, str], path: Path = LEDGER_PATH) -> None:
    """One entry a line, sorted, so that a regenerated ledger diffs line by line."""
    lines = [f"  {json.dumps(i)}: {json.dumps(ledger[i])}" for i in sorted(ledger)]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n")


def read_ledger(path: Path = LEDGER_PATH) -> Dict[str, str]:
    return dict(json.loads(path.read_text()))


def disagreement(outcome: Outcome, ledger: Dict[str, str]) -> Optional[str]:
    """Why ``outcome`` contradicts the ledger (None: it does not)."""
    key, known = outcome_key(outcome), ledger.get(outcome.example.id, MATCH)
    if key == MATCH and known != MATCH:
        return f"now MATCHes, the ledger says {known}: regenerate the ledger"
    if key in (CLEAN, MATCH) or key == known:
        return None
    return f"{key}, the ledger says {known}"
