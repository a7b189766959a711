"""Partitions as Glue keeps them, so that insert_overwrite replaces exactly what it rewrites, through the real dbt CLI on the emulator with
local Spark, checked on ROWS and on Glue's partitions:

* dbt-athena's default incremental strategy (insert_overwrite on a partitioned Hive table)
  run twice replaces exactly the partition it rewrites (it appended before: 6 rows for 4,
  and Glue listed no partition for dbt-athena's GetPartitions to replace);
* a CTAS of 150 partitions fails on Athena's 100-writer limit and goes through
  dbt-athena's batching;
* a table's Glue partitions survive ``--data-dir`` (the state file keeps them);
* the partition statements (add/drop partition, msck repair, show partitions).

One dbt project (tests/integration/statements_project/) and the session emulator."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.accounts.catalog import TableRef
from tests.integration.conftest import rows, seeded_with_spark
from tests.stack import dbt_cli

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

PROJECT = Path(__file__).with_name("statements_project")
SCHEMA = "partitions"


class Project:
    def __init__(self, path: Path, emulator: Emulator) -> None:
        self.path = path
        self.emulator = emulator

    def dbt(self, *args: str) -> Any:
        env = {**self.emulator.env(), "DBT_SCHEMA": SCHEMA}
        return dbt_cli(list(args), self.path, self.path, env)


def athena(
    emulator: Emulator, sql: str, database: str = SCHEMA, work_group: str = "primary"
) -> Dict[str, Any]:
    """Run one statement through Athena's API: its final status and (text) rows."""
    client = emulator.client("athena")
    exec_id = client.start_query_execution(
        QueryString=sql, QueryExecutionContext={"Database": database}, WorkGroup=work_group
    )["QueryExecutionId"]
    execution = client.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]
    found: Dict[str, Any] = {"state": execution["Status"]["State"], "execution": execution}
    found["reason"] = execution["Status"].get("StateChangeReason", "")
    if found["state"] == "SUCCEEDED":
        result = client.get_query_results(QueryExecutionId=exec_id)["ResultSet"]
        found["rows"] = [[d.get("VarCharValue") for d in r["Data"]] for r in result["Rows"]]
    return found


def glue_partitions(emulator: Emulator, table: str, expression: Optional[str] = None) -> List:
    glue = emulator.client("glue")
    params: Dict[str, Any] = {"DatabaseName": SCHEMA, "TableName": table}
    if expression:
        params["Expression"] = expression
    pages = glue.get_paginator("get_partitions").paginate(**params)
    return sorted(
        (p["Values"], p["StorageDescriptor"]["Location"])
        for page in pages
        for p in page["Partitions"]
    )


@pytest.fixture(scope="module")
def project(
    tmp_path_factory: pytest.TempPathFactory, emulator: Emulator, spark_executor: Any
) -> Iterator[Project]:
    path = tmp_path_factory.mktemp("partitions") / "statements_project"
    shutil.copytree(PROJECT, path)
    with seeded_with_spark(emulator, spark_executor, {}):
        emulator.catalog.ensure_database(LOCAL_ACCOUNT, SCHEMA)  # for the statements alone
        yield Project(path, emulator)


def test_insert_overwrite_run_twice_replaces_exactly_the_changed_partition(
    project: Project,
) -> None:
    first = project.dbt("run", "--select", "orders_by_day")
    assert first.returncode == 0, first.stdout[-3000:]
    location = project.emulator.catalog.get_table(TableRef(LOCAL_ACCOUNT, SCHEMA, "orders_by_day"))[
        "StorageDescriptor"
    ]["Location"].rstrip("/")
    assert glue_partitions(project.emulator, "orders_by_day") == [
        (["2024-01-01"], f"{location}/order_date=2024-01-01"),
        (["2024-01-02"], f"{location}/order_date=2024-01-02"),
    ]
    second = project.dbt("run", "--select", "orders_by_day", "--vars", "{batch: 2}")
    assert second.returncode == 0, second.stdout[-3000:]
    assert [
        (r["order_id"], float(r["amount"]), str(r["order_date"]))
        for r in rows(SCHEMA, "orders_by_day", order_by="order_id")
    ] == [
        (1, 10.0, "2024-01-01"),
        (2, 20.0, "2024-01-01"),
        (3, 33.0, "2024-01-02"),
        (5, 50.0, "2024-01-02"),
    ]
    assert [v for v, _ in glue_partitions(project.emulator, "orders_by_day")] == [
        ["2024-01-01"],
        ["2024-01-02"],
    ]
    # dbt-athena's own lookup: GetPartitions with an expression finds the one it rewrote
    assert [
        v
        for v, _ in glue_partitions(project.emulator, "orders_by_day", "(order_date='2024-01-02')")
    ] == [["2024-01-02"]]


