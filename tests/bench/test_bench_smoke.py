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
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "integration_tests")}
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
    assert "| this product |" in out.read_text()
