"""The integration project's money mart (integration_tests/models/money_mart.sql), built by
the real `dbt` CLI on the emulator: its enforced contract declares Athena's result types
(sum of decimal(18,2) is decimal(38,2), avg decimal(18,2), a sum of products decimal(38,8),
the division decimal(38,6), year() bigint), dbt-athena checks them against the types the
emulator's GetQueryResults reports, and the table holds Athena's values in Athena's types.

On main 6782ddf (before the change) the model failed: the division of the CTE's
aggregates was refused ("cannot tell its operands' types"); without it, the contract's
check saw year() as integer (Spark's type) where Athena says bigint."""

from __future__ import annotations

import decimal
from typing import Iterator

import pytest

from athena_spark_emulator import Emulator
from tests.integration.conftest import SEED_FILE, copy_project

pytestmark = [pytest.mark.spark, pytest.mark.dbt]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    with Emulator(executor="spark") as emulator:
        emulator.prepare()
        emulator.seed(SEED_FILE)
        project = copy_project(tmp_path_factory.mktemp("mart") / "integration_tests")
        for args in (["deps"], ["run", "--select", "money_mart"]):
            result = emulator.dbt(args, project, env={"DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
            output = result.stdout + result.stderr
            assert result.returncode == 0, output[-6000:]
        yield emulator


def test_the_contract_holds_and_the_rows_are_athenas(built: Emulator) -> None:
    rows = built.rows("analytics", "money_mart", order_by="k")
    d = decimal.Decimal
    assert rows == [
        {
            "k": 1,
            "total": d("15.25"),
            "average": d("7.63"),  # 7.625 rounded half up
            "converted": d("23.43750000"),
            "in_latest_rate": d("13.863636"),  # 15.25 / 1.100000
            "last_year": 2024,
        },
        {
            "k": 2,
            "total": d("25.25"),
            "average": d("12.63"),
            "converted": d("35.97500000"),
            "in_latest_rate": d("22.954545"),
            "last_year": 2024,
        },
    ]


def test_the_glue_columns_are_the_contracts_types(built: Emulator) -> None:
    table = built.client("glue").get_table(DatabaseName="analytics", Name="money_mart")
    columns = [(c["Name"], c["Type"]) for c in table["Table"]["StorageDescriptor"]["Columns"]]
    assert columns == [
        ("k", "int"),
        ("total", "decimal(38,2)"),
        ("average", "decimal(18,2)"),
        ("converted", "decimal(38,8)"),
        ("in_latest_rate", "decimal(38,6)"),
        ("last_year", "bigint"),
    ]
