"""The emulator's own contract, through the real Calculation API over HTTP (boto3) and real
local PySpark: Glue semantics (accounts, separator, grants), s3:// mapping, tracebacks."""

from __future__ import annotations

import contextlib
import sys
import time
from typing import Dict, Optional, Tuple

import pytest

from athena_spark_emulator import LOCAL_ACCOUNT
from athena_spark_emulator.accounts.catalog import TableRef
from athena_spark_emulator.spark import executor as executor_module
from tests.integration.conftest import PARTNER, RESTRICTED, rows
from tests.stack import SPARK_WORK_GROUP

pytestmark = pytest.mark.spark
SEPARATOR = {"spark.hadoop.aws.glue.catalog.separator": "/"}


def calculate(emulator, code: str, properties: Optional[Dict[str, str]] = None) -> Tuple[str, str]:
    """Run ``code`` as dbt-athena does; returns (state, StateChangeReason)."""
    athena = emulator.client("athena")
    session = athena.start_session(
        WorkGroup=SPARK_WORK_GROUP,
        EngineConfiguration={"MaxConcurrentDpus": 2, "SparkProperties": properties or {}},
    )["SessionId"]
    calc = athena.start_calculation_execution(SessionId=session, CodeBlock=code)[
        "CalculationExecutionId"
    ]
    deadline = time.time() + 300
    while time.time() < deadline:
        status = athena.get_calculation_execution(CalculationExecutionId=calc)["Status"]
        if status["State"] in ("COMPLETED", "FAILED", "CANCELED"):
            athena.terminate_session(SessionId=session)
            return status["State"], status.get("StateChangeReason", "")
        time.sleep(0.05)
    raise AssertionError("calculation did not finish")


@pytest.fixture(scope="module")
def emu(emulator, spark_executor):
    emulator.glue_owner_routing = True
    with emulator.using_executor(spark_executor), _routing_off_afterwards(emulator):
        emulator.seed(
            {
                "accounts": {
                    PARTNER: {
                        "grants": [LOCAL_ACCOUNT],
                        "databases": {
                            "sales": {"orders": {"columns": {"order_id": "int"}, "rows": [[101]]}}
                        },
                    },
                    RESTRICTED: {
                        "databases": {
                            "sales": {"orders": {"columns": {"order_id": "int"}, "rows": [[901]]}}
                        },
                    },
                    LOCAL_ACCOUNT: {
                        "databases": {
                            "sales": {"orders": {"columns": {"order_id": "int"}, "rows": [[1]]}},
                            "emu_out": {},
                        }
                    },
                }
            }
        )
        yield emulator


@contextlib.contextmanager
def _routing_off_afterwards(emulator):
    try:
        yield
    finally:
        emulator.glue_owner_routing = False


def test_owner_namespace_needs_the_separator(emu):
    read = (
        'assert [r.order_id for r in spark.table("`999999999999/sales`.`orders`").collect()]'
        " == [101]"
    )
    assert calculate(emu, read, SEPARATOR) == ("COMPLETED", "")
    state, reason = calculate(emu, read, {})
    assert state == "FAILED"
    assert "The schema `999999999999/sales` cannot be found" in reason


def test_two_part_name_reads_the_local_account(emu):
    code = 'assert [r.order_id for r in spark.table("sales.orders").collect()] == [1]'
    assert calculate(emu, code, SEPARATOR) == ("COMPLETED", "")


def test_unquoted_account_namespace_is_a_parse_error(emu):
    state, reason = calculate(emu, 'spark.table("999999999999/sales.orders")', SEPARATOR)
    assert state == "FAILED"
    assert "ParseException" in reason


def test_owner_without_grant_is_access_denied_with_traceback(emu):
    state, reason = calculate(
        emu, 'spark.table("`888888888888/sales`.`orders`").collect()', SEPARATOR
    )
    assert state == "FAILED"
    assert reason.startswith("Traceback (most recent call last)")
    assert (
        "software.amazon.awssdk.services.glue.model.AccessDeniedException: User: "
        f"arn:aws:sts::{LOCAL_ACCOUNT}:assumed-role/" in reason
    )
    assert (
        f"glue:GetTable on resource: arn:aws:glue:eu-west-1:{RESTRICTED}:table/sales/orders"
        in reason
    )
    # the failing line of the submitted code is shown
    assert 'spark.table("`888888888888/sales`.`orders`")' in reason


