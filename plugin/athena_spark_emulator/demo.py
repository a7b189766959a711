"""``make demo``: the whole flow on one machine.

Starts the emulator with the real local PySpark executor, seeds two accounts
(``<project>/fixtures/two_accounts.yml``: Hive and real Iceberg tables), runs the real
``dbt deps`` and ``dbt run`` console scripts on the project (this repository's
``integration_tests/``), prints the rows that the cross-account models wrote (one of them
read the partner's Iceberg table), and stops the emulator. Exits non-zero if any step
fails. Ctrl-C ends with one line: the emulator waits for the running calculation, stops
Spark and removes its files (status 130; 0 under make, which exits by the same Ctrl-C and
would otherwise add its own error line).

    python -m athena_spark_emulator.demo --project-dir integration_tests
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Dict, List, Optional, Sequence

from athena_spark_emulator.cli import INTERRUPTED, Interrupted, interrupts
from athena_spark_emulator.core.constants import LOCAL_ACCOUNT, SCHEMA
from athena_spark_emulator.profile import dbt_executable

PARTNER_ACCOUNT = "999999999999"

SHOWN_MODELS = (
    "partner_orders_enriched",
    "customer_revenue",
    "local_orders_stock",
    "partner_shipments_iceberg",
)
# model -> the order ids only the partner account (999999999999) holds: proof that the
# cross-account reads went to the right account (Hive sales.orders, Iceberg sales.shipments)
PARTNER_ONLY = {
    "partner_orders_enriched": [101, 102, 103],
    "partner_shipments_iceberg": [101, 102, 103],
}


def step(message: str) -> None:
    print(f"==> {message}", flush=True)


class Dbt:
    """The real dbt CLI in its own process group, its output relayed line by line.

    Its own group: a terminal's Ctrl-C reaches only the demo, which then ends dbt quietly
    (dbt's own interrupt report and its resource tracker's warnings are not relayed).
    """

    def __init__(self, project_dir: Path, env: Dict[str, str]) -> None:
        self.project_dir = project_dir
        self.env = env
        self.process: Optional[subprocess.Popen] = None
        self.relaying = True

    def __call__(self, args: List[str]) -> int:
        command = [*dbt_executable(), *args, "--project-dir", str(self.project_dir)]
        step("$ dbt " + " ".join(args))
        self.process = subprocess.Popen(
            command,
            cwd=self.project_dir,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        relay = threading.Thread(target=self._relay, args=(self.process.stdout,), daemon=True)
        relay.start()
        code = self.process.wait()
        relay.join()
        return code

    def _relay(self, stream: IO[str]) -> None:
        for line in stream:
            if self.relaying:
                sys.stdout.write(line)
                sys.stdout.flush()

    def end(self) -> None:
        self.relaying = False
        process = self.process
        if process is None or process.poll() is not None:
            return
        for sig, grace in ((signal.SIGINT, 15), (signal.SIGKILL, 10)):
            try:
                os.killpg(process.pid, sig)
                process.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                return


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


def print_iceberg_source(emu: object) -> None:
    """What partner_shipments_iceberg read: the partner's Iceberg table, as Glue holds it."""
    from athena_spark_emulator.accounts.catalog import TableRef

    for account in (PARTNER_ACCOUNT, LOCAL_ACCOUNT):
        table = emu.catalog.get_table(TableRef(account, "sales", "shipments"))  # type: ignore[attr-defined]
        params = table.get("Parameters") or {}
        print(
            f"  sales.shipments in account {account}: Glue table_type={params.get('table_type')}, "
            f"metadata_location={params.get('metadata_location')}"
        )


def run_demo(emulator: object, project_dir: Path, seed_file: Path, dbt: Dbt) -> int:
    started = time.time()
    emu = emulator  # an athena_spark_emulator.Emulator, started
    print(f"    endpoint {emu.endpoint_url}, warehouse {emu.catalog.warehouse}")  # type: ignore[attr-defined]
    emu.prepare()  # type: ignore[attr-defined]
    step(f"seeding two accounts from {seed_file}")
    emu.seed(seed_file)  # type: ignore[attr-defined]
    step("starting local Spark (PySpark 3.5)")
    emu.start_spark()  # type: ignore[attr-defined]
    for args in (["deps"], ["run"]):
        code = dbt(args)
        if code != 0:
            print(f"\ndemo FAILED: dbt {' '.join(args)} exited with {code}", file=sys.stderr)
            return code or 1
    emu.wait_idle()  # type: ignore[attr-defined]
    failed = [c for c in emu.submissions if c.state != "COMPLETED"]  # type: ignore[attr-defined]
    if failed:
        print(f"\ndemo FAILED: {len(failed)} calculation(s) did not complete", file=sys.stderr)
        return 1
    for model in SHOWN_MODELS:
        rows = emu.rows(SCHEMA, model)  # type: ignore[attr-defined]
        print_table(f"awsdatacatalog.{SCHEMA}.{model} (account {LOCAL_ACCOUNT}):", rows)
    print_iceberg_source(emu)
    for model, expected in PARTNER_ONLY.items():
        written = emu.rows(SCHEMA, model)  # type: ignore[attr-defined]
        if sorted(r["order_id"] for r in written) != expected:
            print(
                f"\ndemo FAILED: {model} did not read the partner account's rows",
                file=sys.stderr,
            )
            return 1
    calls = emu.calls  # type: ignore[attr-defined]
    calc_calls = {k: v for k, v in sorted(calls.items()) if "Session" in k or "Calculation" in k}
    print(f"\nCalculation API calls served: {calc_calls}")
    print(f"{len(emu.submissions)} calculations ran in local PySpark.")  # type: ignore[attr-defined]
    step(f"stopping the emulator; demo OK in {time.time() - started:.0f}s")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m athena_spark_emulator.demo")
    parser.add_argument("--project-dir", default="integration_tests", type=Path)
    parser.add_argument("--seed", type=Path, help="default: <project>/fixtures/two_accounts.yml")
    args = parser.parse_args(argv)
    project_dir = args.project_dir.resolve()
    seed_file = args.seed or project_dir / "fixtures" / "two_accounts.yml"
    with interrupts() as signals:
        emulator = None
        dbt: Optional[Dbt] = None
        try:
            step("starting the Athena-for-Spark emulator (moto + Calculation API + local PySpark)")
            from athena_spark_emulator.emulator import Emulator

            emulator = Emulator(executor="spark").start()
            emulator.glue_owner_routing = emulator.session_lifecycle = True
            env = {
                **os.environ,
                **emulator.env(),
                "DBT_PROFILES_DIR": str(project_dir),
                "DBT_SCHEMA": SCHEMA,
                "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
            }
            env.pop("AWS_PROFILE", None)
            dbt = Dbt(project_dir, env)
            code = run_demo(emulator, project_dir, seed_file, dbt)
        except (Interrupted, KeyboardInterrupt):
            signals.shield()
            if dbt is not None:
                dbt.end()
            if emulator is not None:
                emulator.stop()
            print(
                "demo interrupted: dbt ended, the emulator stopped and removed its files",
                file=sys.stderr,
                flush=True,
            )
            # Under make, make got the same Ctrl-C and exits by it; a non-zero status here
            # would only make it print a second line ("*** [demo] Error 130").
            return 0 if os.environ.get("MAKELEVEL") else INTERRUPTED
        signals.shield()
        emulator.stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
