"""The conformance corpus of the emulator's Athena SQL engine: examples with a stated result
taken from Trino's documentation (tests/conformance/examples/<family>.yml, see README.md),
run through the emulator's Athena API and classified against the documented result.

An example (one YAML mapping):

- ``doc``: the documentation file it comes from: Trino's (``docs/src/main/sphinx/...md`` in
  trinodb/trino, or the ``.rst`` page that preceded it, named with ``doc_commit``), or the Athena user guide's (``doc_source/...md``, with ``doc_repo:
  awsdocs/amazon-athena-user-guide``); ``doc_commit`` optionally names the version of that
  file, when the example is only in an earlier one.
- ``sql``: one statement, Trino's example as written (made a full SELECT when the doc shows
  only an expression).
- ``expect``: the documented result as Athena's GetQueryResults prints it, the header row
  left out: a scalar (one row of one column) or a list of rows, each a list of values.
  YAML ``null`` is SQL NULL; other scalars are compared as text (``true`` -> ``"true"``,
  ``5`` -> ``"5"``); write the rest as quoted strings.
- or ``fails``: the documented failure. ``true`` when the doc says only that it fails; else
  text that Athena's error message contains (e.g. ``Division by zero``).
- ``athena`` (optional): where Athena engine version 3 differs from Trino's doc (time zone,
  a documented breaking change); ``expect``/``fails`` then state Athena's answer.
- ``doc_result`` (optional): the result as the doc prints it, where ``expect`` had to be
  rewritten into Athena's notation (``['a', 'b']`` -> ``[a, b]``, ``{1 -> 2}`` -> ``{1=2}``,
  ``ROW(1, 'x')`` -> ``{field0=1, field1=x}``).
- ``ordered`` (optional): rows are compared in order when the statement has an ORDER BY
  outside parentheses, otherwise as a multiset, since SQL gives no order; ``ordered``
  overrides that (``false`` where the ORDER BY leaves ties whose order the doc cannot know).

Entries of the second corpus (``trino_examples/``, made by trino_tests.py from Trino's unit
tests) have ``source`` (the test file and line) instead of ``doc``, and may have:

- ``type``: the Trino type of the value (a list: one per column), checked exactly with
  ``typeof`` after the value matched (``type_query``); another type is WRONG, a failing
  ``typeof`` statement an ERROR. type_oracle.py checks the same types apart from the
  outcome: ``typeof``, GetQueryResults' ColumnInfo (``Run.column_info``, kept on the
  ``Outcome``) and, opt-in, the Glue type of a CTAS;
- ``fails``: the expected error code (``DIVISION_BY_ZERO``: the reason must contain it) or
  ``true``; ``message``: Trino's message, for the record (not compared: its wording and
  positions are Trino's).

Outcomes:

- MATCH: the query succeeded with the expected rows (under the rules below), or the doc says
  it fails and it failed with an error that is not NOT_SUPPORTED (and contains the stated
  message, when ``fails`` states one).
- WRONG: it succeeded with other rows (or other column count).
- ERROR: it failed where the doc gives a result, or it failed with another error than the
  stated one. ``clean`` says whether the reason is a NOT_SUPPORTED naming the construct:
  it starts with ``NOT_SUPPORTED`` and, before ``Statement:``, contains a word (a function
  name, keyword or type of 2+ letters) that occurs in the example's SQL other than SELECT.
- SUCCESS-ON-ERROR: it succeeded where the doc says it fails.

Normalisation (the only differences tolerated; each value is compared on its own):

1. Exact text equality is a match.
2. NULL is an absent ``VarCharValue``; it equals only YAML ``null``. The text ``"null"`` is
   not NULL (and NULL is not ``"null"``).
3. Numbers, for columns whose type is not varchar/char/varbinary/json: the value is split
   into number tokens and the text between them; the text between must be identical, and
   the numbers pairwise equal, where two numbers that differ in text are equal only if
   (a) either is in exponent notation (``1.0E10`` vs ``1e10``, Java's and the doc's double
   spelling), or both have a fractional part and the expected one has 15 or more
   significant digits (the last digit of a double), and (b) they agree within a relative
   1e-12. So ``2.50`` vs ``2.5`` (a decimal's scale), ``5`` vs ``5.0`` (integer vs
   double) and ``0.1`` vs ``0.1000001`` all differ.
4. Maps (column type ``map``): the top-level entries are compared as a set, since a map's
   entry order is not part of its value; each entry compared by rule 3.
5. Timestamps: where the expected value has a time of day without fractional seconds and
   the actual one has ``.000...`` (zeros only), the zeros are dropped. Non-zero fractions
   are never dropped, and an expected fraction must be present in full.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
TRINO_EXAMPLES_DIR = Path(__file__).resolve().parent / "trino_examples"
CORPORA = {"docs": (EXAMPLES_DIR,), "trino": (TRINO_EXAMPLES_DIR,)}
CORPORA["all"] = CORPORA["docs"] + CORPORA["trino"]

MATCH = "MATCH"
WRONG = "WRONG"
ERROR = "ERROR"
SUCCESS_ON_ERROR = "SUCCESS-ON-ERROR"
OUTCOMES = (MATCH, WRONG, ERROR, SUCCESS_ON_ERROR)

TEXT_TYPES = ("varchar", "char", "varbinary", "json", "string")
QUERY_TIMEOUT_S = 180.0


# ---------------------------------------------------------------------------------------
# The corpus


@dataclass(frozen=True)
class Example:
    family: str
    index: int  # position in its family file, from 0
    doc: str
    sql: str
    expect: Optional[List[List[Optional[str]]]]  # None when the doc says it fails
    fails: Optional[str] = None  # "" = fails, with no stated message
    athena: Optional[str] = None
    ordered: bool = False
    doc_commit: Optional[str] = None
    doc_repo: str = "trinodb/trino"
    source: Optional[str] = None  # Trino's unit tests: the test file and line
    type: Optional[List[str]] = None  # the expected type of each column, where stated
    message: Optional[str] = None  # Trino's error message, for the record

    @property
    def id(self) -> str:
        if self.source:
            path, line = self.source.rsplit(":", 1)
            name = path.split("/io/trino/")[-1].rsplit(".", 1)[0]
            return f"trino/{self.family}/{name}:{line}"
        return f"{self.family}/{Path(self.doc).stem}:{self.index}"


def as_text(value: Any) -> Optional[str]:
    """A YAML scalar as the text Athena prints (None stays None, the SQL NULL)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    raise ValueError(f"expected a scalar, got {value!r}")


