"""Run dbt-athena's own functional suite against the local emulator and tabulate the outcome.

    .venv/bin/python scripts/athena_functional_suite.py --adapters PATH [--module NAME ...]
        [-k EXPR] [--timeout SECONDS] [--keep DIR] [-- EXTRA_PYTEST_ARGS]

``PATH`` is a clone of github.com/dbt-labs/dbt-adapters, bare or not (``git archive`` reads
``dbt-athena/tests`` from ``--rev``, default HEAD, into a temporary directory; nothing of it
is kept in this repository). The script starts ``athena-spark-emulator serve --spark`` with
this interpreter, gives pytest the emulator's environment plus the ``DBT_TEST_ATHENA_*``
variables that the suite's ``tests/functional/conftest.py`` reads, runs
``tests/functional/adapter`` (or the modules named) one test at a time, stops the emulator,
and prints one row per module (passed, failed, skipped, errors, xfailed) with the totals,
then each failing test with the first line of its error (the first ``Database Error`` /
``Runtime Error`` / ``Compilation Error`` line dbt printed, else the exception's message).

Run it with the interpreter of a venv made by ``make install`` (dbt, dbt-tests-adapter and
the plugin's wheel with its ``[emulator]`` extra); ``--timeout`` needs ``pytest-timeout``
in that venv. The whole suite takes 20 to 40 minutes. It is not part of CI and no test
runs it: it needs the dbt-adapters clone. See docs/testing-on-the-emulator.md.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Dict, List, Optional, Sequence, Tuple

SUITE = "dbt-athena/tests"
ADAPTER_DIR = "tests/functional/adapter"
SERVING = "# serving until Ctrl-C"
# Buckets the suite expects to exist in dbt-athena's CI account: the catalogs v2 test's
# external_volume (S3 Tables' table bucket is another service, which is not modelled).
SUITE_BUCKETS = ("dbt-athena-integration-testing",)
OUTCOMES = ("passed", "failed", "skipped", "errors", "xfailed")
# dbt's lines that announce why a node failed; the reason is on a line after them.
DBT_ERROR = re.compile(
    r"\b(Database Error|Runtime Error|Compilation Error|Parsing Error|Unhandled error)\b"
)
# What is no reason: blank, "(models/x.sql)", a bare header, "Exception on worker thread".
NOT_A_REASON = re.compile(
    r"^\s*$|^\s*\(.*\)\s*$|^\s*(Database|Runtime|Compilation) Error\s*$|"
    r"^\s*Exception on worker thread"
)
# Colours (junit writes ESC as "#x1B") and the time dbt puts before each line.
COLOUR = re.compile(r"(\x1b|#x1B)\[[0-9;]*m")
CLOCK = re.compile(r"^\s*\d{2}:\d{2}:\d{2}\s")


# -- the suite ---------------------------------------------------------------------------
def extract_suite(adapters: Path, rev: str, into: Path) -> Path:
    """``git archive REV dbt-athena/tests`` of the clone into ``into``; the package root."""
    archive = subprocess.run(
        ["git", "-C", str(adapters), "archive", "--format=tar", rev, SUITE],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into)  # our own git archive of one folder
    root = into / "dbt-athena"
    # A minimal ini: the suite's pyproject asks for xdist (-n auto) and test.env.
    (root / "pytest.ini").write_text(
        "[pytest]\nfilterwarnings =\n    ignore::DeprecationWarning\n", encoding="utf-8"
    )
    return root


def suite_env(emulator_env: Dict[str, str], threads: int) -> Dict[str, str]:
    """This process's environment, the emulator's over it, and what the suite's conftest
    reads (profile.py's defaults: the staging bucket, the region, the Spark work group)."""
    from athena_spark_emulator.core import constants as c

    env = {**os.environ, **emulator_env}
    for variable in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE"):  # must not win over the keys
        env.pop(variable, None)
    env.update(
        {
            "DBT_TEST_ATHENA_S3_STAGING_DIR": f"s3://{c.STAGING_BUCKET}/",
            "DBT_TEST_ATHENA_S3_TMP_TABLE_DIR": f"s3://{c.STAGING_BUCKET}/tmp_tables/",
            "DBT_TEST_ATHENA_REGION_NAME": emulator_env.get("AWS_DEFAULT_REGION", c.REGION),
            "DBT_TEST_ATHENA_DATABASE": "awsdatacatalog",
            "DBT_TEST_ATHENA_SCHEMA": "dbt_functional",
            "DBT_TEST_ATHENA_WORK_GROUP": "primary",
            "DBT_TEST_ATHENA_SPARK_WORK_GROUP": c.SPARK_WORK_GROUP,
            "DBT_TEST_ATHENA_THREADS": str(threads),
            "DBT_TEST_ATHENA_POLL_INTERVAL": "0.1",
            "DBT_TEST_ATHENA_NUM_RETRIES": "0",
            "DBT_TEST_ATHENA_AWS_PROFILE_NAME": "",
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        }
    )
    return env


# -- the emulator ------------------------------------------------------------------------
class Served:
    """``athena-spark-emulator serve --spark`` as a child process; its stdout and stderr go
    to ``log``, its ``export`` lines become :attr:`env`."""

    def __init__(self, python: str, log: IO[str], startup_timeout: float) -> None:
        self.log = log
        self.env: Dict[str, str] = {}
        self.process = subprocess.Popen(
            [python, "-m", "athena_spark_emulator.cli", "serve", "--spark"],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            start_new_session=True,  # a Ctrl-C in the terminal reaches only this script
        )
        ready = threading.Event()
        threading.Thread(target=self._read, args=(ready,), daemon=True).start()
        if not ready.wait(startup_timeout) or not self.env:
            self.stop()
            raise SystemExit(f"the emulator did not start within {startup_timeout:.0f}s")

    def _read(self, ready: threading.Event) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.log.write(line)
            self.log.flush()
            if line.startswith("export ") and "=" in line:
                key, _, value = line[len("export ") :].strip().partition("=")
                self.env[key] = value
            elif line.startswith(SERVING):
                ready.set()
        ready.set()  # the process ended: the caller sees an empty or partial env

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(90)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(30)


def create_suite_buckets(env: Dict[str, str]) -> None:
    import boto3

    s3 = boto3.client(
        "s3",
        endpoint_url=env["AWS_ENDPOINT_URL"],
        region_name=env["AWS_DEFAULT_REGION"],
        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
    )
    for bucket in SUITE_BUCKETS:
        s3.create_bucket(
            Bucket=bucket,
            CreateBucketConfiguration={"LocationConstraint": env["AWS_DEFAULT_REGION"]},
        )


# -- pytest ------------------------------------------------------------------------------
def pytest_command(args: argparse.Namespace, root: Path, junit: Path) -> List[str]:
    targets = [f"{ADAPTER_DIR}/{module_path(m)}" for m in args.module] or [ADAPTER_DIR]
    command = [
        args.python,
        "-m",
        "pytest",
        *targets,
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-rfE",
        f"--junitxml={junit}",
        "-o",
        "junit_logging=all",
        "-o",
        "junit_family=xunit1",
        "--rootdir",
        str(root),
    ]
    if args.k:
        command += ["-k", args.k]
    if args.timeout:
        command += ["--timeout", str(args.timeout)]
    return command + list(args.pytest_args)


def module_path(name: str) -> str:
    """``test_snapshot``, ``test_snapshot.py`` or ``utils/test_utils`` -> a path."""
    return name if name.endswith(".py") else f"{name}.py"


def run_pytest(command: List[str], root: Path, env: Dict[str, str], log: IO[str]) -> int:
    """pytest's output goes to the terminal and to ``log``."""
    log.write("$ " + " ".join(command) + "\n")
    with subprocess.Popen(
        command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            log.write(line)
            log.flush()
        return process.wait()


# -- the results -------------------------------------------------------------------------
@dataclass
class Module:
    counts: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    failures: List[Tuple[str, str]] = field(default_factory=list)  # (test, first line)


def module_of(case: ET.Element, root: Path) -> str:
    """The test's module relative to tests/functional/adapter, from the junit classname
    (``tests.functional.adapter.utils.test_utils.TestHash`` -> ``utils/test_utils.py``)."""
    parts = case.get("classname", "").split(".")
    for end in range(len(parts), 0, -1):
        path = root.joinpath(*parts[:end]).with_suffix(".py")
        if path.is_file():
            return str(path.relative_to(root / ADAPTER_DIR))
    return case.get("file") or ".".join(parts)


def outcome_of(case: ET.Element) -> Tuple[str, Optional[ET.Element]]:
    for tag, outcome in (("failure", "failed"), ("error", "errors")):
        found = case.find(tag)
        if found is not None:
            return outcome, found
    skipped = case.find("skipped")
    if skipped is not None:
        xfail = skipped.get("type") == "pytest.xfail"
        return ("xfailed" if xfail else "skipped"), None
    return "passed", None


def first_error_line(case: ET.Element, problem: ET.Element) -> str:
    """The exception's message, unless it is only a failed assertion; then the reason dbt
    printed (the line after its first error header) in the failure or the captured output."""
    message = (problem.get("message") or problem.text or "(no message)").strip()
    first = message.splitlines()[0] if message else "(no message)"
    if not first.startswith("AssertionError"):
        reason = dbt_reason(message)
        return (f"{first[:120]} | {reason}" if reason else first)[:400]
    texts = [problem.text or ""]
    texts += [(case.findtext(tag) or "") for tag in ("system-out", "system-err")]
    for text in texts:
        reason = dbt_reason(text)
        if reason:
            return f"{first[:120]} | {reason}"[:400]
    return first[:400]


def dbt_reason(text: str) -> str:
    """The first line after a dbt error header that says something (JSON logs included:
    their messages carry escaped newlines)."""
    text = text.replace("\\n", "\n")
    lines = [CLOCK.sub("", COLOUR.sub("", line)) for line in text.splitlines()]
    for i, line in enumerate(lines):
        if DBT_ERROR.search(line):
            reason = next((x for x in lines[i + 1 : i + 5] if not NOT_A_REASON.match(x)), "")
            if reason:
                return reason.strip().split('", "')[0]
    return ""


def tabulate(junit: Path, root: Path) -> Dict[str, Module]:
    modules: Dict[str, Module] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = modules.setdefault(module_of(case, root), Module())
        outcome, problem = outcome_of(case)
        module.counts[outcome] += 1
        if problem is not None:
            test = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
            module.failures.append((f"[{outcome}] {test}", first_error_line(case, problem)))
    return modules


def report(modules: Dict[str, Module]) -> str:
    width = max([len("module"), *map(len, modules)])
    header = f"{'module':<{width}} " + " ".join(f"{o:>7}" for o in OUTCOMES)
    lines = [header, "-" * len(header)]
    totals = dict.fromkeys(OUTCOMES, 0)
    for name in sorted(modules):
        counts = modules[name].counts
        lines.append(f"{name:<{width}} " + " ".join(f"{counts[o]:>7}" for o in OUTCOMES))
        for outcome in OUTCOMES:
            totals[outcome] += counts[outcome]
    lines.append("-" * len(header))
    lines.append(f"{'total':<{width}} " + " ".join(f"{totals[o]:>7}" for o in OUTCOMES))
    ran = totals["passed"] + totals["failed"] + totals["errors"]
    lines.append(f"\n{totals['passed']} of the {ran} tests that ran passed")
    failing = [(n, f) for n in sorted(modules) for f in modules[n].failures]
    if failing:
        lines.append("\nFailures (first error line):")
    for name, (test, line) in failing:
        lines.append(f"- {name} {test}\n    {line}")
    return "\n".join(lines)


# -- main --------------------------------------------------------------------------------
def parse(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--adapters", type=Path, help="a dbt-labs/dbt-adapters clone (bare too); required"
    )
    parser.add_argument("--rev", default="HEAD", help="the clone's revision (default: HEAD)")
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        help="run only this module of tests/functional/adapter (repeatable), e.g. "
        "test_snapshot or utils/test_utils",
    )
    parser.add_argument("-k", help="pytest's -k expression")
    parser.add_argument("--timeout", type=int, help="per-test timeout in s (pytest-timeout)")
    parser.add_argument("--threads", type=int, default=1, help="dbt threads (default 1)")
    parser.add_argument(
        "--keep",
        type=Path,
        help="work in this directory and keep it (suite, logs, junit.xml); default: a "
        "temporary one, removed at the end",
    )
    parser.add_argument(
        "--python", default=sys.executable, help="the venv's interpreter (default: this one)"
    )
    parser.add_argument("--startup-timeout", type=float, default=300)
    parser.add_argument(
        "--report",
        type=Path,
        metavar="DIR",
        help="run nothing: print the table of an earlier run kept with --keep DIR",
    )
    parser.add_argument("pytest_args", nargs="*", help="after --: more pytest arguments")
    return parser.parse_args(argv)


def measure(args: argparse.Namespace, work: Path) -> int:
    root = extract_suite(args.adapters, args.rev, work / "suite")
    junit = work / "junit.xml"
    started = time.monotonic()
    with (
        open(work / "emulator.log", "w", encoding="utf-8") as emulator_log,
        open(work / "pytest.log", "w", encoding="utf-8") as pytest_log,
    ):
        served = Served(args.python, emulator_log, args.startup_timeout)
        try:
            env = suite_env(served.env, args.threads)
            create_suite_buckets(env)
            code = run_pytest(pytest_command(args, root, junit), root, env, pytest_log)
        finally:
            served.stop()
    minutes = (time.monotonic() - started) / 60
    if not junit.is_file():
        print(f"pytest exited with {code} and wrote no results", file=sys.stderr)
        return code or 1
    print(f"\n== dbt-athena functional suite on the emulator ({minutes:.1f} min) ==")
    print(report(tabulate(junit, root)))
    if args.keep:
        print(f"\nlogs: {work}/pytest.log, {work}/emulator.log, dbt: {root}/logs/<schema>/dbt.log")
    return code


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse(argv)
    if not (args.adapters or args.report):
        raise SystemExit("--adapters PATH is required (a dbt-labs/dbt-adapters clone)")
    if args.report:
        root = args.report / "suite" / "dbt-athena"
        print(report(tabulate(args.report / "junit.xml", root)))
        return 0
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return measure(args, args.keep.resolve())
    with tempfile.TemporaryDirectory(prefix="athena-functional-") as work:
        return measure(args, Path(work))


if __name__ == "__main__":
    sys.exit(main())
