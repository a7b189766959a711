"""Every message the docs quote can be found with grep in the code that prints it.

The troubleshooting table (docs/troubleshooting.md, whose first five rows' messages the
README repeats) is keyed on message text ("Message contains"): each text
it quotes is a fixed part of a message, found verbatim (a plain substring) in plugin/ or
macros/, so a user who greps for it lands on the line that prints it. No ellipses, no
placeholders: a message built from a template is quoted by a fixed part of the template.

The doctor's page (docs/doctor.md) shows a sample report, which mixes fixed words with
values (names, ARNs, account ids, error codes). That test splits each line into phrases at
those values and looks for every phrase of three or more words, verbatim, in plugin/ and
macros/: each phrase has to stand on one source line, one literal or one module-level
template, never a string that a formatter split mid-phrase.
"""

from __future__ import annotations

import re
from typing import Any, List

import pytest

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
TROUBLESHOOTING = (REPO_ROOT / "docs" / "troubleshooting.md").read_text(encoding="utf-8")
DOCTOR_PAGE = (REPO_ROOT / "docs" / "doctor.md").read_text(encoding="utf-8")
SOURCES = sorted(
    [*(REPO_ROOT / "plugin").rglob("*.py"), *(REPO_ROOT / "macros").glob("*.sql")],
)
SOURCE_TEXT = "\n".join(path.read_text(encoding="utf-8") for path in SOURCES)

# Rows of the "Message contains" column that quote messages this repository does not print.
NOT_OURS = {
    "Spark": "Spark's own errors, raised inside the Spark session",
    "`CustomKeyInConfigDeprecation`": "dbt-core's own deprecation warning",
    "stock dbt-athena": "errors of stock dbt-athena itself (also on AWS)",
}
# A word that is a value (or the README's ellipsis), not part of a phrase: names, ARNs,
# numbers, quoted values, AWS error codes (CamelCase), parenthesised asides, the README's N.
_VALUE = re.compile(r"""[0-9/=_.:"<>\[\]{}$*@`]|^'|'$|^N$|^\(|\)$""")
_ERROR_CODE = re.compile(r"^[A-Z][a-z]+[A-Z]")
_ENUM_VALUE = re.compile(r"^[A-Z]{4,}$")  # LAMBDA, GLUE, FAIL: a value, unlike IAM or KMS
_EDGE_PUNCTUATION = ",;:"
# A shell command in a message (`aws athena create-data-catalog --region ...`) is built word
# by word and quoted; what a maintainer greps for is its operation.
_AWS_COMMAND = re.compile(r"\baws [a-z0-9-]+ ([a-z0-9-]+)[^;)]*")


def phrases(message: str, min_words: int = 3, codes_are_values: bool = True) -> List[str]:
    """The runs of at least ``min_words`` plain words in ``message``, split at values."""
    found, run = [], []
    for word in _AWS_COMMAND.sub(" $ ", message).split():
        bare = word.rstrip(_EDGE_PUNCTUATION)
        code = codes_are_values and _ERROR_CODE.search(bare)
        if not bare or code or _VALUE.search(bare) or _ENUM_VALUE.match(bare):
            found.append(run)
            run = []
            continue
        run.append(bare)
        if bare != word:  # "readable:" ends a phrase; the next one starts after it
            found.append(run)
            run = []
    found.append(run)
    return [" ".join(words) for words in found if len(words) >= min_words]


def table_rows(page: str) -> List[str]:
    """The body rows of ``page``'s "Message contains" table."""
    table = page.split("| Message contains |", 1)[1].split("\n\n", 1)[0]
    return table.splitlines()[2:]


def troubleshooting_messages() -> List[Any]:
    messages = []
    for line in table_rows(TROUBLESHOOTING):
        cell = line.split("|")[1].strip()
        if cell.startswith(tuple(NOT_OURS)):
            continue
        for message in re.findall(r"`([^`]+)`", cell):
            messages.append(pytest.param(message, id=message))
    return messages


def sample_report_lines() -> List[str]:
    """Each line of the doctor page's sample report, as the doctor prints it: status,
    check and subject columns removed; policy documents are abbreviated there, so left out."""
    block = DOCTOR_PAGE.split("```\ncross_account_doctor report\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.splitlines():
        text = line.strip()
        if not text or text.startswith(("{", "STATUS", "---")):
            continue
        row = re.match(r"^(PASS|WARN|FAIL)\s+\S+\s+\S+\s+(.*)$", text)
        lines.append(row.group(2) if row else re.sub(r"^fix:\s*", "", text))
    return lines


def commands(message: str) -> List[str]:
    """The AWS CLI operations (``create-data-catalog``) of the commands in ``message``."""
    return _AWS_COMMAND.findall(message)


def test_the_docs_quote_messages():
    """The extraction finds what it is meant to find (so the tests below cannot pass empty)."""
    assert len(troubleshooting_messages()) >= 25
    assert len(sample_report_lines()) >= 12
    assert phrases(
        "glue:GetDatabase on database 'hr' in account 999999999999 was denied "
        "(AccessDeniedException: ...); both the owner's Glue resource policy and your IAM "
        "policy must allow it"
    ) == ["both the owner's Glue resource policy and your IAM policy must allow it"]
    fix = "register it: aws athena create-data-catalog --region eu-west-1 --name x; then retry"
    assert phrases(fix, 1) == ["register it", "then retry"]
    assert commands(fix) == ["create-data-catalog"]


@pytest.mark.parametrize("message", troubleshooting_messages())
def test_troubleshooting_message_is_in_the_source(message):
    """A plain grep finds it: the quoted text is verbatim in the code."""
    assert message in SOURCE_TEXT, (
        f"docs/troubleshooting.md row quotes {message!r}, which no file of plugin/ or macros/ "
        "contains verbatim: quote a fixed part of the message"
    )


@pytest.mark.parametrize("line", sample_report_lines())
def test_sample_report_line_is_in_the_source(line):
    for phrase in phrases(line) + commands(line):
        assert phrase in SOURCE_TEXT, f"README sample report line {line!r}: {phrase!r}"


def test_the_readme_keeps_five_rows_of_the_full_table():
    """The README's short table is a copy of rows of docs/troubleshooting.md, word for word,
    so the two cannot drift apart (links aside: the README's point into docs/); the full page
    has every other row."""
    readme_rows = [row.replace("](docs/", "](") for row in table_rows(README)]
    assert len(readme_rows) == 5
    assert set(readme_rows) <= set(table_rows(TROUBLESHOOTING))
    assert len(table_rows(TROUBLESHOOTING)) > len(readme_rows)