def expected_rows(value: Any) -> List[List[Optional[str]]]:
    """``expect`` as rows of text values: a scalar is one row of one column."""
    if isinstance(value, list):
        if not all(isinstance(row, list) for row in value):
            raise ValueError(f"expect must be a scalar or a list of rows (lists): {value!r}")
        return [[as_text(v) for v in row] for row in value]
    return [[as_text(value)]]


def parse_example(family: str, index: int, raw: Dict[str, Any]) -> Example:
    known = {"doc", "doc_repo", "sql", "expect", "fails", "athena", "doc_result", "ordered"}
    known |= {"doc_commit", "source", "type", "message"}
    unknown = set(raw) - known
    if unknown or ("doc" in raw) == ("source" in raw) or "sql" not in raw:
        raise ValueError(
            f"{family}[{index}]: needs sql and one of doc and source; unknown keys {sorted(unknown)}"
        )
    if ("expect" in raw) == ("fails" in raw):
        raise ValueError(f"{family}[{index}]: give exactly one of expect and fails")
    sql = str(raw["sql"]).strip().rstrip(";").strip()
    fails = None
    if "fails" in raw:
        fails = "" if raw["fails"] is True else str(raw["fails"])
    if "ordered" in raw:  # stated: e.g. False where an ORDER BY leaves ties in any order
        ordered = bool(raw["ordered"])
    elif "source" in raw:  # Trino's tests compare rows in any order unless .ordered()
        ordered = False
    else:
        ordered = bool(re.search(r"\border\s+by\b", _outer(sql), re.I))
    types = raw.get("type")
    return Example(
        family=family,
        index=index,
        doc=str(raw.get("doc", "")),
        sql=sql,
        expect=expected_rows(raw["expect"]) if "expect" in raw else None,
        fails=fails,
        athena=raw.get("athena"),
        ordered=ordered,
        doc_commit=raw.get("doc_commit"),
        doc_repo=str(raw.get("doc_repo", "trinodb/trino")),
        source=raw.get("source"),
        type=None
        if types is None
        else [str(t) for t in (types if isinstance(types, list) else [types])],
        message=raw.get("message"),
    )


