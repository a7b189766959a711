"""The type oracle (type_oracle.py): its rules for Athena's ColumnInfo and CTAS Glue types of
a Trino type (pure), and a fixed sample of the Trino corpus's typed entries on the emulator,
checked against the known differences (type_oracle_known.json).

The sample: SAMPLE entries that state their type (seed SEED), each with its ``typeof``, its
ColumnInfo and the Glue type of its CTAS. An entry fails when one of its checks differs and
the known differences do not list that check for it, or when a listed difference now agrees
(the list must stay true: remove the entry). A check that could not run (its statement
failed) is no difference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from tests.conformance.harness import MATCH, Example, Outcome, load_corpus, sample
from tests.conformance.type_oracle import (
    AGREE,
    CHECKS,
    DIFFERS,
    TrinoType,
    check_column_info,
    check_entry,
    ctas_statement,
    expected_column_info,
    hive_glue_type,
    parse_type,
)

KNOWN_PATH = Path(__file__).resolve().parent / "type_oracle_known.json"
SAMPLE = 150
SEED = 0
SCHEMA = "conformance_type_oracle"


# ---- pure: the rules -----------------------------------------------------------------------


def test_parse_type_reads_typeofs_text() -> None:
    assert parse_type("decimal(5, 2)") == TrinoType("decimal", (5, 2))
    assert parse_type("timestamp(6) with time zone") == TrinoType("timestamp with time zone", (6,))
    assert parse_type("interval day to second") == TrinoType("interval day to second")
    row = parse_type('row(x integer, "a b" varchar(3), double, timestamp(3) with time zone)')
    assert row.names == ("x", "a b", None, None)
    assert [c.base for c in row.children] == [
        "integer",
        "varchar",
        "double",
        "timestamp with time zone",
    ]
    assert parse_type("map(varchar(1), array(bigint))").children[1] == TrinoType(
        "array", (), (TrinoType("bigint"),)
    )


@pytest.mark.parametrize(
    "trino, info",
    [
        ("integer", ("integer", 10, 0)),
        ("bigint", ("bigint", 19, 0)),
        ("varchar", ("varchar", 2147483647, 0)),
        ("varchar(3)", ("varchar", 3, 0)),
        ("decimal(5,2)", ("decimal", 5, 2)),
        ("decimal(5)", ("decimal", 5, 0)),
        ("timestamp(3)", ("timestamp", 3, 0)),
        ("timestamp(6)", ("timestamp", None, None)),  # not recorded: Type only
        ("real", ("float", 17, 0)),
        ("array(integer)", ("array", 0, 0)),
        ("row(x integer)", ("row", 0, 0)),
        ("time(3) with time zone", ("time with time zone", None, None)),
    ],
)
def test_expected_column_info(trino: str, info: Tuple[Any, ...]) -> None:
    assert expected_column_info(trino) == info


def test_column_info_differences_are_found() -> None:
    example = Example("f", 0, "", "SELECT 1", [["1"]], type=["varchar(3)", "timestamp(6)"])
    agree = [
        {"Type": "varchar", "Precision": 3, "Scale": 0},
        {"Type": "timestamp", "Precision": 6, "Scale": 0},
    ]
    assert check_column_info(example, agree) is None
    for wrong in (
        [{**agree[0], "Precision": 2147483647}, agree[1]],
        [agree[0], {**agree[1], "Type": "varchar"}],
        agree[:1],
    ):
        assert check_column_info(example, wrong) is not None


@pytest.mark.parametrize(
    "trino, glue",
    [
        ("integer", "int"),
        ("real", "float"),
        ("varchar", "string"),
        ("varchar(3)", "varchar(3)"),
        ("varchar(70000)", None),
        ("char(3)", "char(3)"),
        ("varbinary", "binary"),
        ("timestamp(9)", "timestamp"),
        ("decimal(38,2)", "decimal(38,2)"),
        ("array(row(x integer, y varchar))", "array<struct<x:int,y:string>>"),
        ("map(varchar(1), double)", "map<varchar(1),double>"),
        ("row(integer, double)", None),  # anonymous fields: NOT_SUPPORTED in Hive
        ("timestamp(3) with time zone", None),
        ("time(3)", None),
        ("json", None),
        ("interval day to second", None),
        ("unknown", None),
        ("array(json)", None),
    ],
)
def test_hive_glue_type(trino: str, glue: Any) -> None:
    assert hive_glue_type(trino) == glue


def test_ctas_statement() -> None:
    assert ctas_statement("SELECT abs(-1)", "s.t") == "CREATE TABLE s.t AS SELECT abs(-1) AS c"
    assert (
        ctas_statement("SELECT x FROM (VALUES 1) t(x)", "s.t")
        == "CREATE TABLE s.t AS SELECT c FROM (SELECT x FROM (VALUES 1) t(x)) t(c)"
    )
    assert ctas_statement("SELECT 1 AS y", "s.t").endswith("FROM (SELECT 1 AS y) t(c)")


def test_typeof_verdict_follows_the_value_outcome() -> None:
    example = Example("f", 0, "", "SELECT 1", [["1"]], type=["integer"])
    info = [{"Type": "integer", "Precision": 10, "Scale": 0}]
    values = Outcome(example, MATCH, actual=[["1"]], column_info=info)
    check = check_entry(example, values, values)
    assert check is not None and (check.typeof, check.column_info) == (AGREE, AGREE)
    wrong = Outcome(example, "WRONG", actual={"rows": [["1"]], "types": ["bigint"]})
    check = check_entry(example, values, wrong)
    assert check is not None and check.typeof == DIFFERS and check.found["typeof"] == ["bigint"]
    failed = Outcome(example, "ERROR", actual="boom")
    assert check_entry(example, failed, failed) is None


# ---- on the emulator: a fixed sample against the known differences -----------------------

TYPED = [e for e in load_corpus("trino") if e.type and e.expect is not None]
EXAMPLES = sample(TYPED, SAMPLE, SEED)


def _known() -> Dict[str, List[str]]:
    return dict(json.loads(KNOWN_PATH.read_text()))


def test_the_known_differences_name_typed_entries_and_checks() -> None:
    ids = {e.id for e in TYPED}
    known = _known()
    assert sorted(set(known) - ids) == []
    assert all(set(checks) <= set(CHECKS) and checks for checks in known.values())


@pytest.fixture(scope="module")
def clients() -> Iterator[Tuple[Any, Any]]:
    from athena_spark_emulator import Emulator

    with Emulator(executor="spark") as emu:
        emu.prepare()
        emu.catalog.ensure_database(emu.catalog.local_account, SCHEMA)
        yield emu.client("athena"), emu.client("glue")


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_types_as_the_known_differences_say(clients: Tuple[Any, Any], example: Example) -> None:
    from tests.conformance.harness import run_example_with_values

    athena, glue = clients
    values, literal = run_example_with_values(athena, example)
    check = check_entry(example, values, literal, athena, glue, SCHEMA)
    if check is None:  # the statement failed: no type to check
        return
    known = set(_known().get(example.id, []))
    differing = set(check.differing())
    now_agree = {c for c in known if check.status(c) == AGREE}
    problems = [f"{c} differs" for c in sorted(differing - known)]
    problems += [f"{c} now agrees: remove it from {KNOWN_PATH.name}" for c in sorted(now_agree)]
    if problems:
        pytest.fail(
            f"{'; '.join(problems)} ({example.source}): {example.sql}\n"
            f"stated: {example.type}\nfound:  {check.found}",
            pytrace=False,
        )
