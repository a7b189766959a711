"""One test per example of the conformance corpus (tests/conformance/examples/, Trino's
documented examples; README.md there): the emulator's Athena SQL must give the documented
answer (MATCH) or refuse with a clean NOT_SUPPORTED naming the construct, never another
value (WRONG), success where Athena fails (SUCCESS-ON-ERROR) or an unexplained error.

One in-process emulator (executor="spark") for the module; the examples run through its
Athena API (StartQueryExecution, GetQueryExecution, GetQueryResults) like a client's."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.conformance.harness import ERROR, MATCH, Example, load_examples, run_example

EXAMPLES = load_examples()


@pytest.fixture(scope="module")
def athena() -> Iterator[Any]:
    with Emulator(executor="spark") as emu:
        emu.prepare()
        yield emu.client("athena")


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_documented_result(athena: Any, example: Example) -> None:
    outcome = run_example(athena, example)
    if outcome.outcome == MATCH or (outcome.outcome == ERROR and outcome.clean):
        return
    expected = example.expect if example.expect is not None else f"fails {example.fails!r}"
    pytest.fail(
        f"{outcome.outcome} ({example.doc}): {example.sql}\n"
        f"expected: {expected}\nactual:   {outcome.actual}",
        pytrace=False,
    )