def _outer(sql: str) -> str:
    """The statement with parenthesised parts removed (an ORDER BY inside a function call or
    an OVER clause does not order the result)."""
    depth, out = 0, []
    for ch in sql:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")"
    return "".join(out)


def load_examples(folder: Path = EXAMPLES_DIR) -> List[Example]:
    examples: List[Example] = []
    for path in sorted(folder.glob("*.yml")):
        entries = yaml.safe_load(path.read_text()) or []
        examples.extend(parse_example(path.stem, i, raw) for i, raw in enumerate(entries))
    return examples


def sample(examples: Sequence[Example], size: Optional[int], seed: int = 0) -> List[Example]:
    """``size`` examples chosen at random with ``seed``, kept in corpus order (all of them
    when ``size`` is None or not smaller)."""
    if size is None or size >= len(examples):
        return list(examples)
    import random

    chosen = set(random.Random(seed).sample(range(len(examples)), size))
    return [e for i, e in enumerate(examples) if i in chosen]


def load_corpus(name: str = "docs") -> List[Example]:
    """``docs`` (Trino's and Athena's documented examples), ``trino`` (Trino's unit tests,
    trino_examples/) or ``all``."""
    return [e for folder in CORPORA[name] for e in load_examples(folder)]


# ---------------------------------------------------------------------------------------
# Comparing values

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|-?\bNaN\b|-?\bInfinity\b")
_TIME_NO_FRACTION = re.compile(r"\b\d{2}:\d{2}:\d{2}(?![.\d])")
_TIME_ZERO_FRACTION = re.compile(r"\b(\d{2}:\d{2}:\d{2})\.0+(?!\d)")


def _significant_digits(token: str) -> int:
    mantissa = re.split(r"[eE]", token)[0].lstrip("-").replace(".", "").lstrip("0")
    return len(mantissa)


def numbers_equal(expected: str, actual: str) -> bool:
    """Rule 3 for one pair of number tokens."""
    if expected == actual:
        return True
    try:
        e, a = float(expected), float(actual)
    except ValueError:
        return False
    exponent = any(c in t for t in (expected, actual) for c in "eE")
    fractions = "." in expected and "." in actual
    if not (exponent or (fractions and _significant_digits(expected) >= 15)):
        return False
    if math.isnan(e) or math.isnan(a):
        return math.isnan(e) and math.isnan(a)
    return math.isclose(e, a, rel_tol=1e-12, abs_tol=0.0)


def _tokens(text: str) -> Tuple[List[str], List[str]]:
    """(the text between numbers, the numbers)."""
    return _NUMBER.split(text), _NUMBER.findall(text)


def scalar_equal(expected: str, actual: str, column_type: str) -> bool:
    if expected == actual:
        return True
    if _TIME_NO_FRACTION.search(expected) and not re.search(r"\d{2}:\d{2}:\d{2}\.", expected):
        actual = _TIME_ZERO_FRACTION.sub(r"\1", actual)
        if expected == actual:
            return True
    if column_type.lower() in TEXT_TYPES:
        return False
    e_text, e_nums = _tokens(expected)
    a_text, a_nums = _tokens(actual)
    return (
        e_text == a_text
        and len(e_nums) == len(a_nums)
        and all(numbers_equal(e, a) for e, a in zip(e_nums, a_nums))
    )


