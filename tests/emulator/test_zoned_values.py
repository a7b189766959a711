"""Values of ``timestamp(p) with time zone`` compared, shifted by intervals, truncated and
cast, as Trino 410 computes them (io.trino.operator.scalar.timestamptz:
TimestampWithTimeZoneOperators, DateTrunc, the casts; TimestampWithTimeZoneType compares
and hashes the instant, not the zone). Over literals, and over the timestamp and zone-name
columns of a Hive and an Iceberg table, a view over each and an import CTE, made zoned with
``with_timezone`` / ``at_timezone`` (Athena refuses a zoned column in CTAS: those tables
hold its parts).

On main before the change each of these was refused NOT_SUPPORTED ("a timestamp with time
zone used in ...", "a time zone that is not a literal", "a cast of a timestamp with time
zone")."""

from __future__ import annotations

from typing import Iterator, Optional

import pytest

from athena_spark_emulator import Emulator
from tests.emulator.table_forms import emulator_with_tables, failure, row
from tests.emulator.test_athena_semantics import run

SCHEMA = "zoned_values"
ROWS = (
    "(1, timestamp '2012-10-31 08:00:00', 'UTC'), "
    "(2, timestamp '2012-10-31 01:00:00', 'America/Los_Angeles'), "
    "(3, timestamp '2012-10-31 09:00:00', 'Europe/Berlin'), "
    "(4, timestamp '2020-03-08 01:30:00', 'America/Los_Angeles'), "
    "(5, timestamp '2020-05-01 12:34:56.123', 'Asia/Kathmandu')"
)
STAMPS = f"select * from (values {ROWS}) v(k, ts, zone)"
TABLES = {
    "hive": f"create table {SCHEMA}.stamps_hive with (format='PARQUET', "
    f"external_location='s3://dbt-data/{SCHEMA}/stamps_hive/') as {STAMPS}",
    "iceberg": f"create table {SCHEMA}.stamps_iceberg with (table_type='ICEBERG', "
    f"is_external=false, location='s3://dbt-data/{SCHEMA}/stamps_iceberg/') as {STAMPS}",
}
VIEW = f"create view {SCHEMA}.v_stamps_{{kind}} as select * from {SCHEMA}.stamps_{{kind}}"
FORMS = [
    (f"{SCHEMA}.{name}_{kind}", cte)
    for kind in ("hive", "iceberg")
    for name in ("stamps", "v_stamps")
    for cte in (False, True)
]
FORM_IDS = [f"{s.split('.')[1]}-{'cte' if c else 'from'}" for s, c in FORMS]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    yield from emulator_with_tables(SCHEMA, TABLES, VIEW)


def value(emu: Emulator, expression: str) -> Optional[str]:
    return row(emu, f"select {expression}")[0]


LA = "America/Los_Angeles"
KTM = "Asia/Kathmandu"