def test_partitions_survive_the_data_dir(project: Project, tmp_path: Path) -> None:
    from athena_spark_emulator.accounts import persistence

    ref = TableRef(LOCAL_ACCOUNT, SCHEMA, "orders_by_day")
    catalog = project.emulator.catalog
    if not catalog.table_exists(ref):
        pytest.skip("needs the insert_overwrite test's table")
    before = glue_partitions(project.emulator, "orders_by_day")
    persistence.save(catalog, tmp_path)
    assert persistence.load(catalog, tmp_path)
    assert glue_partitions(project.emulator, "orders_by_day") == before and before


def test_a_150_partition_ctas_goes_through_dbt_athenas_batching(project: Project) -> None:
    sql = project.emulator.backend.sql
    seen = len(sql.seen)
    built = project.dbt("run", "--select", "many_partitions")
    assert built.returncode == 0, built.stdout[-3000:]
    failures = [r for r in sql.failures.values() if "TOO_MANY_OPEN_PARTITIONS" in r]
    assert failures, "the first CTAS must fail on the 100-partition limit"
    statements = sql.seen[seen:]
    assert any("__tmp_not_partitioned" in s for s in statements), statements
    batches = [s for s in statements if "insert into" in s.lower()]
    assert len(batches) == 1, statements  # 150 partitions: a CTAS of 100, an insert of 50
    got = rows(SCHEMA, "many_partitions", order_by="id")
    assert [r["id"] for r in got] == list(range(150))
    assert str(got[149]["day"]) == "2024-05-29"
    assert len(glue_partitions(project.emulator, "many_partitions")) == 150


def test_partition_statements(project: Project) -> None:
    emulator = project.emulator
    created = athena(
        emulator,
        "create table part_events with (format='parquet', partitioned_by=array['dt'], "
        "external_location='s3://dbt-data/partitions/part_events/') as "
        "select * from (values (1, 'a'), (2, 'b')) as t (id, dt)",
    )
    assert created["state"] == "SUCCEEDED", created["reason"]
    assert athena(emulator, "show partitions part_events")["rows"] == [["dt=a"], ["dt=b"]]
    # drop partition: Glue forgets it, the rows are no longer read (the files stay)
    dropped = athena(emulator, "alter table part_events drop partition (dt='b')")
    assert dropped["state"] == "SUCCEEDED", dropped["reason"]
    assert athena(emulator, "select id from part_events")["rows"][1:] == [["1"]]
    # msck repair finds the folder again
    assert athena(emulator, "msck repair table part_events")["state"] == "SUCCEEDED"
    assert athena(emulator, "select id from part_events order by id")["rows"][1:] == [["1"], ["2"]]
    # add partition at a location of its own
    athena(emulator, "alter table part_events drop partition (dt='b')")
    added = athena(
        emulator,
        "alter table part_events add if not exists partition (dt='z') "
        "location 's3://dbt-data/partitions/part_events/dt=b/'",
    )
    assert added["state"] == "SUCCEEDED", added["reason"]
    assert athena(emulator, "select id, dt from part_events order by id")["rows"][1:] == [
        ["1", "a"],
        ["2", "z"],
    ]
    again = athena(emulator, "alter table part_events add partition (dt='z')")
    assert again["state"] == "FAILED" and "ALREADY_EXISTS" in again["reason"], again
    missing = athena(emulator, "alter table part_events drop partition (dt='nope')")
    assert missing["state"] == "FAILED" and "PARTITION_NOT_FOUND" in missing["reason"], missing


