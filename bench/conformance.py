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

    .venv/bin/python bench/conformance.py --forms --list
                                        # and each entry's column forms (a Hive table, an
                                        # Iceberg table, a view, an import CTE), with every
                                        # form that disagrees with the literal form
    .venv/bin/python bench/conformance.py --corpus trino --write-ledger
                                        # the whole Trino corpus; writes
                                        # tests/conformance/trino_ledger.json (CI's known
                                        # outcomes: tests/conformance/ledger.py)

    .venv/bin/python bench/conformance.py --corpus trino --sample 1500 --types ctas
                                        # and the type oracle's CTAS check (a query per
                                        # entry): tests/conformance/type_oracle.py

Every entry that states its Trino type (``type:``, the Trino corpus) also has its types
checked (tests/conformance/type_oracle.py): ``typeof`` and GetQueryResults' ColumnInfo
always, the Glue type of a CTAS with ``--types ctas``. A second table prints them apart
from the values' outcomes (checked / agree / typeof differs / ColumnInfo differs / CTAS
differs; ``--causes`` and ``--list`` show the differences).

--corpus docs (the default), trino or all; --sample N takes N examples at random (--seed,
default 0), kept in corpus order. --forms runs the column forms of tests/conformance/forms.py
beside each literal form: per form, its outcomes, the entries where it is not applicable
and the entries where its outcome is not the literal form's.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance.forms import FORMS, FormResult, make_relations, plan, run_form
from tests.conformance.harness import (
    ERROR,
    MATCH,
    OUTCOMES,
    SUCCESS_ON_ERROR,
    WRONG,
    Example,
    Outcome,
    load_corpus,
    run_example_with_values,
)
from tests.conformance.harness import sample as sample_of
from tests.conformance.ledger import LEDGER_PATH, ledger_of, outcome_key, write_ledger
from tests.conformance.type_oracle import TypeCheck, check_entry, type_causes, types_table

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
    return sample_of(examples, sample, seed)


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


TYPES_SCHEMA = "conformance_types"  # the type oracle's CTAS tables


def run_all(
    examples: List[Example], forms: bool = False, ctas: bool = False
) -> Tuple[List[FormResult], List[TypeCheck]]:
    """Each example's literal outcome, and with ``forms`` its column forms' (the tables and
    views of every entry made first); and the type checks of the entries that state their
    types (with ``ctas``: the CTAS check too)."""
    from athena_spark_emulator import Emulator

    results, checks = [], []
    with Emulator(executor="spark") as emu:
        emu.prepare()
        athena = emu.client("athena")
        glue = emu.client("glue")
        if ctas:
            emu.catalog.ensure_database(emu.catalog.local_account, TYPES_SCHEMA)
        entries = plan(examples if forms else [])
        make_relations(emu, athena, entries)
        for i, example in enumerate(examples):
            values, literal = run_example_with_values(athena, example)
            outcomes = {f: run_form(athena, entries[i], f) for f in FORMS} if forms else {}
            results.append(FormResult(entries[i] if forms else None, literal, outcomes, values))
            check = check_entry(
                example, values, literal, athena, glue, TYPES_SCHEMA if ctas else None
            )
            if check is not None:
                checks.append(check)
    return results, checks


FORM_COLUMNS = [MATCH, WRONG, "ERROR clean", "ERROR other", SUCCESS_ON_ERROR, "n/a", "disagree"]


def forms_table(results: List[FormResult]) -> str:
    """Per form: its outcomes, the entries where it is not applicable, and how many
    disagree with the literal form."""
    lines = ["form".ljust(8) + "".join(f"{c:>17}" for c in FORM_COLUMNS)]
    for form in FORMS:
        counts: Counter = Counter()
        for r in results:
            outcome = r.forms.get(form)
            counts[outcome_key(outcome) if outcome is not None else "n/a"] += 1
            counts["disagree"] += form in r.disagreeing()
        lines.append(form.ljust(8) + "".join(f"{counts[c]:>17}" for c in FORM_COLUMNS))
    disagreeing = sum(1 for r in results if r.disagreeing())
    lines.append(f"entries where a column form disagrees with the literal form: {disagreeing}")
    return "\n".join(lines)


def forms_listing(results: List[FormResult]) -> str:
    lines = []
    for r in results:
        for form in r.disagreeing():
            outcome = r.forms[form]
            assert outcome is not None and r.entry is not None
            literal = r.values or r.literal
            lines.append(
                f"--- {r.literal.example.id} {form}: {outcome_key(outcome)}, "
                f"literal {outcome_key(literal)}"
            )
            lines.append(f"  sql:      {' '.join((r.entry.query(form) or '').split())}")
            lines.append(f"  columns:  {r.entry.lifting(form).athena_types()}")
            lines.append(f"  row:      {r.entry.lifting(form).row()}")
            lines.append(f"  literal:  {literal.actual}")
            lines.append(f"  actual:   {outcome.actual}")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every non-MATCH example")
    parser.add_argument("--json", metavar="FILE", help="write every outcome to FILE")
    parser.add_argument("--family", action="append", help="run only this family (repeatable)")
    parser.add_argument("--corpus", choices=["docs", "trino", "all"], default="docs")
    parser.add_argument("--sample", type=int, help="run N examples chosen at random (seeded)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--causes", action="store_true", help="rank the WRONG/SOE causes")
    parser.add_argument("--forms", action="store_true", help="run the column forms too")
    parser.add_argument(
        "--types",
        choices=["ctas"],
        help="ctas: check the Glue type of a CTAS of each typed entry too (a query each)",
    )
    parser.add_argument(
        "--write-ledger",
        action="store_true",
        help="write tests/conformance/trino_ledger.json (needs --corpus trino, the whole corpus)",
    )
    args = parser.parse_args(argv)
    if args.write_ledger and (args.corpus != "trino" or args.family or args.sample is not None):
        parser.error("--write-ledger needs --corpus trino, without --family or --sample")
    # a value may hold a lone surrogate: print it escaped, never fail on it
    sys.stdout.reconfigure(errors="backslashreplace")  # type: ignore[attr-defined]
    started = time.perf_counter()
    ctas = args.types == "ctas"
    examples = select(args.corpus, args.family, args.sample, args.seed)
    results, checks = run_all(examples, args.forms, ctas)
    elapsed = time.perf_counter() - started
    outcomes = [r.literal for r in results]
    if args.list:
        print(listing(outcomes))
        if args.forms:
            print(forms_listing(results))
    if args.causes:
        print(causes(outcomes))
    if args.causes or args.list:
        print(type_causes(checks))
    print(table(outcomes))
    if args.forms:
        print(forms_table(results))
    print(types_table(checks, ctas))
    if args.write_ledger:
        ledger = ledger_of(outcomes)
        write_ledger(ledger)
        print(f"{LEDGER_PATH}: {len(ledger)} entries that do not MATCH")
    queries = sum(o.seconds for r in results for o in [r.literal, *r.forms.values()] if o)
    print(
        f"{len(outcomes)} examples{' with their column forms' if args.forms else ''} in {elapsed:.1f} s "
        f"(queries {queries:.1f} s; emulator start and Spark warm-up the rest)"
    )
    if args.json:
        types = {c.example.id: c.as_dict() for c in checks}
        found = [{**o.as_dict(), "types": types.get(o.example.id)} for o in outcomes]
        Path(args.json).write_text(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
