"""A table as real Spark writes it (``_SUCCESS``, checksum files, a snappy Parquet part) and
a table whose partitions live in two buckets are all PASS."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Dict

import pytest

from dbt_athena_cross_account.doctor.rows import PASS
from tests.doctor_support import WORLD, DoctorAws
from tests.unit.doctor.helpers import run

pytestmark = pytest.mark.spark
PREFIX = "sales/spark_written/"


@pytest.fixture(scope="module")
def spark_output(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, bytes]:
    """Every file local PySpark writes for a small table, keyed as it would be in S3."""
    # the process's one SparkSession, as the emulator builds it (see test_generated_code.py)
    from athena_spark_emulator.spark.executor import get_spark

    spark = get_spark()
    out = tmp_path_factory.mktemp("spark-written") / "orders"
    frame = spark.createDataFrame([(1, "acme"), (2, "globex")], ["order_id", "customer"])
    frame.coalesce(1).write.parquet(str(out))
    files = sorted(p for p in Path(out).rglob("*") if p.is_file())
    return {PREFIX + p.relative_to(out).as_posix(): p.read_bytes() for p in files}


def test_tables_written_by_spark_and_partitioned_over_two_buckets_pass(spark_output, tmp_path):
    names = sorted(key[len(PREFIX) :] for key in spark_output)
    assert "_SUCCESS" in names and spark_output[PREFIX + "_SUCCESS"] == b""
    assert names[0].startswith(".") and names[-1].endswith(".snappy.parquet"), names
    spec = copy.deepcopy(WORLD)
    spec["buckets"]["spark-output"] = {"objects": spark_output}
    spec["glue"]["sales"]["spark_written"] = {"location": f"s3://spark-output/{PREFIX}"}
    aws = DoctorAws(tmp_path, spec).start()
    try:
        _, rows = run(
            aws, tables=("partner_catalog.sales.spark_written", "partner_catalog.sales.events")
        )
        read = [r["path"] for r in aws.requests() if r["action"] == "GetObject"]
    finally:
        aws.stop()
    checked = [r for r in rows if r.subject.startswith("partner_catalog")]
    assert {r.status for r in checked} == {PASS}, checked
    assert sorted(r.kind for r in checked) == sorted(
        ["registration", *["metadata", "format", "data"] * 2]
    )
    assert f"/spark-output/{PREFIX}{names[-1]}" in read and len(read) == 3, read