def test_a_partitioned_iceberg_table_built_merged_into_and_read_by_a_python_model(
    project: Project,
) -> None:
    """partitioned_by=['day(event_ts)', 'bucket(4, customer_id)'] on an Iceberg model: it
    was NOT_SUPPORTED ("partitioned Iceberg tables"); now a real partitioned Iceberg table,
    merged into on the second run and read by a Python model."""
    from athena_spark_emulator.accounts import iceberg

    first = project.dbt("run", "--select", "events")
    assert first.returncode == 0, first.stdout[-3000:]
    second = project.dbt("run", "--select", "events", "events_per_customer", "--vars", "{batch: 2}")
    assert second.returncode == 0, second.stdout[-3000:]
    assert [
        (r["event_id"], r["customer_id"], r["kind"], str(r["event_ts"]))
        for r in rows(SCHEMA, "events", order_by="event_id")
    ] == [
        (1, 10, "view", "2024-03-01 10:00:00"),
        (2, 20, "buy", "2024-03-01 11:00:00"),
        (3, 10, "buy", "2024-03-02 09:30:00"),
        (4, 30, "view", "2024-03-03 08:00:00"),
    ]
    table = iceberg.load_table(
        project.emulator.endpoint_url, LOCAL_ACCOUNT, SCHEMA, "events", as_account=LOCAL_ACCOUNT
    )
    assert [(f.name, str(f.transform)) for f in table.spec().fields] == [
        ("event_ts_day", "day"),
        ("customer_id_bucket_4", "bucket[4]"),
    ]
    partitions = table.inspect.partitions()
    assert partitions.num_rows == 4, partitions  # a (day, bucket) per event
    assert rows(SCHEMA, "events_per_customer", order_by="customer_id") == [
        {"customer_id": 10, "events": 2},
        {"customer_id": 20, "events": 1},
        {"customer_id": 30, "events": 1},
    ]


def test_an_iceberg_insert_into_more_than_100_partitions_fails_as_on_athena(
    project: Project,
) -> None:
    emulator = project.emulator
    created = athena(
        emulator,
        "create table ice_days with (table_type='iceberg', is_external=false, "
        "location='s3://dbt-data/partitions/ice_days/', partitioning=array['day(ts)']) as "
        "select 1 as id, timestamp '2024-01-01 00:00:00' as ts",
    )
    assert created["state"] == "SUCCEEDED", created["reason"]
    many = athena(
        emulator,
        "insert into ice_days select n, date_add('day', n, timestamp '2024-01-01 00:00:00') "
        "from unnest(sequence(1, 101)) as t (n)",
    )
    assert many["state"] == "FAILED", many
    assert many["reason"].startswith("ICEBERG_TOO_MANY_OPEN_PARTITIONS"), many["reason"]
    assert athena(emulator, "select count(*) from ice_days")["rows"][1:] == [["1"]]


# ---- a statement acknowledges only what it did, and refuses what Athena refuses --------------------
def test_set_location_moves_the_table_to_the_new_location(project: Project) -> None:
    emulator = project.emulator
    for name, value in (("loc_a", 1), ("loc_b", 2)):
        made = athena(
            emulator,
            f"create table {name} with (external_location='s3://dbt-data/partitions/{name}/') "
            f"as select {value} as v",
        )
        assert made["state"] == "SUCCEEDED", made["reason"]
    moved = athena(emulator, "alter table loc_a set location 's3://dbt-data/partitions/loc_b/'")
    assert moved["state"] == "SUCCEEDED", moved["reason"]
    entry = emulator.catalog.get_table(TableRef(LOCAL_ACCOUNT, SCHEMA, "loc_a"))
    assert entry["StorageDescriptor"]["Location"] == "s3://dbt-data/partitions/loc_b/"
    assert athena(emulator, "select v from loc_a")["rows"][1:] == [["2"]]


def test_hive_insert_overwrite_syntax_is_refused(project: Project) -> None:
    emulator = project.emulator
    athena(
        emulator,
        "create table io_t with (external_location='s3://dbt-data/partitions/io_t/') "
        "as select 1 as v",
    )
    refused = athena(emulator, "insert overwrite table io_t select 5")
    assert refused["state"] == "FAILED", refused
    assert refused["reason"].startswith("SYNTAX_ERROR: mismatched input 'overwrite'"), refused
    assert athena(emulator, "select v from io_t")["rows"][1:] == [["1"]]