def test_grant_takes_effect(emu):
    code = 'assert spark.table("`888888888888/sales`.`orders`").count() == 1'
    emu.catalog.grant(RESTRICTED, LOCAL_ACCOUNT)
    try:
        assert calculate(emu, code, SEPARATOR) == ("COMPLETED", "")
    finally:
        emu.catalog.revoke(RESTRICTED, LOCAL_ACCOUNT)
    assert calculate(emu, code, SEPARATOR)[0] == "FAILED"


def test_stock_writer_maps_s3_and_registers_glue(emu):
    code = (
        "df = spark.createDataFrame([(1, 'a'), (2, 'b')], 'id int, v string')\n"
        'df.write.format("parquet").mode("overwrite").option("path", "s3://dbt-data/emu_out/t1")'
        '.option("compression", "None").option("mergeSchema", "True").option("delimiter", "None")'
        '.saveAsTable(name="emu_out.t1")\n'
    )
    assert calculate(emu, code) == ("COMPLETED", "")
    table = emu.client("glue").get_table(DatabaseName="emu_out", Name="t1")["Table"]
    assert table["StorageDescriptor"]["Location"] == "s3://dbt-data/emu_out/t1"
    assert [(c["Name"], c["Type"]) for c in table["StorageDescriptor"]["Columns"]] == [
        ("id", "int"),
        ("v", "string"),
    ]
    assert any((emu.catalog.warehouse / "s3" / "dbt-data" / "emu_out" / "t1").glob("*.parquet"))
    assert rows("emu_out", "t1", order_by="id") == [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]
    # overwrite really replaces the data
    assert calculate(emu, code.replace("(2, 'b')", "(3, 'c')")) == ("COMPLETED", "")
    assert rows("emu_out", "t1", order_by="id") == [{"id": 1, "v": "a"}, {"id": 3, "v": "c"}]


def test_write_into_missing_database_fails(emu):
    code = "spark.createDataFrame([(1,)], 'id int').write.saveAsTable('no_such_db.t')"
    state, reason = calculate(emu, code)
    assert state == "FAILED" and "The schema `no_such_db` cannot be found" in reason


def test_one_spark_session_per_process(emu, spark_executor):
    """Every calculation, in any Athena session, and read_rows use one SparkSession.

    Order-independent: its first calculation starts Spark unless something earlier in the
    process did (another module's executor, read_rows), so it counts the sessions the
    process starts from then on: none."""
    app_id = "print(spark.sparkContext.applicationId)"
    assert calculate(emu, app_id) == ("COMPLETED", "")
    started = executor_module.SPARK_SESSIONS_STARTED
    assert calculate(emu, app_id) == ("COMPLETED", "")
    printed = {c.stdout.strip() for c in emu.submissions[-2:]}
    assert len(printed) == 1 and printed != {""}, printed
    assert spark_executor.sessions_started <= 1
    assert executor_module.SPARK.session.sparkContext.applicationId in printed
    assert executor_module.read_rows(TableRef(PARTNER, "sales", "orders"), emu.catalog) == [
        {"order_id": 101}
    ]
    assert started == executor_module.SPARK_SESSIONS_STARTED


def test_python_workers_run_this_interpreter(emu):
    """A Python UDF in a calculation runs in this process's interpreter: PySpark 3.5 starts
    its workers with PYSPARK_PYTHON, else `python3` from PATH (another Python, which fails
    when its minor version differs), and ignores spark.pyspark.python."""
    code = (
        "import sys\n"
        "from pyspark.sql.functions import udf\n"
        "where = udf(lambda _: sys.executable, 'string')\n"
        "print(spark.range(1).select(where('id')).first()[0])"
    )
    assert calculate(emu, code) == ("COMPLETED", "")
    assert emu.submissions[-1].stdout.strip() == sys.executable


def test_the_driver_jvm_compiles_with_the_first_jit_tier_only(emu):
    """The emulator's JVM runs with -XX:TieredStopAtLevel=1 (short sessions, small data: C2
    costs more CPU than it wins back)."""
    code = (
        "bean = spark.sparkContext._jvm.java.lang.management.ManagementFactory"
        ".getRuntimeMXBean()\n"
        "print(list(bean.getInputArguments()))"
    )
    assert calculate(emu, code) == ("COMPLETED", "")
    assert "-XX:TieredStopAtLevel=1" in emu.submissions[-1].stdout


