"""sample.py and the read plan under dbt run --sample: the event_time window as data."""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.plan import Read, build_read_plan
from dbt_athena_cross_account.resolver import Resolution
from dbt_athena_cross_account.sample import SampleError, column_name, spark_window

RENDERED = (
    '(select * from "partner_catalog"."sales"."events" where cast(ts as timestamp) >= '
    "timestamp '2026-11-28 00:00:00+00:00' and cast(ts as timestamp) < timestamp "
    "'2026-12-01 00:00:00+00:00')"
)
WINDOW = {"column": "ts", "start": "2026-11-28 00:00:00+00:00", "end": "2026-12-01 00:00:00+00:00"}


@pytest.mark.parametrize(
    ("field", "column"),
    [
        ("ts", "ts"),
        (' "Event Time" ', "Event Time"),
        ('"a""b"', 'a"b'),
        ("`x``y`", "x`y"),
        ("date(ts)", None),
        ("ts; drop", None),
        ("", None),
        ('"unclosed', None),
    ],
)
def test_column_names(field, column):
    assert column_name(field) == column


def test_the_window_is_spark_quoted_and_iso():
    assert spark_window("m", "l", WINDOW) == {
        "column": "`ts`",
        "start": "2026-11-28 00:00:00+00:00",
        "end": "2026-12-01 00:00:00+00:00",
    }
    assert spark_window("m", "l", {**WINDOW, "start": None})["start"] is None
    assert spark_window("m", "l", None) is None
    assert spark_window("m", "l", {"column": "ts", "start": None, "end": None}) is None


@pytest.mark.parametrize(
    ("window", "said"),
    [
        ({**WINDOW, "column": "cast(ts as date)"}, "which is not a column name"),
        ({**WINDOW, "end": "next tuesday"}, "whose window end 'next tuesday' is not a timestamp"),
    ],
)
def test_what_cannot_be_applied_is_an_error(window, said):
    with pytest.raises(SampleError, match=said):
        spark_window("model.p.m", "source('partner', 'events')", window)


def resolve(names):
    return {n.lower(): Resolution(n, "GLUE", "999999999999") for n in names}


def read(**kwargs):
    base = dict(
        label="source('partner', 'events')",
        keys=(RENDERED,),
        catalog="partner_catalog",
        schema="sales",
        table="events",
    )
    return Read(**{**base, **kwargs})


def test_the_plan_carries_the_window_for_owner_and_local_tables():
    plan = build_read_plan(
        "model.p.m",
        [read(window=WINDOW), read(catalog="awsdatacatalog", keys=("k",), window=WINDOW)],
        resolve,
    )
    assert plan.tables[RENDERED]["window"]["column"] == "`ts`"
    assert plan.tables[RENDERED]["table"] == "`999999999999/sales`.`events`"
    assert plan.tables["k"]["window"]["end"] == "2026-12-01 00:00:00+00:00"


def test_a_filtered_subquery_without_a_window_stops_the_model():
    with pytest.raises(
        CrossAccountCatalogError, match="reading the whole table would be a silent wrong result"
    ):
        build_read_plan("model.p.m", [read()], resolve)
    # --empty's subquery is explained by empty
    empty = read(keys=('(select * from "c"."s"."t" where false limit 0)',), empty=True)
    assert build_read_plan("model.p.m", [empty], resolve).tables