@pytest.mark.parametrize(
    "expression, expected",
    [
        # the instant, not the zone (TestTimestampWithTimeZone's equal and TestArrayOperators)
        (f"timestamp '2012-10-31 08:00 UTC' = timestamp '2012-10-31 01:00 {LA}'", "true"),
        (f"timestamp '2012-10-31 08:00 UTC' <> timestamp '2012-10-31 01:00 {LA}'", "false"),
        (f"timestamp '2020-05-01 12:34:56 {KTM}' < timestamp '2020-05-01 07:00:00 UTC'", "true"),
        (f"timestamp '2020-05-01 12:34:56 {KTM}' >= timestamp '2020-05-01 07:00 UTC'", "false"),
        (
            f"timestamp '2020-05-01 11:33:56.123 +04:44' is distinct from "
            f"timestamp '2020-05-01 12:34:56.123 {KTM}'",
            "false",
        ),
        (
            f"timestamp '2020-05-01 12:34:56.123456789 {KTM}' > "
            f"timestamp '2020-05-01 12:34:56.123456788 {KTM}'",
            "true",
        ),
        (
            f"timestamp '2012-10-31 09:00 Europe/Berlin' between "
            f"timestamp '2012-10-31 01:00 {LA}' and timestamp '2012-10-31 08:00:00.001 UTC'",
            "true",
        ),
        (
            f"timestamp '2012-10-31 09:00 Europe/Berlin' in "
            f"(timestamp '2012-10-31 00:00 UTC', timestamp '2012-10-31 01:00 {LA}')",
            "true",
        ),
        ("timestamp '2012-10-31 08:00 UTC' = cast(null as timestamp with time zone)", None),
        # + and - of intervals: day to second on the instant, year to month in the zone
        (
            f"timestamp '2020-05-01 12:34:56.123 {KTM}' + interval '1' day",
            f"2020-05-02 12:34:56.123 {KTM}",
        ),
        (
            f"interval '1' month + timestamp '2020-05-01 12:34:56.123 {KTM}'",
            f"2020-06-01 12:34:56.123 {KTM}",
        ),
        (
            f"timestamp '2020-05-01 12:34:56 {KTM}' + interval '1.123' second",
            f"2020-05-01 12:34:57.123 {KTM}",
        ),
        (f"timestamp '2020-03-08 01:30 {LA}' + interval '1' day", f"2020-03-09 02:30:00.000 {LA}"),
        (
            f"timestamp '2020-03-31 01:30:00.123456 {LA}' - interval '1' month",
            f"2020-02-29 01:30:00.123456 {LA}",
        ),
        # date_trunc in the value's zone
        (
            f"date_trunc('hour', timestamp '2020-05-10 12:34:56.123 {KTM}')",
            f"2020-05-10 12:00:00.000 {KTM}",
        ),
        (
            f"date_trunc('week', timestamp '2020-05-10 12:34:56.123456 {KTM}')",
            f"2020-05-04 00:00:00.000000 {KTM}",
        ),
        (
            f"date_trunc('quarter', timestamp '2020-05-10 12:34:56.123 {KTM}')",
            f"2020-04-01 00:00:00.000 {KTM}",
        ),
        # casts
        (
            f"cast(timestamp '2020-05-10 12:34:56.555555 {KTM}' as timestamp(3) with time zone)",
            f"2020-05-10 12:34:56.556 {KTM}",
        ),
        (
            "cast(timestamp '2020-05-01 12:34:56 UTC' as timestamp(6) with time zone)",
            "2020-05-01 12:34:56.000000 UTC",
        ),
        (
            "cast(timestamp '2020-05-01 12:34:56.123' as timestamp with time zone)",
            "2020-05-01 12:34:56.123 UTC",
        ),
        (f"cast(timestamp '2020-05-01 12:34:56 {KTM}' as varchar)", f"2020-05-01 12:34:56 {KTM}"),
        # fields
        ("extract(timezone_minute from timestamp '2020-05-10 12:34:56.123 +08:35')", "35"),
        (f"year_of_week(timestamp '2021-01-01 12:34:56.123 {KTM}')", "2020"),
        (f"extract(dow from timestamp '2020-05-10 12:34:56.123456789 {KTM}')", "7"),
        (f"second(timestamp '2020-05-10 12:34:59.9999999 {KTM}')", "59"),
    ],
)
def test_literals(emu: Emulator, expression: str, expected: Optional[str]) -> None:
    assert value(emu, expression) == expected


ZONED = "with_timezone(t.ts, t.zone)"


def over_t(source: str, cte: bool, columns: str) -> str:
    """``SELECT columns`` over ``source`` as ``t``, directly or through an import CTE."""
    if cte:
        return f"with t as (select * from {source}) select {columns} from t"
    return f"select {columns} from {source} t"


@pytest.mark.parametrize("source, cte", FORMS, ids=FORM_IDS)
def test_columns_made_zoned(emu: Emulator, source: str, cte: bool) -> None:
    # 08:00 UTC, 01:00 in Los Angeles and 09:00 in Berlin are one instant
    found = row(
        emu,
        over_t(
            source,
            cte,
            f"count_if({ZONED} = timestamp '2012-10-31 08:00 UTC'), "
            f"count_if(at_timezone({ZONED}, 'UTC') < timestamp '2012-10-31 08:00:00.001 UTC'), "
            f"max(case when t.k = 4 then cast({ZONED} + interval '1' day as varchar) end), "
            f"max(case when t.k = 5 then cast(date_trunc('hour', {ZONED}) as varchar) end)",
        ),
    )
    zeros = "000000" if "iceberg" in source else "000"  # timestamp(6) / timestamp(3)
    assert found == [
        "3",
        "3",
        f"2020-03-09 02:30:00.{zeros} America/Los_Angeles",
        f"2020-05-01 12:00:00.{zeros} Asia/Kathmandu",
    ]


def test_a_zone_column_names_an_unknown_zone(emu: Emulator) -> None:
    reason = failure(
        emu,
        f"select with_timezone(t.ts, concat(t.zone, 'x')) from {SCHEMA}.stamps_hive t "
        "where t.k = 1",
    )
    assert reason.startswith("NOT_SUPPORTED") and "'UTCx'" in reason, reason


