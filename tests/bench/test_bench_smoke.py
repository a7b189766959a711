"""`bench/run.py --smoke`, and `bench/project_build.py --small`: the benchmark code end to end
on tiny configurations, so that it cannot rot. They check the call counts and rows
(deterministic), never the timings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from tests.conftest import REPO_ROOT


def run_bench(script: str, *args: str) -> Dict[str, float]:
    """Run bench/<script> with ``args`` in a fresh process; its ``BENCH name value`` lines."""
    env = dict(os.environ)  # the emulator comes from the installed wheel
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "bench" / script), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {
        name: float(value)
        for name, value in (
            line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("BENCH ")
        )
    }


@pytest.mark.dbt
def test_bench_smoke(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    bench = run_bench("run.py", "--smoke", "--out", str(out), "--workdir", str(tmp_path / "work"))
    for figure in ("render_overhead_ratio", "import_ms", "latency_speedup", "total_s"):
        assert bench[figure] > 0, figure
    cells = [
        (re.fullmatch(r"calls_(\w+)_n\d+_t\d+_c(\d+)", name), value)
        for name, value in bench.items()
    ]
    cells = [(match.groups(), value) for match, value in cells if match]
    assert {variant for (variant, _), _ in cells} == {"product", "list_all", "stock"}, bench
    for (variant, registered), value in cells:
        # one referenced catalog: the product resolves just it; list-all lists and resolves all
        expected = {"product": 1, "list_all": 1 + int(registered), "stock": 0}[variant]
        assert value == expected, (variant, registered, value)
    assert bench["calls_product_equals_referenced_all_cells"] == 1
    # the doctor: 6 tables in 2 databases (2 buckets), t_000 partitioned (2 partitions in
    # one bucket): one call per distinct catalog, database, table, location and bucket, and
    # one encryption-settings call per owner account
    assert bench["doctor_seconds"] > 0 and bench["doctor_seconds_no_latency"] > 0
    doctor_calls = {
        name[len("doctor_calls_") :]: value
        for name, value in bench.items()
        if name.startswith("doctor_calls_") and name != "doctor_calls_per_table"
    }
    assert doctor_calls == {
        "GetCallerIdentity": 1,
        "GetWorkGroup": 1,
        "GetDataCatalog": 1,
        "GetDatabase": 2,
        "GetTable": 6,
        "GetPartitions": 1,
        "ListObjectsV2": 6,
        "GetObject": 6,
        "GetBucketEncryption": 2,
        "GetDataCatalogEncryptionSettings": 1,
    }
    assert bench["doctor_calls_per_table"] == pytest.approx(27 / 6, abs=0.01)
    assert "| this product |" in out.read_text()


@pytest.mark.spark
@pytest.mark.dbt
def test_generated_project_bench_small(tmp_path: Path) -> None:
    """3 SQL models (staging table, intermediate table, mart view) and 1 opted-in Python
    model reading two owner catalogs and the SQL staging table, with 4 data tests: `dbt
    build` green on the emulator with Spark, the Python model's rows checked by the script
    against the seed, 3 selects replayed both ways, the translation timed."""
    out = tmp_path / "section.md"
    bench = run_bench(
        "project_build.py", "--small", "--workdir", str(tmp_path / "work"), "--markdown", str(out)
    )
    assert bench["build_statements_failed"] == 0, bench
    assert bench["build_statements"] >= 8, bench  # schema, 2 CTAS, a view, 4 tests, ...
    assert bench["build_selects_replayed"] == 3, bench  # --small replays the first 3
    assert bench["py_00_rows"] > 0 and bench["mart_00_rows"] > 0, bench
    for figure in ("build_wall_s", "replay_ratio", "replay_engine_ratio", "translation_median_ms"):
        assert bench[figure] > 0, figure
    assert "`dbt build` of a generated project" in out.read_text()
