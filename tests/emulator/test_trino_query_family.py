"""Query constructs as Trino's own query tests (``io/trino/sql/query/``: TestJoinUsing,
TestValues, TestDistinctWithOrderBy, TestUnnest, TestWindowFrameGroups) state them, and
``row_number() over ()`` as dbt-athena's partitions tests send it, through the emulator's
Athena API over the columns of a Hive and an Iceberg table, a view over each and an import
CTE (tests/emulator/ledger_tables.py), and over VALUES and UNNEST.

On main before the change: ``row_number() over ()`` failed with Spark's "requires window to
be ordered"; ``VALUES CAST(ROW(...) AS row(...))`` gave one column holding the row where
Trino gives a column per field; ``JOIN ... USING (a)`` of an integer and a double column
gave the integer (Trino: their common type, a double; now refused NOT_SUPPORTED); ``t.k`` of a USING column and ``USING (k, k)`` ran where Trino fails;
``SELECT DISTINCT a, a + b ... ORDER BY a + b`` ran where Trino fails; UNNEST of an array
of named rows without column names named its columns ``_col0``, ... where Trino names them
by the row's fields; a GROUPS frame failed with a parse error, not NOT_SUPPORTED."""

from __future__ import annotations

from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.ledger_tables import forms, ledger_emulator, rows
from tests.emulator.table_forms import failure
from tests.emulator.test_athena_semantics import run

SCHEMA = "query_family"
FORMS, FORM_IDS = forms(SCHEMA)


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    """The ledger's tables and views (ledger_tables.py) in this module's schema."""
    yield from ledger_emulator(SCHEMA)


def answer(emu: Emulator, sql: str) -> list:
    state, found = run(emu, sql)
    assert state == "SUCCEEDED", (sql, found)
    return found[1:]


def source_sql(source: str, cte: bool, select: str, tail: str = "") -> str:
    if cte:
        return f"with t as (select * from {source}) select {select} from t {tail}"
    return f"select {select} from {source} t {tail}"


# ---- row_number() and the ranking functions over a window without ORDER BY ----------------
@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_row_number_over_an_unordered_window_of_a_table(
    emu: Emulator, source: str, cte: bool
) -> None:
    found = rows(
        emu,
        "row_number() over () as id, rank() over (), dense_rank() over (partition by t.k > 2), "
        "percent_rank() over (), cume_dist() over ()",
        source,
        cte,
    )
    assert sorted(int(r[0]) for r in found) == [1, 2, 3, 4, 5]
    assert {tuple(r[1:]) for r in found} == {("1", "1", "0.0", "1.0")}
    # lag and lead need an ORDER BY (StatementAnalyzer), an aggregate's own ORDER BY is refused
    reason = failure(emu, source_sql(source, cte, "lag(t.k) over ()"))
    assert "lag function requires an ORDER BY window clause" in reason, reason
    reason = failure(emu, source_sql(source, cte, "array_agg(t.k order by t.k) over ()"))
    assert "Window function with ORDER BY is not supported" in reason, reason


def test_row_number_over_an_unordered_window_of_values_and_unnest(emu: Emulator) -> None:
    found = answer(emu, "select row_number() over () as id, x from (values 'a', 'b', 'c') t(x)")
    assert sorted(int(r[0]) for r in found) == [1, 2, 3]
    # dbt-athena's partitions tests
    found = answer(
        emu,
        "select row_number() over () as id, cast(date_column as date) as date_column "
        "from unnest(sequence(from_iso8601_date('2023-01-01'), from_iso8601_date('2023-01-04'), "
        "interval '1' day)) as t(date_column)",
    )
    assert sorted(int(r[0]) for r in found) == [1, 2, 3, 4]
    assert sorted(r[1] for r in found) == ["2023-01-01", "2023-01-02", "2023-01-03", "2023-01-04"]
    found = answer(emu, "select ntile(2) over (), x from unnest(array[5, 6, 7, 8]) as u(x)")
    assert sorted(r[0] for r in found) == ["1", "1", "2", "2"]


