"""Summarise the matrix legs' JUnit reports and fail on a leg that did not really test.

    python scripts/ci_summary.py min=.venv-min/junit.xml max=.venv-max/junit.xml

Fails when a leg has no report, collected no test, passed none, or had a failure or error;
and when a test passed in one leg but was skipped or absent in another, unless its skip
reason says it is version-gated (mentions "version", "dbt-core" or "dbt-athena"). Ends with
one "N passed, N failed, N skipped" line over all legs.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Tuple

VERSION_WORDS = ("version", "dbt-core", "dbt-athena")


def outcomes(report: Path) -> Dict[str, Tuple[str, str]]:
    """test id -> (outcome, message) with outcome in passed/failed/error/skipped."""
    result: Dict[str, Tuple[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                message = child.get("message") or ""
                if child.tag == "skipped" and child.get("type") == "pytest.xfail":
                    outcome = "xfailed"
                break
        result[test_id] = outcome, message
    return result


Outcomes = Dict[str, Tuple[str, str]]
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed")


def load(argv: List[str], problems: List[str]) -> Dict[str, Outcomes]:
    """leg name -> its outcomes, from NAME=PATH arguments; a missing report is a problem."""
    legs: Dict[str, Outcomes] = {}
    for arg in argv:
        name, _, path = arg.partition("=")
        report = Path(path)
        if report.is_file():
            legs[name] = outcomes(report)
        else:
            problems.append(f"leg {name}: no test report at {report}")
    return legs


def count(name: str, cases: Outcomes, totals: Dict[str, int], problems: List[str]) -> None:
    """Print the leg's counts, add them to ``totals``; a leg that did not test is a problem."""
    counts = dict.fromkeys(OUTCOMES, 0)
    for outcome, _ in cases.values():
        counts[outcome] += 1
        totals[outcome] += 1
    print(f"leg {name}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if not cases or counts["passed"] == 0:
        problems.append(f"leg {name}: ran no test")
    if counts["failed"] or counts["error"]:
        problems.append(f"leg {name}: {counts['failed']} failed, {counts['error']} errors")


def compare(legs: Dict[str, Outcomes], problems: List[str]) -> None:
    """A test that passed in one leg must pass in every leg, unless version-gated."""
    all_ids = sorted(set().union(*legs.values())) if legs else []
    for test_id in all_ids:
        seen = {name: cases.get(test_id, ("absent", "")) for name, cases in legs.items()}
        if not any(outcome == "passed" for outcome, _ in seen.values()):
            continue
        for name, (outcome, message) in seen.items():
            if outcome == "passed":
                continue
            gated = outcome == "skipped" and any(w in message.lower() for w in VERSION_WORDS)
            line = f"{test_id}: passed elsewhere but {outcome} in leg {name} {message!r}"
            if gated:
                print(f"note: {line} (version-gated)")
            else:
                problems.append(line)


def main(argv: List[str]) -> int:
    problems: List[str] = []
    legs = load(argv, problems)
    totals = dict.fromkeys(OUTCOMES, 0)
    for name, cases in legs.items():
        count(name, cases, totals, problems)
    compare(legs, problems)
    for problem in problems:
        print(f"CI ERROR: {problem}", file=sys.stderr)
    failed = totals["failed"] + totals["error"]
    print(f"{totals['passed']} passed, {failed} failed, {totals['skipped']} skipped")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
