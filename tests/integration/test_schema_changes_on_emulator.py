"""Schema changes: dbt-athena's on_schema_change with each of its four values on
Hive and on Iceberg incremental models, and with column names that need quoting, through
the real dbt CLI on the emulator with local Spark; checked on the columns Athena's ``show
columns`` lists and on the ROWS. Before, the second run failed on every schema change:
NOT_SUPPORTED for ``alter table ... add columns`` / ``replace columns`` / ``drop column``
and ``show columns``.

Two dbt invocations build all the models (the first run creates them, the second changes
their schema), like dbt-athena's own tests/functional/adapter/test_on_schema_change.py."""

from __future__ import annotations

import datetime
import shutil
from typing import Any, Dict, Iterator, List

import pytest

from athena_spark_emulator import Emulator
from tests.integration.conftest import rows, seeded_with_spark
from tests.integration.test_partitions_on_emulator import PROJECT, athena
from tests.stack import dbt_cli

pytestmark = [pytest.mark.spark, pytest.mark.dbt]

SCHEMA = "schema_changes"
VALUES = ("sync_all_columns", "append_new_columns", "ignore", "fail")
MODEL = """
{{{{ config(materialized='incremental', incremental_strategy='append',
           on_schema_change='{value}', table_type='{table_type}') }}}}
select 1 as id, 'test 1' as name
{{%- if is_incremental() -%}}
    , current_date as updated_at
{{%- endif -%}}
"""
SPECIAL = """
{{{{ config(materialized='incremental', incremental_strategy='append',
           on_schema_change='{value}', table_type='{table_type}') }}}}
select 1 as id, 'keyword' as "select"
{{%- if is_incremental() -%}}
    , 'new data' as "field-with-dash"
{{%- endif -%}}
"""
SPECIAL_MODELS = [
    ("hive", "append_new_columns"),
    ("iceberg", "append_new_columns"),
    ("hive", "sync_all_columns"),
]


def columns(emulator: Emulator, table: str) -> List[str]:
    shown = athena(emulator, f"show columns from {table}", database=SCHEMA)
    assert shown["state"] == "SUCCEEDED", shown["reason"]
    return [r[0].strip() for r in shown["rows"]]


@pytest.fixture(scope="module")
def runs(
    tmp_path_factory: pytest.TempPathFactory, emulator: Emulator, spark_executor: Any
) -> Iterator[Dict[str, Any]]:
    path = tmp_path_factory.mktemp("schema_changes") / "statements_project"
    shutil.copytree(PROJECT, path)
    folder = path / "models" / "on_schema_change"
    folder.mkdir()
    for table_type in ("hive", "iceberg"):
        for value in VALUES:
            text = MODEL.format(value=value, table_type=table_type)
            (folder / f"{table_type}_{value}.sql").write_text(text, "utf-8")
    for table_type, value in SPECIAL_MODELS:
        text = SPECIAL.format(value=value, table_type=table_type)
        (folder / f"{table_type}_special_{value}.sql").write_text(text, "utf-8")
    env = {**emulator.env(), "DBT_SCHEMA": SCHEMA}
    with seeded_with_spark(emulator, spark_executor, {}):
        args = ["run", "--select", "on_schema_change"]
        first = dbt_cli(args, path, path, env)
        second = dbt_cli(args, path, path, env)
        yield {"first": first, "second": second, "emulator": emulator}


def test_the_first_run_builds_every_model(runs: Dict[str, Any]) -> None:
    first = runs["first"]
    assert first.returncode == 0, first.stdout[-4000:]
    assert "PASS=11" in first.stdout, first.stdout[-2000:]


@pytest.mark.parametrize("table_type", ["hive", "iceberg"])
@pytest.mark.parametrize("value", ["sync_all_columns", "append_new_columns"])
def test_new_columns_are_added_and_the_new_rows_fill_them(
    runs: Dict[str, Any], table_type: str, value: str
) -> None:
    table = f"{table_type}_{value}"
    assert f"OK created sql incremental model {SCHEMA}.{table}" in runs["second"].stdout, runs[
        "second"
    ].stdout[-4000:]
    assert columns(runs["emulator"], table) == ["id", "name", "updated_at"]
    got = rows(SCHEMA, table, order_by="updated_at")
    assert [(r["id"], r["name"], r["updated_at"]) for r in got] == [
        (1, "test 1", datetime.date.today()),
        (1, "test 1", None),
    ] or [(r["id"], r["name"], r["updated_at"]) for r in got] == [
        (1, "test 1", None),
        (1, "test 1", datetime.date.today()),
    ]