# ---- VALUES of a row-typed value: a column per field (StatementAnalyzer.visitValues) ------
def test_values_of_a_row_value_are_its_fields(emu: Emulator) -> None:
    assert answer(emu, "VALUES CAST(ROW(1, 'TruE') AS row(double, boolean))") == [["1.0", "true"]]
    assert answer(
        emu,
        "SELECT key FROM (VALUES CAST(ROW(1, 'TruE') AS row(double, boolean)), ROW(2e0, false), "
        "(3e0, null)) T(key, value)",
    ) == [["1.0"], ["2.0"], ["3.0"]]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_values_of_a_row_value_over_a_table(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "v.a, v.b",
        source,
        cte,
        "cross join (values cast(row(2, 'x') as row(a integer, b varchar))) v(a, b) "
        "where t.k = v.a",
    )
    assert found == [["2", "x"]]


# ---- UNNEST of an array of named rows: the columns are the fields' names ------------------
def test_unnest_of_named_rows_names_its_columns_by_the_fields(emu: Emulator) -> None:
    array = "CAST(ARRAY[ROW(1, 'a'), ROW(2, 'b')] as ARRAY(ROW(x int, y varchar)))"
    assert answer(emu, f"SELECT x FROM UNNEST({array})") == [["1"], ["2"]]
    assert answer(emu, f"SELECT u.y FROM (VALUES (3)) AS t(x) CROSS JOIN UNNEST({array}) u") == [
        ["a"],
        ["b"],
    ]
    reason = failure(emu, f"SELECT x FROM (VALUES (3)) AS t(x) CROSS JOIN UNNEST({array})")
    assert "ambiguous" in reason.lower() and "NOT_SUPPORTED" not in reason, reason


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_unnest_of_named_rows_over_a_table(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "t.k, y",
        source,
        cte,
        "cross join unnest(cast(array[row(t.k, 'a')] as array(row(x bigint, y varchar)))) "
        "where x = t.k and t.k < 3 order by t.k",
    )
    assert found == [["1", "a"], ["2", "a"]]