def test_names_spark_rejects_are_rejected(emu):
    """Athena's session catalog takes db.table, table or spark_catalog.db.table; other
    names of three or more parts fail with Spark's own error, not a read of the last two."""
    ok = 'assert [r.order_id for r in spark.table("spark_catalog.sales.orders").collect()] == [1]'
    assert calculate(emu, ok) == ("COMPLETED", "")
    for name in ("awsdatacatalog.sales.orders", "`999999999999/sales`.`orders`.`x`", "a.b.c.d"):
        state, reason = calculate(emu, f'spark.table("{name}")', SEPARATOR)
        assert state == "FAILED", name
        assert "AnalysisException: [REQUIRES_SINGLE_PART_NAMESPACE] spark_catalog requires a " in (
            reason
        ), reason
    state, reason = calculate(
        emu, "spark.createDataFrame([(1,)], 'id int').write.saveAsTable('x.emu_out.t')"
    )
    assert state == "FAILED" and "REQUIRES_SINGLE_PART_NAMESPACE" in reason


def test_what_spark_writes_is_in_s3_with_success_marker(emu):
    """After saveAsTable, S3 holds the written files under the table's Location, as on
    Athena: the data files and Hadoop's zero-byte _SUCCESS, no local .crc checksums; an
    overwrite leaves no stale objects."""
    code = (
        "spark.createDataFrame([(1,), (2,)], 'id int').write.format('parquet').mode('overwrite')"
        ".option('path', 's3://dbt-data/emu_out/synced').saveAsTable(name='emu_out.synced')\n"
    )
    assert calculate(emu, code) == ("COMPLETED", "")
    s3 = emu.client("s3")
    listed = s3.list_objects_v2(Bucket="dbt-data", Prefix="emu_out/synced/")["Contents"]
    sizes = {o["Key"].rsplit("/", 1)[1]: o["Size"] for o in listed}
    assert sizes.pop("_SUCCESS") == 0
    assert sizes and all(k.startswith("part-") and k.endswith(".parquet") for k in sizes), sizes
    assert all(v > 0 for v in sizes.values())
    local = emu.catalog.warehouse / "s3" / "dbt-data" / "emu_out" / "synced"
    first = next(iter(sizes))
    assert s3.get_object(Bucket="dbt-data", Key=f"emu_out/synced/{first}")["Body"].read() == (
        (local / first).read_bytes()
    )
    assert calculate(emu, code.replace("(1,), (2,)", "(3,)")) == ("COMPLETED", "")
    after = s3.list_objects_v2(Bucket="dbt-data", Prefix="emu_out/synced/")["Contents"]
    assert {o["Key"].rsplit("/", 1)[1] for o in after} == {
        p.name for p in local.iterdir() if not p.name.endswith(".crc")
    }


def test_glue_api_catalog_id_reads_the_owner_and_checks_grants(emu):
    from botocore.exceptions import ClientError

    glue = emu.client("glue")
    assert glue.get_table(CatalogId=PARTNER, DatabaseName="sales", Name="orders")["Table"][
        "StorageDescriptor"
    ]["Location"].startswith(f"s3://emulator-{PARTNER}-")
    # without CatalogId: the local account's own sales.orders (a different table)
    assert (
        f"emulator-{LOCAL_ACCOUNT}-"
        in glue.get_table(DatabaseName="sales", Name="orders")["Table"]["StorageDescriptor"][
            "Location"
        ]
    )
    with pytest.raises(ClientError) as denied:
        glue.get_table(CatalogId=RESTRICTED, DatabaseName="sales", Name="orders")
    assert denied.value.response["Error"]["Code"] == "AccessDeniedException"
    assert f"glue:GetTable on resource: arn:aws:glue:eu-west-1:{RESTRICTED}:catalog" in str(
        denied.value
    )


def test_calculation_stdout_holds_only_what_the_calculation_printed(
    emu, spark_executor, monkeypatch
):
    """Other threads' output while a calculation runs stays theirs (the demo relays dbt's
    output meanwhile); before, the whole process's stdout went into the calculation's."""
    import io

    athena = emu.client("athena")
    session = athena.start_session(
        WorkGroup=SPARK_WORK_GROUP, EngineConfiguration={"MaxConcurrentDpus": 2}
    )["SessionId"]
    code = "import time\nprint('from the calculation')\ntime.sleep(2)\nprint('done')\n"
    mine = io.StringIO()  # this process's stdout while the calculation runs
    monkeypatch.setattr("sys.stdout", mine)
    started = spark_executor.executed
    calc_id = athena.start_calculation_execution(SessionId=session, CodeBlock=code)[
        "CalculationExecutionId"
    ]
    [calc] = [c for c in emu.submissions if c.calculation_id == calc_id]
    deadline = time.time() + 120
    while spark_executor.executed == started and time.time() < deadline:
        time.sleep(0.02)  # until the executor runs the code (Spark has started)
    time.sleep(0.5)
    print("from the test thread")
    assert calc.done.wait(120)
    assert calc.stdout == "from the calculation\ndone\n"
    assert mine.getvalue() == "from the test thread\n"