def test_create_table_without_external_is_refused_for_hive(project: Project) -> None:
    refused = athena(
        project.emulator,
        "create table managed (a int) location 's3://dbt-data/partitions/managed/'",
    )
    assert refused["state"] == "FAILED", refused
    assert "Only external table creation is supported" in refused["reason"]
    assert not project.emulator.catalog.table_exists(TableRef(LOCAL_ACCOUNT, SCHEMA, "managed"))


def test_sql_is_refused_on_the_spark_work_group(project: Project) -> None:
    from botocore.exceptions import ClientError

    from athena_spark_emulator.core.constants import SPARK_WORK_GROUP

    with pytest.raises(ClientError) as refused:
        athena(project.emulator, "select 1", work_group=SPARK_WORK_GROUP)
    assert refused.value.response["Error"]["Code"] == "InvalidRequestException"
    assert "runs Apache Spark" in str(refused.value)
    assert "work_group, not spark_work_group" in str(refused.value)


def test_an_external_table_partitioned_by_columns_reads_its_repaired_partitions(
    project: Project,
) -> None:
    emulator = project.emulator
    athena(
        emulator,
        "create table ext_src with (format='json', partitioned_by=array['dt'], "
        "external_location='s3://dbt-data/partitions/ext/') as "
        "select * from (values (1, '2024-01-01'), (2, '2024-01-02')) as t (id, dt)",
    )
    athena(emulator, "drop table ext_src")  # the files stay: a second table over them
    made = athena(
        emulator,
        "create external table ext (id int) partitioned by (dt string) "
        "row format serde 'org.openx.data.jsonserde.JsonSerDe' "
        "location 's3://dbt-data/partitions/ext/'",
    )
    assert made["state"] == "SUCCEEDED", made["reason"]
    assert athena(emulator, "select count(*) from ext")["rows"][1:] == [["0"]]
    assert athena(emulator, "msck repair table ext")["state"] == "SUCCEEDED"
    assert athena(emulator, "select id, dt from ext order by id")["rows"][1:] == [
        ["1", "2024-01-01"],
        ["2", "2024-01-02"],
    ]


def test_drop_schema_and_rename_refuse_what_athena_refuses(project: Project) -> None:
    emulator = project.emulator
    missing = athena(emulator, "drop schema no_such_schema")
    assert missing["state"] == "FAILED" and "SCHEMA_NOT_FOUND" in missing["reason"], missing
    athena(emulator, "create schema keep_me")
    athena(
        emulator,
        "create table keep_me.t with (external_location='s3://dbt-data/keep_me/t/') "
        "as select 1 as v",
    )
    full = athena(emulator, "drop schema keep_me")
    assert full["state"] == "FAILED" and "SCHEMA_NOT_EMPTY" in full["reason"], full
    assert emulator.catalog.table_exists(TableRef(LOCAL_ACCOUNT, "keep_me", "t"))
    renamed = athena(emulator, "alter table keep_me.t rename to keep_me.t2")
    assert renamed["state"] == "FAILED", renamed
    assert "RENAME TO is not supported for Hive tables" in renamed["reason"]
    assert athena(emulator, "drop schema keep_me cascade")["state"] == "SUCCEEDED"


def test_a_delimited_text_table_reads_with_its_field_delimiter(project: Project) -> None:
    """``row format delimited fields terminated by ','``: the delimiter was dropped and the
    rows read with Hive's default (\\x01): every value NULL on main."""
    emulator = project.emulator
    emulator.catalog.put_object("s3://dbt-data/partitions/delimited/part-0.txt", b"1,a\n2,b\n")
    made = athena(
        emulator,
        "create external table delimited (id int, name string) row format delimited "
        "fields terminated by ',' location 's3://dbt-data/partitions/delimited/'",
    )
    assert made["state"] == "SUCCEEDED", made["reason"]
    assert athena(emulator, "select id, name from delimited order by id")["rows"][1:] == [
        ["1", "a"],
        ["2", "b"],
    ]
