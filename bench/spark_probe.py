"""The doctor's Spark probe at scale: ``dbt run-operation cross_account_doctor --args
'{spark: true}'`` over 100 owner tables in 10 databases, on the emulator with local Spark.

Ten Python models (one per database, the same session configuration) read ten Hive tables
each, so the probe starts one session and runs one calculation. Prints one
``BENCH <name> <value>`` line per figure:

* ``probe_calculations``: StartCalculationExecution calls (1 per configuration);
* ``probe_sessions``: StartSession calls, and ``probe_sessions_terminated``;
* ``probe_spark_calls_per_table``: ``spark.table`` and ``spark.sql`` calls the calculation
  made, per table (counted in the emulator's ``spark`` of the calculation);
* ``probe_calculation_seconds``: the calculation's running time, i.e. the wall time beyond
  the session start (local Spark was started before, by a warm-up calculation);
* ``probe_rows``: the spark rows of the report by status.

Run: ``.venv/bin/python bench/spark_probe.py`` (after ``make install``; about 2 minutes).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

import yaml

from athena_spark_emulator import LOCAL_ACCOUNT, Emulator
from athena_spark_emulator.profile import profiles_yml

REPO_ROOT = Path(__file__).resolve().parents[1]
OWNER = "999999999999"
CATALOG = "partner_catalog"
PROJECT = "probe_bench"


def seed(databases: int, per_database: int) -> Dict[str, Any]:
    rows = {"columns": {"id": "int", "v": "string"}, "rows": [[1, "a"]]}
    dbs = {
        f"db_{d:02d}": {f"t_{t:02d}": rows for t in range(per_database)} for d in range(databases)
    }
    return {
        "data_catalogs": [{"name": CATALOG, "type": "GLUE", "parameters": {"catalog-id": OWNER}}],
        "accounts": {OWNER: {"grants": [LOCAL_ACCOUNT], "databases": dbs}},
    }


def write_project(root: Path, databases: int, per_database: int) -> Path:
    project = root / PROJECT
    (project / "models").mkdir(parents=True)
    config = {
        "name": PROJECT,
        "version": "1.0.0",
        "config-version": 2,
        "profile": PROJECT,
        "dispatch": [
            {
                "macro_namespace": "athena",
                "search_order": [PROJECT, "dbt_athena_cross_account", "dbt"],
            }
        ],
        "models": {PROJECT: {"+spark_cross_account_catalog": True}},
    }
    (project / "dbt_project.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (project / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]}))
    sources = [
        {
            "name": f"db_{d:02d}",
            "database": CATALOG,
            "schema": f"db_{d:02d}",
            "tables": [{"name": f"t_{t:02d}"} for t in range(per_database)],
        }
        for d in range(databases)
    ]
    (project / "models" / "sources.yml").write_text(
        yaml.safe_dump({"version": 2, "sources": sources}, sort_keys=False)
    )
    for d in range(databases):
        reads = " + ".join(f'[dbt.source("db_{d:02d}", "t_{t:02d}")]' for t in range(per_database))
        code = (
            "def model(dbt, spark):\n"
            '    dbt.config(materialized="table")\n'
            f"    frames = {reads}\n"
            "    return frames[0]\n"
        )
        (project / "models" / f"reader_{d:02d}.py").write_text(code)
    (project / "profiles.yml").write_text(profiles_yml(PROJECT))
    return project


def count_spark_calls() -> Counter:
    """Count ``spark.table``/``spark.sql`` in calculations (the emulator's AthenaSpark)."""
    from athena_spark_emulator.spark import executor as spark_executor

    counts: Counter = Counter()
    for name in ("table", "sql"):
        original = getattr(spark_executor.AthenaSpark, name)

        def counted(
            self: Any, *args: Any, _original: Any = original, _name: str = name, **kwargs: Any
        ) -> Any:
            counts[_name] += 1
            return _original(self, *args, **kwargs)

        setattr(spark_executor.AthenaSpark, name, counted)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--databases", type=int, default=10)
    parser.add_argument("--tables-per-database", type=int, default=10)
    args = parser.parse_args()
    tables = args.databases * args.tables_per_database
    with tempfile.TemporaryDirectory() as tmp, Emulator(executor="spark") as emulator:
        emulator.glue_owner_routing = emulator.session_lifecycle = True
        emulator.prepare()
        emulator.seed(seed(args.databases, args.tables_per_database))
        project = write_project(Path(tmp), args.databases, args.tables_per_database)
        deps = emulator.dbt(["deps"], project)
        assert deps.returncode == 0, deps.stdout + deps.stderr
        emulator.start_spark()  # local Spark's start is not the probe's
        counts = count_spark_calls()
        emulator.clear_requests()
        begun = time.monotonic()
        done = emulator.dbt(
            ["run-operation", "cross_account_doctor", "--args", "{spark: true}"], project
        )
        seconds = time.monotonic() - begun
        out = done.stdout + done.stderr
        actions = Counter(r["action"] for r in emulator.requests)
        calcs = emulator.backend.calculations.submissions
        sessions = list(emulator.backend.calculations.sessions.values())
        statuses = Counter(
            m.group(1) for m in re.finditer(r"^(PASS|WARN|FAIL)\s+spark\s", out, re.M)
        )
        figures: List[tuple] = [
            ("probe_tables", tables),
            ("probe_exit_code", done.returncode),
            ("probe_sessions", actions["StartSession"]),
            ("probe_sessions_terminated", sum(s.state == "TERMINATED" for s in sessions)),
            ("probe_calculations", actions["StartCalculationExecution"]),
            ("probe_spark_calls_per_table", round((counts["table"] + counts["sql"]) / tables, 2)),
            ("probe_spark_table_calls", counts["table"]),
            ("probe_spark_sql_calls", counts["sql"]),
            (
                "probe_calculation_seconds",
                round(sum((c.finished or 0) - (c.started or 0) for c in calcs), 2),
            ),
            ("probe_run_operation_seconds", round(seconds, 1)),
            ("probe_rows", dict(statuses)),
        ]
        for name, value in figures:
            print(f"BENCH {name} {value}")
        if done.returncode != 0 or statuses.get("PASS") != tables:
            print(out[-4000:], file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
