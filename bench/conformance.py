"""Runs the conformance corpus (tests/conformance/examples/, Trino's documented examples)
on one in-process emulator (executor="spark") through its Athena API and prints, per family
and in total, how many examples MATCH, are WRONG, ERROR (split into clean NOT_SUPPORTED and
other) or SUCCESS-ON-ERROR (tests/conformance/harness.py says how each is decided).

    .venv/bin/python bench/conformance.py                 # counts per family and totals
    .venv/bin/python bench/conformance.py --list          # and every non-MATCH: sql, expected, actual
    .venv/bin/python bench/conformance.py --json out.json # every outcome, as JSON
    .venv/bin/python bench/conformance.py --family math --family string
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance.harness import (
    ERROR,
    MATCH,
    OUTCOMES,
    Outcome,
    load_examples,
    run_example,
)

COLUMNS = [*OUTCOMES, "ERROR clean", "ERROR other", "total"]


def count(outcomes: List[Outcome]) -> Counter:
    counts: Counter = Counter(o.outcome for o in outcomes)
    counts["ERROR clean"] = sum(1 for o in outcomes if o.outcome == ERROR and o.clean)
    counts["ERROR other"] = counts[ERROR] - counts["ERROR clean"]
    counts["total"] = len(outcomes)
    return counts


def table(outcomes: List[Outcome]) -> str:
    by_family: Dict[str, List[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_family[o.example.family].append(o)
    width = max([len("family"), len("TOTAL"), *map(len, by_family)])
    lines = ["family".ljust(width) + "".join(f"{c:>17}" for c in COLUMNS)]
    for family in sorted(by_family):
        counts = count(by_family[family])
        lines.append(family.ljust(width) + "".join(f"{counts[c]:>17}" for c in COLUMNS))
    counts = count(outcomes)
    lines.append("TOTAL".ljust(width) + "".join(f"{counts[c]:>17}" for c in COLUMNS))
    total = max(counts["total"], 1)
    lines.append(f"MATCH {counts[MATCH]}/{counts['total']} = {100 * counts[MATCH] / total:.1f}%")
    return "\n".join(lines)


def listing(outcomes: List[Outcome]) -> str:
    lines = []
    for o in outcomes:
        if o.outcome == MATCH:
            continue
        e = o.example
        label = o.outcome + (" (clean NOT_SUPPORTED)" if o.outcome == ERROR and o.clean else "")
        lines.append(f"--- {e.id} {label}  [{e.doc}]")
        lines.append(f"  sql:      {' '.join(e.sql.split())}")
        expected = e.expect if e.expect is not None else f"fails {e.fails!r}"
        lines.append(f"  expected: {expected}")
        lines.append(f"  actual:   {o.actual}")
    return "\n".join(lines)


def run_all(families: Optional[List[str]]) -> List[Outcome]:
    from athena_spark_emulator import Emulator

    examples = [e for e in load_examples() if not families or e.family in families]
    outcomes = []
    with Emulator(executor="spark") as emu:
        emu.prepare()
        athena = emu.client("athena")
        for example in examples:
            outcomes.append(run_example(athena, example))
    return outcomes


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every non-MATCH example")
    parser.add_argument("--json", metavar="FILE", help="write every outcome to FILE")
    parser.add_argument("--family", action="append", help="run only this family (repeatable)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    outcomes = run_all(args.family)
    elapsed = time.perf_counter() - started
    if args.list:
        print(listing(outcomes))
    print(table(outcomes))
    queries = sum(o.seconds for o in outcomes)
    print(
        f"{len(outcomes)} examples in {elapsed:.1f} s "
        f"(queries {queries:.1f} s; emulator start and Spark warm-up the rest)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps([o.as_dict() for o in outcomes], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