@pytest.mark.parametrize("table_type", ["hive", "iceberg"])
def test_ignore_keeps_the_columns_and_appends(runs: Dict[str, Any], table_type: str) -> None:
    table = f"{table_type}_ignore"
    assert columns(runs["emulator"], table) == ["id", "name"]
    assert rows(SCHEMA, table) == [{"id": 1, "name": "test 1"}] * 2


@pytest.mark.parametrize("table_type", ["hive", "iceberg"])
def test_fail_stops_the_model_and_changes_nothing(runs: Dict[str, Any], table_type: str) -> None:
    second = runs["second"]
    assert "The source and target schemas on this incremental model are out of sync!" in (
        second.stdout
    ), second.stdout[-4000:]
    assert f"ERROR creating sql incremental model {SCHEMA}.{table_type}_fail" in second.stdout
    table = f"{table_type}_fail"
    assert columns(runs["emulator"], table) == ["id", "name"]
    assert rows(SCHEMA, table) == [{"id": 1, "name": "test 1"}]


@pytest.mark.parametrize("table_type, value", SPECIAL_MODELS)
def test_column_names_that_need_quoting(runs: Dict[str, Any], table_type: str, value: str) -> None:
    table = f"{table_type}_special_{value}"
    assert sorted(columns(runs["emulator"], table)) == ["field-with-dash", "id", "select"]
    got = rows(SCHEMA, table, order_by="field-with-dash")
    assert sorted(((r["id"], r["select"], r["field-with-dash"]) for r in got), key=str) == [
        (1, "keyword", "new data"),
        (1, "keyword", None),
    ]


def test_the_second_run_fails_only_the_fail_models(runs: Dict[str, Any]) -> None:
    second = runs["second"]
    assert "ERROR=2" in second.stdout and "PASS=9" in second.stdout, second.stdout[-3000:]


def test_statements_athena_refuses_per_format(runs: Dict[str, Any]) -> None:
    emulator = runs["emulator"]
    hive_drop = athena(emulator, "alter table hive_ignore drop column name", database=SCHEMA)
    assert hive_drop["state"] == "FAILED", hive_drop
    assert "DROP COLUMN is not supported for Hive tables" in hive_drop["reason"]
    iceberg_replace = athena(
        emulator, "alter table iceberg_ignore replace columns (id int)", database=SCHEMA
    )
    assert iceberg_replace["state"] == "FAILED", iceberg_replace
    assert "REPLACE COLUMNS is not supported for Iceberg tables" in iceberg_replace["reason"]
    narrowing = athena(
        emulator, "alter table iceberg_ignore change column name name int", database=SCHEMA
    )
    assert narrowing["state"] == "FAILED" and "name" in narrowing["reason"], narrowing
    assert columns(emulator, "iceberg_ignore") == ["id", "name"]
    assert columns(emulator, "hive_ignore") == ["id", "name"]


def test_an_iceberg_column_type_change_as_dbt_athena_sends_it(runs: Dict[str, Any]) -> None:
    """dbt-athena's alter_column_type (sync_all_columns with a new type, Iceberg): add a
    temporary column, update it from the old one, drop the old one, rename the new one."""
    emulator = runs["emulator"]
    steps = [
        "create table retyped with (table_type='iceberg', is_external=false, "
        "location='s3://dbt-data/schema_changes/retyped/') as "
        "select * from (values (1, 10), (2, 20)) as t (id, v)",
        "alter table retyped add columns (v__dbt_alter bigint)",
        "update retyped set v__dbt_alter = cast(v as bigint)",
        "alter table retyped drop column v",
        "alter table retyped change column v__dbt_alter v bigint",
    ]
    for sql in steps:
        done = athena(emulator, sql, database=SCHEMA)
        assert done["state"] == "SUCCEEDED", (sql, done["reason"])
    assert columns(emulator, "retyped") == ["id", "v"]
    assert rows(SCHEMA, "retyped", order_by="id") == [{"id": 1, "v": 10}, {"id": 2, "v": 20}]
    from athena_spark_emulator import LOCAL_ACCOUNT
    from athena_spark_emulator.accounts import iceberg

    table = iceberg.load_table(
        emulator.endpoint_url, LOCAL_ACCOUNT, SCHEMA, "retyped", as_account=LOCAL_ACCOUNT
    )
    assert [(f.name, str(f.field_type)) for f in table.schema().fields] == [
        ("id", "int"),
        ("v", "long"),
    ]
