"""`bench/run.py --smoke`: the benchmark code end to end on a tiny configuration, so that it
cannot rot. It checks the call counts (deterministic), never the timings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from tests.conftest import REPO_ROOT


@pytest.mark.dbt
def test_bench_smoke(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    env = dict(os.environ)  # the emulator comes from the installed wheel
    done = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "run.py"),
            "--smoke",
            "--out",
            str(out),
            "--workdir",
            str(tmp_path / "work"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    bench: Dict[str, float] = {
        name: float(value)
        for name, value in (
            line.split()[1:3] for line in done.stdout.splitlines() if line.startswith("BENCH ")
        )
    }
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
    # one bucket): one call per distinct catalog, database, table, location and bucket
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
    }
    assert bench["doctor_calls_per_table"] == pytest.approx(26 / 6, abs=0.01)
    assert "| this product |" in out.read_text()