def split_top_level(body: str) -> List[str]:
    """``a=1, b=[2, 3]`` -> ``['a=1', 'b=[2, 3]']`` (commas inside brackets kept)."""
    parts, depth, current = [], 0, []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if depth == 0 and body.startswith(", ", i):
            parts.append("".join(current))
            current = []
            i += 2
            continue
        current.append(ch)
        i += 1
    if current or parts:
        parts.append("".join(current))
    return parts


def map_equal(expected: str, actual: str) -> bool:
    """Rule 4: the entries of two printed maps, in any order."""
    if not (expected.startswith("{") and expected.endswith("}")):
        return False
    if not (actual.startswith("{") and actual.endswith("}")):
        return False
    e_entries = split_top_level(expected[1:-1])
    a_entries = split_top_level(actual[1:-1])
    if len(e_entries) != len(a_entries):
        return False
    remaining = list(a_entries)
    for entry in e_entries:
        found = next((a for a in remaining if scalar_equal(entry, a, "map")), None)
        if found is None:
            return False
        remaining.remove(found)
    return True


def value_equal(expected: Optional[str], actual: Optional[str], column_type: str) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    if scalar_equal(expected, actual, column_type):
        return True
    return column_type.lower() == "map" and map_equal(expected, actual)


def rows_equal(
    expected: Sequence[Sequence[Optional[str]]],
    actual: Sequence[Sequence[Optional[str]]],
    types: Sequence[str],
    ordered: bool,
) -> bool:
    if len(expected) != len(actual) or any(len(r) != len(types) for r in [*expected, *actual]):
        return False

    def row_equal(e: Sequence[Optional[str]], a: Sequence[Optional[str]]) -> bool:
        return all(value_equal(x, y, t) for x, y, t in zip(e, a, types))

    if ordered:
        return all(row_equal(e, a) for e, a in zip(expected, actual))
    remaining = list(actual)
    for row in expected:
        found = next((a for a in remaining if row_equal(row, a)), None)
        if found is None:
            return False
        remaining.remove(found)
    return True


# ---------------------------------------------------------------------------------------
# Classifying a run

_STOP_WORDS = {"select", "from", "as", "not", "null", "and", "or", "the", "of", "in", "is"}


def sql_words(sql: str) -> List[str]:
    """Identifiers and keywords of a statement (quoted strings left out)."""
    without_strings = re.sub(r"'(?:[^']|'')*'", " ", sql)
    words = re.findall(r"[A-Za-z_][A-Za-z0-9_]+", without_strings)
    return [w for w in words if w.lower() not in _STOP_WORDS]


# Words of the emulator's own refusal text, never taken as naming a piece of the statement
_REFUSAL_WORDS = {
    "the",
    "a",
    "an",
    "of",
    "with",
    "number",
    "literal",
    "string",
    "unicode",
    "hexadecimal",
    "statement",
    "sqlglot",
    "cannot",
    "parse",
    "near",
    "run",
    "athena",
    "emulator",
    "function",
    "functions",
    "digits",
    "separated",
    "by",
}


def _literal_fragments(head: str) -> List[str]:
    """Pieces of a refusal's text that may quote the statement verbatim: its tokens (a
    literal such as ``0o40`` or ``U&'...'``, with the punctuation around them removed) and
    what a parse error quotes as ``near '...'``; at least two characters each."""
    tokens = [t.strip("()'\",.:;/") for t in head.split()]
    tokens += re.findall(r"near '([^']+)'", head)
    return [t for t in tokens if len(t) >= 2 and t.lower() not in _REFUSAL_WORDS]


