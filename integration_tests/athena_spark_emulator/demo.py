"""``make demo``: the whole flow on one machine.

Starts the emulator with the real local PySpark executor, seeds two accounts
(``integration_tests/fixtures/two_accounts.yml``), runs the real ``dbt deps`` and
``dbt run`` console scripts on ``integration_tests/``, prints the rows that the
cross-account model wrote, and stops the emulator. Exits non-zero if any step fails.

    python -m athena_spark_emulator.demo [--keep-going]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

from athena_spark_emulator import LOCAL_ACCOUNT, REGION, Emulator
from athena_spark_emulator.catalog import TableRef
from athena_spark_emulator.spark_executor import read_rows

PROJECT_DIR = Path(__file__).resolve().parents[1]  # integration_tests/
SEED_FILE = PROJECT_DIR / "fixtures" / "two_accounts.yml"
SCHEMA = "analytics"
SPARK_WORK_GROUP = "spark_wg"
BUCKETS = ("dbt-staging", "dbt-data")
SHOWN_MODELS = ("partner_orders_enriched", "customer_revenue", "local_orders_stock")


def step(message: str) -> None:
    print(f"==> {message}", flush=True)


def prepare(emulator: Emulator) -> None:
    athena = emulator.client("athena")
    athena.create_work_group(
        Name=SPARK_WORK_GROUP,
        Configuration={"EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"}},
    )
    s3 = emulator.client("s3")
    for bucket in BUCKETS:
        s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION})


def dbt(args: List[str], env: Dict[str, str]) -> int:
    executable = shutil.which("dbt", path=str(Path(sys.executable).parent)) or shutil.which("dbt")
    if executable is None:
        print("dbt console script not found next to this Python or on PATH", file=sys.stderr)
        return 127
    command = [
        executable,
        *args,
        "--project-dir",
        str(PROJECT_DIR),
        "--profiles-dir",
        str(PROJECT_DIR),
    ]
    step("$ dbt " + " ".join(args))
    return subprocess.run(command, cwd=PROJECT_DIR, env=env, check=False).returncode


def print_table(title: str, rows: List[Dict[str, object]]) -> None:
    print(f"\n{title}")
    if not rows:
        print("  (no rows)")
        return
    columns = list(rows[0])
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in columns}
    print("  " + " | ".join(c.ljust(widths[c]) for c in columns))
    print("  " + "-+-".join("-" * widths[c] for c in columns))
    for row in rows:
        print("  " + " | ".join(str(row[c]).ljust(widths[c]) for c in columns))


def main() -> int:
    started = time.time()
    step("starting the Athena-for-Spark emulator (moto + Calculation API + local PySpark)")
    with Emulator(executor="spark") as emulator:
        emulator.glue_owner_routing = emulator.session_lifecycle = True
        print(f"    endpoint {emulator.endpoint_url}, warehouse {emulator.catalog.warehouse}")
        prepare(emulator)
        step(f"seeding two accounts from {SEED_FILE.relative_to(PROJECT_DIR.parent)}")
        emulator.seed(SEED_FILE)
        env = {
            **os.environ,
            **emulator.env(),
            "DBT_PROFILES_DIR": str(PROJECT_DIR),
            "DBT_SCHEMA": SCHEMA,
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        }
        env.pop("AWS_PROFILE", None)
        for args in (["deps"], ["run"]):
            code = dbt(args, env)
            if code != 0:
                print(f"\ndemo FAILED: dbt {' '.join(args)} exited with {code}", file=sys.stderr)
                return code or 1
        emulator.wait_idle()
        failed = [c for c in emulator.submissions if c.state != "COMPLETED"]
        if failed:
            print(f"\ndemo FAILED: {len(failed)} calculation(s) did not complete", file=sys.stderr)
            return 1
        for model in SHOWN_MODELS:
            rows = read_rows(TableRef(LOCAL_ACCOUNT, SCHEMA, model))
            print_table(f"awsdatacatalog.{SCHEMA}.{model} (account {LOCAL_ACCOUNT}):", rows)
        enriched = read_rows(TableRef(LOCAL_ACCOUNT, SCHEMA, "partner_orders_enriched"))
        if sorted(r["order_id"] for r in enriched) != [101, 102, 103]:
            print(
                "\ndemo FAILED: the cross-account model did not read the partner's orders",
                file=sys.stderr,
            )
            return 1
        calc_calls = {
            k: v for k, v in sorted(emulator.calls.items()) if "Session" in k or "Calculation" in k
        }
        print(f"\nCalculation API calls served: {calc_calls}")
        print(f"{len(emulator.submissions)} calculations ran in local PySpark.")
        step(f"stopping the emulator; demo OK in {time.time() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
