"""The Trino corpus (trino_examples/, Trino 410's own unit tests) on the emulator, against
its ledger of known outcomes (trino_ledger.json, ledger.py): an entry fails when it is
WRONG, SUCCESS-ON-ERROR or ERROR other and the ledger does not say so, or when the ledger
lists it and it now MATCHes (regenerate the ledger: ``bench/conformance.py --corpus trino
--write-ledger``). A clean NOT_SUPPORTED passes.

The whole corpus (9,202 entries) takes about 18 minutes on 2 cores, more than CI's max leg
can add, so CI runs a fixed sample of SAMPLE entries (seed SEED, about 3 minutes); the
ledger covers every entry, so any sample can be checked against it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.conformance.harness import OUTCOMES, Example, load_corpus, run_example, sample
from tests.conformance.ledger import CLEAN, OTHER, disagreement, read_ledger

SAMPLE = 1500
SEED = 0
CORPUS = load_corpus("trino")
LEDGER = read_ledger()
EXAMPLES = sample(CORPUS, SAMPLE, SEED)


def test_the_ledger_names_entries_of_the_corpus_and_outcomes() -> None:
    ids = {e.id for e in CORPUS}
    assert sorted(set(LEDGER) - ids) == [], "ledger entries no longer in the corpus"
    assert set(LEDGER.values()) <= {*OUTCOMES, CLEAN, OTHER} - {"MATCH", "ERROR"}


@pytest.fixture(scope="module")
def athena() -> Iterator[Any]:
    with Emulator(executor="spark") as emu:
        emu.prepare()
        yield emu.client("athena")


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_trino_entry_as_the_ledger_says(athena: Any, example: Example) -> None:
    outcome = run_example(athena, example)
    problem = disagreement(outcome, LEDGER)
    if problem is None:
        return
    expected = example.expect if example.expect is not None else f"fails {example.fails!r}"
    pytest.fail(
        f"{problem} ({example.source}): {example.sql}\n"
        f"expected: {expected}{' ' + str(example.type) if example.type else ''}\n"
        f"actual:   {outcome.actual}",
        pytrace=False,
    )