def clean_not_supported(reason: str, sql: str) -> bool:
    """A NOT_SUPPORTED failure that names a construct of the statement: one of the
    statement's words, or a literal of it quoted verbatim."""
    if not reason.startswith("NOT_SUPPORTED"):
        return False
    head = reason.split("Statement:", 1)[0]
    if any(re.search(rf"\b{re.escape(w.lower())}\b", head.lower()) for w in sql_words(sql)):
        return True
    # a fragment that is no quoted literal itself must stand outside the statement's strings
    outside_strings = re.sub(r"'(?:[^']|'')*'", " ", sql).lower()
    return any(
        f.lower() in (sql.lower() if "'" in f else outside_strings)
        for f in _literal_fragments(head)
    )


@dataclass
class Run:
    """What the emulator did with one statement."""

    succeeded: bool
    rows: List[List[Optional[str]]] = field(default_factory=list)
    types: List[str] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0
    #: GetQueryResults' ``ResultSetMetadata.ColumnInfo`` (type_oracle.py checks it)
    column_info: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Outcome:
    example: Example
    outcome: str
    clean: bool = False  # for ERROR: a NOT_SUPPORTED naming the construct
    actual: Any = None  # rows, or the failure reason
    seconds: float = 0.0
    column_info: List[Dict[str, Any]] = field(default_factory=list)  # of a successful run

    def as_dict(self) -> Dict[str, Any]:
        e = self.example
        return {
            "id": e.id,
            "family": e.family,
            "doc": e.doc,
            "doc_repo": e.doc_repo,
            "sql": e.sql,
            "expect": e.expect,
            "fails": e.fails,
            "athena": e.athena,
            "source": e.source,
            "type": e.type,
            "message": e.message,
            "outcome": self.outcome,
            "clean_not_supported": self.clean,
            "actual": self.actual,
            "seconds": round(self.seconds, 3),
        }


def classify(example: Example, run: Run) -> Outcome:
    if example.expect is None:  # the doc says it fails
        if run.succeeded:
            return Outcome(example, SUCCESS_ON_ERROR, actual=run.rows, seconds=run.seconds)
        if run.reason.startswith("NOT_SUPPORTED"):
            clean = clean_not_supported(run.reason, example.sql)
            return Outcome(example, ERROR, clean, run.reason, run.seconds)
        stated = example.fails or ""
        if stated.lower() in run.reason.lower():
            return Outcome(example, MATCH, actual=run.reason, seconds=run.seconds)
        return Outcome(example, ERROR, False, run.reason, run.seconds)
    if not run.succeeded:
        clean = clean_not_supported(run.reason, example.sql)
        return Outcome(example, ERROR, clean, run.reason, run.seconds)
    verdict = MATCH if rows_equal(example.expect, run.rows, run.types, example.ordered) else WRONG
    return Outcome(
        example, verdict, actual=run.rows, seconds=run.seconds, column_info=run.column_info
    )


# ---------------------------------------------------------------------------------------
# Running through the emulator's Athena API


def run_query(athena: Any, sql: str, work_group: str = "primary") -> Run:
    """StartQueryExecution, poll GetQueryExecution, GetQueryResults (all pages)."""
    start = time.perf_counter()
    query_id = athena.start_query_execution(QueryString=sql, WorkGroup=work_group)[
        "QueryExecutionId"
    ]
    deadline = start + QUERY_TIMEOUT_S
    while True:
        status = athena.get_query_execution(QueryExecutionId=query_id)["QueryExecution"]["Status"]
        if status["State"] in ("SUCCEEDED", "FAILED", "CANCELLED"):
            break
        if time.perf_counter() > deadline:
            return Run(False, reason=f"TIMEOUT after {QUERY_TIMEOUT_S:.0f} s")
        time.sleep(0.01)
    if status["State"] != "SUCCEEDED":
        reason = status.get("StateChangeReason") or status["State"]
        return Run(False, reason=reason, seconds=time.perf_counter() - start)
    rows, info = _all_results(athena, query_id)
    types = [c.get("Type", "") for c in info]
    return Run(True, rows, types, seconds=time.perf_counter() - start, column_info=info)


