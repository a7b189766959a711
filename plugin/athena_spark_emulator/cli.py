"""``athena-spark-emulator``: the local Athena-for-Apache-Spark emulator as a command.

    athena-spark-emulator run --seed seed.yml [--spark] -- dbt build
    athena-spark-emulator serve --seed seed.yml [--spark]
    athena-spark-emulator validate seed.yml
    athena-spark-emulator profile [PROFILE_NAME]

``run`` starts the emulator, seeds it, creates the buckets and the Spark work group (with
its execution role) that a dbt-athena profile needs, runs the command with the endpoint
and dummy credentials in its environment, stops, and exits with the command's status.
``serve`` keeps running and prints the ``export`` lines and a ``profiles.yml`` until Ctrl-C.
The defaults agree with ``integration_tests/profiles.yml`` (``profile`` prints it).

Errors the user can fix (a bad seed file, no Java, the extra not installed) are one line
on stderr and exit status 2. Ctrl-C stops cleanly with one line and status 130.
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
from typing import Any, Callable, Dict, List, Optional, Sequence

from athena_spark_emulator.core.constants import SPARK_WORK_GROUP
from athena_spark_emulator.core.errors import EmulatorError, require_extra, require_java

PROG = "athena-spark-emulator"
INTERRUPTED = 130


def progress(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


class Interrupted(Exception):
    """Ctrl-C (SIGINT) or SIGTERM while the emulator runs."""


class interrupts:
    """Turn SIGINT/SIGTERM into :class:`Interrupted` in the main thread; once the first one
    arrived, ignore further ones until the context ends (cleanup must not be cut short)."""

    def __enter__(self) -> interrupts:
        self.received: Optional[int] = None
        self._previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        for sig in self._previous:
            signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.received is None:
            self.received = signum
            raise Interrupted()

    def shield(self) -> None:
        """From now on signals are only recorded (used while stopping)."""
        for sig in self._previous:
            signal.signal(sig, lambda s, f: None)

    def __exit__(self, *exc: Any) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def start_emulator(
    seed: Optional[str],
    spark: bool,
    port: int = 0,
    warehouse: Optional[str] = None,
    data_dir: Optional[str] = None,
) -> Any:
    """Check the seed, Java and the extra; start, prepare and seed an emulator (with the
    state kept in ``data_dir`` put back first)."""
    if data_dir and warehouse:
        raise EmulatorError(
            "--data-dir and --warehouse both set: --data-dir DIR keeps the files in DIR/s3/ "
            "(it is the warehouse); use one of them"
        )
    from athena_spark_emulator.accounts import seed as seed_module

    document = seed_module.load(seed) if seed else None  # a bad seed fails before anything
    require_extra("moto")
    # moto (in this process) reads botocore's config: a profile the emulator never uses
    # must not break it, and the command must not get it either (child_env).
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):
        os.environ.pop(variable, None)
    if spark:
        require_extra("pyspark")
        require_java()
    from athena_spark_emulator.emulator import Emulator

    started = time.monotonic()
    store = _open_store(data_dir)  # refuses a directory another emulator uses
    try:
        emulator = Emulator(
            port=port, executor="spark" if spark else None, warehouse=data_dir or warehouse
        ).start()
    except BaseException:
        _close(store)
        raise
    try:
        emulator.glue_owner_routing = emulator.session_lifecycle = True
        emulator.prepare()
        if store is not None:
            _load_store(emulator, store)
        progress(f"endpoint {emulator.endpoint_url} (moto: Athena, Glue, S3, STS, IAM)")
        if document is not None:
            _seed(emulator, document, str(seed), store)
        if spark:
            _start_spark(emulator)
        progress(f"ready in {time.monotonic() - started:.0f}s")
    except BaseException:
        emulator.stop()
        _close(store)
        raise
    return emulator


def _close(store: Any) -> None:
    if store is not None:
        store.close()


def _start_spark(emulator: Any) -> None:
    progress("starting local Spark (PySpark 3.5; this takes 10-30 s) ...")
    spark_started = time.monotonic()
    emulator.start_spark()
    progress(f"Spark ready in {time.monotonic() - spark_started:.0f}s")


def _open_store(data_dir: Optional[str]) -> Any:
    if not data_dir:
        return None
    from athena_spark_emulator.accounts.persistence import Store

    return Store(Path(data_dir)).open()


def _load_store(emulator: Any, store: Any) -> None:
    kept = store.load(emulator.catalog)
    emulator.backend.persistence = store  # from now on: saved after each request
    _checkpoint(store)
    progress(f"state from {store.dir} put back" if kept else f"keeping state in {store.dir}")


def _checkpoint(store: Any) -> None:
    failure = store.checkpoint()
    if failure:
        raise EmulatorError(failure)


def _seed(emulator: Any, document: Any, seed: str, store: Any) -> None:
    tables = sum(
        len(tables or {})
        for account in (document.data.get("accounts") or {}).values()
        for tables in ((account or {}).get("databases") or {}).values()
    )
    progress(f"seeding {tables} table(s) from {seed} ...")
    emulator.seed(seed)
    if store is not None:
        _checkpoint(store)


def stop_emulator(emulator: Any, data_dir: Optional[str]) -> None:
    """Stop; with ``data_dir`` save what the last requests changed first (each request's
    change is saved before it is answered: persistence.py), then release the directory."""
    store = emulator.backend.persistence
    try:
        if store is not None:
            failure = store.checkpoint()
            if failure is None:
                progress(f"state kept in {data_dir}")
    finally:
        try:
            emulator.stop()
        finally:
            if store is not None:
                store.close()


def child_env(emulator: Any) -> Dict[str, str]:
    env = {**os.environ, **emulator.env()}
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):  # must not win over the keys
        env.pop(variable, None)
    return env


def run(args: argparse.Namespace) -> int:
    command: List[str] = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise EmulatorError("run needs a command after --, e.g. `run --seed seed.yml -- dbt build`")
    with interrupts() as signals:
        emulator = None
        child: Optional[subprocess.Popen] = None
        try:
            emulator = start_emulator(
                args.seed, args.spark, args.port, args.warehouse, args.data_dir
            )
            progress("$ " + " ".join(command))
            try:
                child = subprocess.Popen(command, env=child_env(emulator))
            except OSError as exc:
                raise EmulatorError(f"cannot run {command[0]!r}: {exc.strerror}") from None
            code = child.wait()
        except (Interrupted, KeyboardInterrupt):
            signals.shield()
            if child is not None:
                _end_child(child)
            if emulator is not None:
                stop_emulator(emulator, args.data_dir)
            progress("interrupted: the emulator stopped" + _kept(args))
            return INTERRUPTED
        signals.shield()
        stop_emulator(emulator, args.data_dir)
    progress(f"command exited with {code}")
    return code


def _kept(args: argparse.Namespace) -> str:
    return f" (state kept in {args.data_dir})" if args.data_dir else " and removed its files"


def _end_child(child: subprocess.Popen) -> None:
    """End the command: a terminal's Ctrl-C reached it too, so first give it time to end
    on its own; then pass SIGINT on, then SIGTERM, then SIGKILL."""
    for send, grace in ((None, 5), (signal.SIGINT, 20), (signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        if send is not None:
            child.send_signal(send)
        try:
            child.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def serve(args: argparse.Namespace) -> int:
    from athena_spark_emulator.profile import profiles_yml

    with interrupts() as signals:
        emulator = None
        try:
            emulator = start_emulator(
                args.seed, args.spark, args.port, args.warehouse, args.data_dir
            )
            print("# the emulator's environment; paste into the shell that runs dbt:")
            for key, value in emulator.env().items():
                print(f"export {key}={value}")
            print("unset AWS_PROFILE")
            print("\n# profiles.yml (the profile name must match your dbt_project.yml):")
            print(profiles_yml(args.profile), end="")
            print(f"\n# serving until Ctrl-C (Spark work group '{SPARK_WORK_GROUP}')", flush=True)
            threading.Event().wait()
        except (Interrupted, KeyboardInterrupt):
            signals.shield()
            if emulator is not None:
                stop_emulator(emulator, args.data_dir)
            progress("stopped: the emulator" + _kept(args).replace(" and", ""))
            return 0
    return 0  # pragma: no cover - the wait above ends only by a signal


def validate(args: argparse.Namespace) -> int:
    from athena_spark_emulator.accounts import seed as seed_module

    document = seed_module.load(args.file)
    accounts = document.data.get("accounts") or {}
    print(
        f"{args.file}: OK ({len(document.data.get('data_catalogs') or [])} data catalog(s), "
        f"{len(accounts)} account(s))"
    )
    return 0


def profile(args: argparse.Namespace) -> int:
    from athena_spark_emulator.profile import profiles_yml

    print(profiles_yml(args.name), end="")
    return 0


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(
        prog=PROG,
        description="Local Athena for Apache Spark (moto + the Spark Calculation API + "
        "local PySpark) for dbt-athena projects.",
    )
    commands = main_parser.add_subparsers(dest="action", required=True)

    def emulator_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--seed",
            metavar="FILE",
            help="seed file (YAML or JSON; see docs/testing-on-the-emulator.md)",
        )
        sub.add_argument(
            "--spark",
            action="store_true",
            help="run calculations in local PySpark (needs Java); "
            "without it they complete without running",
        )
        sub.add_argument("--port", type=int, default=0, help="port (default: a free one)")
        sub.add_argument(
            "--warehouse",
            metavar="DIR",
            help="keep the emulated S3 data here (s3://bucket/key -> DIR/s3/bucket/key); "
            "default: a temporary directory, removed at the end",
        )
        sub.add_argument(
            "--data-dir",
            metavar="DIR",
            help="keep Glue, S3 and the tables' files in DIR between invocations (a second "
            "run sees what the first wrote); default: nothing is kept",
        )

    run_parser = commands.add_parser("run", help="start, seed, run a command, stop")
    emulator_options(run_parser)
    run_parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND [ARGS...]")
    run_parser.set_defaults(handler=run)

    serve_parser = commands.add_parser("serve", help="start, seed, print the environment, wait")
    emulator_options(serve_parser)
    serve_parser.add_argument(
        "--profile", default="my_project", help="profile name in the printed profiles.yml"
    )
    serve_parser.set_defaults(handler=serve)

    validate_parser = commands.add_parser("validate", help="check a seed file and exit")
    validate_parser.add_argument("file")
    validate_parser.set_defaults(handler=validate)

    profile_parser = commands.add_parser("profile", help="print a profiles.yml for the emulator")
    profile_parser.add_argument("name", nargs="?", default="my_project")
    profile_parser.set_defaults(handler=profile)
    return main_parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except EmulatorError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # outside the guarded sections (argument parsing, imports)
        print(f"{PROG}: interrupted", file=sys.stderr)
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
