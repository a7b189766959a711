"""Tests say what they guard, and benchmarks what they measured after, not which tracker issue
asked for them: a reader of the repository has no tracker. A reference to another project's issue names that project
(``awslabs/...-hive-metastore, issue 78``) and is allowed."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

# the word issue followed by a number (with or without #), no owner/repository on the line
_TRACKER = re.compile(r"\bissues? #?\d+", re.I)
_OTHER_PROJECT = re.compile(r"\b[\w.-]+/[\w.-]+\b.*\bissues? #?\d+", re.I)


def test_no_test_or_benchmark_refers_to_an_issue_number() -> None:
    found = []
    paths = [*(REPO_ROOT / "tests").rglob("*"), *(REPO_ROOT / "bench").rglob("*")]
    for path in sorted(paths):
        if path.suffix not in (".py", ".yml", ".yaml", ".sql", ".md") or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _TRACKER.search(line) and not _OTHER_PROJECT.search(line):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert found == [], "say what the test guards instead:\n" + "\n".join(found)
