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
from typing import Dict, Tuple

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


def main(argv: list) -> int:
    problems = []
    legs: Dict[str, Dict[str, Tuple[str, str]]] = {}
    for arg in argv:
        name, _, path = arg.partition("=")
        report = Path(path)
        if not report.is_file():
            problems.append(f"leg {name}: no test report at {report}")
            continue
        legs[name] = outcomes(report)
    totals = {"passed": 0, "failed": 0, "error": 0, "skipped": 0, "xfailed": 0}
    for name, cases in legs.items():
        counts = {k: 0 for k in totals}
        for outcome, _ in cases.values():
            counts[outcome] += 1
            totals[outcome] += 1
        print(f"leg {name}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
        if not cases or counts["passed"] == 0:
            problems.append(f"leg {name}: ran no test")
        if counts["failed"] or counts["error"]:
            problems.append(f"leg {name}: {counts['failed']} failed, {counts['error']} errors")
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
    for problem in problems:
        print(f"CI ERROR: {problem}", file=sys.stderr)
    failed = totals["failed"] + totals["error"]
    print(f"{totals['passed']} passed, {failed} failed, {totals['skipped']} skipped")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