def test_zoned_value_compared_with_text_is_refused(emu: Emulator) -> None:
    reason = failure(emu, f"select with_timezone(t.ts, t.zone) = 'x' from {SCHEMA}.stamps_hive t")
    assert reason.startswith("NOT_SUPPORTED"), reason


#: the same instants in three zones, and one an hour later (a CTE and a derived table)
ZONED_ROWS = (
    "(1, timestamp '2012-10-31 08:00 UTC'), (2, timestamp '2012-10-31 01:00 America/Los_Angeles'), "
    "(3, timestamp '2012-10-31 09:00 Europe/Berlin'), (4, timestamp '2012-10-31 09:00 UTC')"
)
ZONED_SOURCES = {
    "cte": f"with t as (select * from (values {ZONED_ROWS}) x(k, v)) select {{}} from t",
    "derived": f"select {{}} from (values {ZONED_ROWS}) t(k, v)",
}


@pytest.mark.parametrize("shape", sorted(ZONED_SOURCES))
def test_a_column_of_zoned_values(emu: Emulator, shape: str) -> None:
    query = ZONED_SOURCES[shape]
    eight = "timestamp '2012-10-31 08:00 UTC'"
    found = row(
        emu,
        query.format(
            f"count_if(v = {eight}), count_if(v > {eight}), "
            f"count_if(v between {eight} and v), "
            f"max(case when k = 2 then cast(v + interval '1' hour as varchar) end), "
            f"max(case when k = 3 then cast(date_trunc('month', v) as varchar) end), "
            f"max(case when k = 2 then hour(v) end)"
        ),
    )
    assert found == [
        "3",
        "1",
        "4",
        "2012-10-31 02:00:00.000 America/Los_Angeles",
        "2012-10-01 00:00:00 Europe/Berlin",
        "1",
    ]
    shown = run(emu, query.format("k, v") + " where v < timestamp '2012-10-31 09:00 UTC'")
    assert shown[0] == "SUCCEEDED", shown
    assert sorted(map(tuple, shown[1][1:])) == [
        ("1", "2012-10-31 08:00:00.000 UTC"),
        ("2", "2012-10-31 01:00:00.000 America/Los_Angeles"),
        ("3", "2012-10-31 09:00:00.000 Europe/Berlin"),
    ]


@pytest.mark.parametrize("shape", sorted(ZONED_SOURCES))
@pytest.mark.parametrize(
    "tail", ["group by v", "order by v", "distinct", "union"], ids=lambda t: t.split()[0]
)
def test_grouping_zoned_values_is_refused(emu: Emulator, shape: str, tail: str) -> None:
    """Spark would group, order and deduplicate the text, not the instant: refused."""
    query = ZONED_SOURCES[shape]
    if tail == "distinct":
        sql = query.format("distinct v")
    elif tail == "union":
        sql = query.format("v") + " union " + ZONED_SOURCES["derived"].format("v")
    else:
        sql = query.format("count(*)" if tail.startswith("group") else "v") + " " + tail
    assert failure(emu, sql).startswith("NOT_SUPPORTED"), sql


@pytest.mark.parametrize(
    "expression, expected",
    [
        (f"cast(timestamp '2020-05-01 12:34:56.123456789 {KTM}' as time(9))", "12:34:56.123456789"),
        (f"cast(timestamp '2020-05-01 23:59:59.999999 {KTM}' as time(0))", "00:00:00"),
        (f"cast(timestamp '2020-05-01 12:34:56.555555 {KTM}' as time(1))", "12:34:56.6"),
        (
            f"cast(timestamp '2020-05-01 12:34:56.555555555 {KTM}' as time(3) with time zone)",
            "12:34:56.556+05:45",
        ),
        (
            f"cast(timestamp '2020-03-08 01:23:45 {LA}' as time(0) with time zone)",
            "01:23:45-08:00",
        ),
        (
            "cast(timestamp '2020-05-01 12:34:56.12 UTC' as time(6) with time zone)",
            "12:34:56.120000+00:00",
        ),
    ],
)
def test_times_of_day(emu: Emulator, expression: str, expected: str) -> None:
    """TimestampWithTimeZoneToTimeCast / ...ToTimeWithTimeZoneCast: the wall time of day,
    p digits (SqlTime)."""
    assert value(emu, expression) == expected


@pytest.mark.parametrize("source, cte", FORMS[:4], ids=FORM_IDS[:4])
def test_a_column_s_time_of_day(emu: Emulator, source: str, cte: bool) -> None:
    found = row(emu, over_t(source, cte, f"cast({ZONED} as time(3))") + " where t.k = 5")
    assert found == ["12:34:56.123"]