def _all_results(
    athena: Any, query_id: str
) -> Tuple[List[List[Optional[str]]], List[Dict[str, Any]]]:
    """The rows (all pages, the header left out) and the first page's ColumnInfo."""
    rows: List[List[Optional[str]]] = []
    info: List[Dict[str, Any]] = []
    kwargs: Dict[str, Any] = {"QueryExecutionId": query_id}
    first = True
    while True:
        page = athena.get_query_results(**kwargs)
        result = page["ResultSet"]
        if first:
            info = list(result["ResultSetMetadata"]["ColumnInfo"])
        data = [[d.get("VarCharValue") for d in r["Data"]] for r in result["Rows"]]
        rows.extend(data[1:] if first else data)  # the first page starts with the header
        first = False
        if not page.get("NextToken"):
            return rows, info
        kwargs["NextToken"] = page["NextToken"]


def _run(athena: Any, sql: str) -> Run:
    try:
        return run_query(athena, sql)
    except Exception as exc:  # an API error (e.g. InvalidRequestException) is a failure too
        message = getattr(exc, "response", {}).get("Error", {}).get("Message")
        return Run(False, reason=message or f"{type(exc).__name__}: {exc}")


def run_example(athena: Any, example: Example) -> Outcome:
    return run_example_with_values(athena, example)[1]


def run_example_with_values(athena: Any, example: Example) -> Tuple[Outcome, Outcome]:
    """(the outcome of the values alone, the outcome with the stated types checked): the
    column forms (forms.py) are compared with the first, having no type check of their own."""
    outcome = classify(example, _run(athena, example.sql))
    if outcome.outcome == MATCH and example.type and example.expect is not None:
        return outcome, check_types(athena, example, outcome)
    return outcome, outcome


_CLAUSES = re.compile(
    r"\b(from|where|group|having|order|limit|union|intersect|except|offset)\b", re.I
)


def single_expression(sql: str) -> Optional[str]:
    """The expression of ``SELECT <expr>`` (one column, no FROM or other clause; None
    otherwise)."""
    body = re.sub(r"'(?:[^']|'')*'", "''", _outer(sql))
    simple = re.match(r"(?is)select\s", sql) and not _CLAUSES.search(body[6:])
    if simple and len(split_top_level(_outer(sql[6:]).replace(",", ", "))) == 1:
        return sql[6:].strip()
    return None


def type_query(example: Example) -> str:
    """The statement that prints the result's types: ``SELECT typeof(<expr>)`` for a
    one-column SELECT without clauses, else ``typeof`` of each column of the statement in a
    subquery (its first row)."""
    sql = example.sql
    columns = len(example.type or [])
    expression = single_expression(sql)
    if columns == 1 and expression is not None:
        return f"SELECT typeof({expression})"
    names = [f"c{i}" for i in range(columns)]
    typeofs = ", ".join(f"typeof({n})" for n in names)
    return f"SELECT {typeofs} FROM ({sql}) t({', '.join(names)}) LIMIT 1"


def normal_type(name: str) -> str:
    """A type's text compared exactly, up to case and spaces (``decimal(5, 2)`` is
    ``decimal(5,2)``)."""
    return re.sub(r"\s*,\s*", ",", " ".join(name.lower().split()))


def check_types(athena: Any, example: Example, outcome: Outcome) -> Outcome:
    """A MATCH of the values stays one only if ``typeof`` gives the stated types exactly:
    other types are WRONG; a failing ``typeof`` statement is an ERROR (its reason kept)."""
    sql = type_query(example)
    run = _run(athena, sql)
    seconds = outcome.seconds + run.seconds
    if not run.succeeded:
        clean = clean_not_supported(run.reason, sql)
        return Outcome(example, ERROR, clean, f"typeof: {run.reason}", seconds)
    if not run.rows:  # no row whose types could be read
        return outcome
    actual = [normal_type(t or "") for t in run.rows[0]]
    if actual == [normal_type(t) for t in example.type or []]:
        return Outcome(example, MATCH, actual=outcome.actual, seconds=seconds)
    found = {"rows": outcome.actual, "types": run.rows[0]}
    return Outcome(example, WRONG, actual=found, seconds=seconds)
