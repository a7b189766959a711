"""Runs the conformance corpus (tests/conformance/examples/, Trino's documented examples)
on one in-process emulator (executor="spark") through its Athena API and prints, per family
and in total, how many examples MATCH, are WRONG, ERROR (split into clean NOT_SUPPORTED and
other) or SUCCESS-ON-ERROR (tests/conformance/harness.py says how each is decided).

    .venv/bin/python bench/conformance.py                 # counts per family and totals
    .venv/bin/python bench/conformance.py --list          # and every non-MATCH: sql, expected, actual
    .venv/bin/python bench/conformance.py --json out.json # every outcome, as JSON
    .venv/bin/python bench/conformance.py --family math --family string
    .venv/bin/python bench/conformance.py --corpus trino --sample 1500 --causes
                                        # Trino's unit tests (tests/conformance/trino_examples/),
                                        # a seeded sample, and the WRONG/SOE causes ranked

--corpus docs (the default), trino or all; --sample N takes N examples at random (--seed,
default 0), kept in corpus order.
"""

from __future__ import annotations

import argparse
import json
import random
import re
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
    SUCCESS_ON_ERROR,
    WRONG,
    Example,
    Outcome,
    load_corpus,
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
        lines.append(f"--- {e.id} {label}  [{e.source or e.doc}]")
        lines.append(f"  sql:      {' '.join(e.sql.split())}")
        expected = e.expect if e.expect is not None else f"fails {e.fails!r}"
        lines.append(f"  expected: {expected}")
        lines.append(f"  actual:   {o.actual}")
    return "\n".join(lines)


def select(
    corpus: str, families: Optional[List[str]], sample: Optional[int], seed: int
) -> List[Example]:
    examples = [e for e in load_corpus(corpus) if not families or e.family in families]
    if sample is not None and sample < len(examples):
        chosen = set(random.Random(seed).sample(range(len(examples)), sample))
        examples = [e for i, e in enumerate(examples) if i in chosen]
    return examples


_NOT_CAUSES = {"select", "cast", "try_cast", "values", "row", "array", "map", "from", "typeof"}
_NOT_CAUSES |= {"in", "exists", "over", "join", "using", "t", "u", "a", "b", "x", "nan", "infinity"}
_OPERATORS = (
    (r"\bcast\s*\(", "cast"),
    (r"\bdecimal\s*'", "decimal arithmetic/comparison"),
    (r"(?:=|<|>|\bbetween\b|\bdistinct\s+from\b)", "comparison"),
    (r"[-+*/%]", "arithmetic"),
)


def cause(outcome: Outcome) -> str:
    """The function or construct an example is about: the first call of its statement that
    is no wrapper (cast, array, ...), else its operator (cast, comparison, arithmetic), a
    query's shape, or its literal."""
    sql = re.sub(r"'(?:[^']|'')*'", "''", outcome.example.sql)
    calls = [c.lower() for c in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", sql)]
    named = [c for c in calls if c not in _NOT_CAUSES]
    if named:
        return named[0]
    if outcome.example.family == "query":
        return "query"
    lowered = re.sub(r"'(?:[^']|'')*'", "''", outcome.example.sql.lower())
    for pattern, name in _OPERATORS:
        if re.search(pattern, lowered):
            return name
    return "literal"


def causes(outcomes: List[Outcome]) -> str:
    """WRONG and SUCCESS-ON-ERROR grouped by family and cause, largest first, an example
    each."""
    groups: Dict[tuple, List[Outcome]] = defaultdict(list)
    for o in outcomes:
        if o.outcome in (WRONG, SUCCESS_ON_ERROR):
            groups[(o.outcome, o.example.family, cause(o))].append(o)
    lines = []
    for (kind, family, name), members in sorted(
        groups.items(), key=lambda kv: (-len(kv[1]), kv[0])
    ):
        first = members[0]
        e = first.example
        expected = e.expect if e.expect is not None else f"fails {e.fails or 'true'}"
        lines.append(f"{len(members):5}  {kind:16} {family:12} {name}")
        lines.append(f"       e.g. {' '.join(e.sql.split())[:160]}")
        lines.append(
            f"            expected {expected}{' ' + str(e.type) if e.type else ''}; got {first.actual}"
        )
    return "\n".join(lines)


def run_all(examples: List[Example]) -> List[Outcome]:
    from athena_spark_emulator import Emulator

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
    parser.add_argument("--corpus", choices=["docs", "trino", "all"], default="docs")
    parser.add_argument("--sample", type=int, help="run N examples chosen at random (seeded)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--causes", action="store_true", help="rank the WRONG/SOE causes")
    args = parser.parse_args(argv)
    # a value may hold a lone surrogate: print it escaped, never fail on it
    sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[attr-defined]
    started = time.perf_counter()
    outcomes = run_all(select(args.corpus, args.family, args.sample, args.seed))
    elapsed = time.perf_counter() - started
    if args.list:
        print(listing(outcomes))
    if args.causes:
        print(causes(outcomes))
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