# ---- JOIN ... USING (TestJoinUsing) -------------------------------------------------------
def test_join_using_columns_of_two_types_is_refused(emu: Emulator) -> None:
    # Trino's USING column has both sides' common type (1.0); Spark's the left one's (1)
    for right in ("(VALUES (1e0, 3))", "(VALUES (DOUBLE '1.0', 3))"):
        sql = f"SELECT * FROM (VALUES (1, 2e0)) x (a, b) JOIN {right} y (a, b) USING(a)"
        reason = failure(emu, sql)
        assert reason.startswith("NOT_SUPPORTED") and "USING (a)" in reason, reason


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_join_using_over_a_table(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(emu, "k, u.amount", source, cte, f"join {source} u using (k) where k = 3")
    assert found == [["3", "-3.35"]]
    # k is a bigint, y.k a double
    reason = failure(emu, source_sql(source, cte, "k", "join (values (2e0)) y(k) using (k)"))
    assert reason.startswith("NOT_SUPPORTED") and "USING (k)" in reason, reason
    reason = failure(emu, source_sql(source, cte, "t.k", f"join {source} u using (k)"))
    assert "cannot be resolved" in reason and "NOT_SUPPORTED" not in reason, reason
    reason = failure(emu, source_sql(source, cte, "*", f"join {source} u using (k, k)"))
    assert "appears multiple times in USING" in reason, reason


# ---- SELECT DISTINCT ... ORDER BY (TestDistinctWithOrderBy) -------------------------------
def test_distinct_order_by_an_output_name_in_an_expression_fails(emu: Emulator) -> None:
    for select in ("1 AS a, a + b", "-a AS a, a + b", "a, a + b"):
        sql = f"SELECT DISTINCT {select} FROM (VALUES (1, 2)) t(a, b) ORDER BY a + b"
        reason = failure(emu, sql)
        assert "ORDER BY expressions must appear in select list" in reason, (sql, reason)
    for select, order in (("a + B", "a + b"), ("a + t.B", "a + t.b"), ("a + B", "a + t.b")):
        sql = (
            f"SELECT DISTINCT {select} FROM (VALUES (2, 2), (1, 1), (2, 2)) t(a, b) "
            f"ORDER BY {order}"
        )
        assert answer(emu, sql) == [["2"], ["4"]], sql


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_distinct_order_by_over_a_table(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(emu, "distinct t.k * 2", source, cte, "where t.k < 4 order by T.K * 2 desc")
    assert found == [["6"], ["4"], ["2"]]
    reason = failure(emu, source_sql(source, cte, "distinct k, k + 1", "order by k + 1"))
    assert "ORDER BY expressions must appear in select list" in reason, reason


# ---- GROUPS frames (TestWindowFrameGroups): Spark has none --------------------------------
def test_groups_frame_is_refused_naming_it(emu: Emulator) -> None:
    reason = failure(
        emu,
        "SELECT array_agg(a) OVER(ORDER BY a GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) "
        "FROM (VALUES 1, 2) t(a)",
    )
    assert reason.startswith("NOT_SUPPORTED") and "GROUPS" in reason, reason


# ---- a subquery whose select list reads the outer row (TestSelectAll) ---------------------
def test_subquery_reading_the_outer_row_in_its_select_list(emu: Emulator) -> None:
    outer = "FROM (VALUES 1, 2) t(a)"
    assert answer(emu, f"SELECT (SELECT t.* FROM (VALUES 0) LIMIT 1) {outer}") == [["1"], ["2"]]
    assert answer(emu, f"SELECT (SELECT t.* FROM (VALUES 0) LIMIT 0) {outer}") == [[None], [None]]
    assert answer(emu, f"SELECT EXISTS(SELECT t.* FROM (VALUES 0)) {outer}") == [
        ["true"],
        ["true"],
    ]
    for sql in (
        "SELECT (SELECT t.* FROM (VALUES 0) t2(b) WHERE b > 1) FROM (VALUES 1) t(a)",
        "SELECT (SELECT t.* FROM (SELECT * FROM (VALUES 0, 1) LIMIT 1)) FROM (VALUES 2, 3) t(a)",
    ):
        reason = failure(emu, sql)
        assert reason.startswith("NOT_SUPPORTED") and "correlated subquery" in reason, reason


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_subquery_reading_the_outer_row_over_a_table(emu: Emulator, source: str, cte: bool) -> None:
    found = rows(
        emu,
        "(select t.k * 10 from (values 0) limit 1), "
        "exists(select t.amount from (values 2) v(n) where v.n = t.k)",
        source,
        cte,
        "order by t.k",
    )
    assert found == [["10", "false"], ["20", "true"], ["30", "false"], ["40", "false"],
                     ["50", "false"]]  # fmt: skip
    reason = failure(
        emu, source_sql(source, cte, "(select t.k from (values 0, 1) v(n) where v.n > 0)")
    )
    assert reason.startswith("NOT_SUPPORTED") and "correlated subquery" in reason, reason


# ---- RANGE frames with a fractional offset (TestWindowFrameRange) -------------------------
def test_range_frame_with_a_fractional_offset_over_integers(emu: Emulator) -> None:
    sql = (
        "SELECT a, array_agg(a) OVER(ORDER BY a RANGE BETWEEN 0.5 FOLLOWING AND 1.5 FOLLOWING) "
        "FROM (VALUES 1, 2, 4) t(a) ORDER BY a"
    )
    assert answer(emu, sql) == [["1", "[2]"], ["2", None], ["4", None]]


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_range_frame_with_a_fractional_offset_over_a_table(
    emu: Emulator, source: str, cte: bool
) -> None:
    window = "order by t.k range between 0.5 following and 1.5 following"
    found = rows(emu, f"t.k, array_agg(t.k) over ({window})", source, cte, "order by t.k")
    assert found == [["1", "[2]"], ["2", "[3]"], ["3", "[4]"], ["4", "[5]"], ["5", None]]
    # amount is a decimal(18,2): an offset of 0.005 keeps 10.00 and 10.01 apart
    window = "order by t.amount range between 0.005 preceding and 0.005 following"
    found = rows(emu, f"t.k, count(*) over ({window})", source, cte, "order by t.k")
    assert found == [["1", "1"], ["2", "1"], ["3", "1"], ["4", "1"], ["5", "1"]]
