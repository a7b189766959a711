"""Stopping the emulator cleanly: ``Emulator.stop()`` waits for the running
calculation, stops Spark and only then removes its directories; Ctrl-C during ``make demo``
or ``athena-spark-emulator run`` ends with one line, no traceback and no temp directories.

Each test runs the emulator in a fresh process with its own TMPDIR, so Spark really stops
(the test session's shared SparkSession is untouched) and leftovers are visible."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Dict, List

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.spark

STOP_WHILE_WRITING = textwrap.dedent(
    """
    import json, os, time
    import pyspark
    from athena_spark_emulator import Emulator

    emu = Emulator(executor="spark").start()
    athena = emu.client("athena")
    athena.create_work_group(Name="wg", Configuration={
        "EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"},
        "ExecutionRole": "arn:aws:iam::123456789012:role/AthenaSparkExecutionRole"})
    session = athena.start_session(WorkGroup="wg", EngineConfiguration={"MaxConcurrentDpus": 2})
    code = (
        "import time\\n"
        "for i in range(8):\\n"
        "    spark.createDataFrame([(i,)], 'id int').write.mode('append')"
        ".format('parquet').save('s3://dbt-data/slow/')\\n"
        "    time.sleep(0.5)\\n"
        "print('wrote 8 batches')\\n"
    )
    calc_id = athena.start_calculation_execution(
        SessionId=session["SessionId"], CodeBlock=code)["CalculationExecutionId"]
    out = emu.catalog.warehouse / "s3" / "dbt-data" / "slow"
    deadline = time.time() + 300
    while not any(out.glob("*.parquet")) and time.time() < deadline:
        time.sleep(0.05)
    [calc] = [c for c in emu.submissions if c.calculation_id == calc_id]
    running_at_stop = calc.state
    emu.stop()
    with open(os.environ["RESULT"], "w") as result:  # not stdout: the old executor captured it
        json.dump({
        "running_at_stop": running_at_stop,
        "state": calc.state,
        "stdout": calc.stdout.strip(),
        "reason": calc.reason[-500:],
        "spark_active": pyspark.SparkContext._active_spark_context is not None,
        "left_in_tmp": sorted(os.listdir(os.environ["TMPDIR"])),
        }, result)
    """
)


def fresh_env(tmp: Path, **extra: str) -> Dict[str, str]:
    tmp.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAKE"))}
    env.update(TMPDIR=str(tmp), PYTHONUNBUFFERED="1", **extra)
    return env


def emulator_dirs(tmp: Path) -> List[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("athena-emulator"))


def test_stop_waits_for_the_running_calculation_then_stops_spark_then_removes_dirs(tmp_path):
    tmp = tmp_path / "tmp"
    result = tmp_path / "result.json"
    done = subprocess.run(
        [sys.executable, "-c", STOP_WHILE_WRITING],
        env=fresh_env(tmp, RESULT=str(result)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    seen = json.loads(result.read_text())
    assert seen["running_at_stop"] == "RUNNING", seen
    assert (seen["state"], seen["stdout"]) == ("COMPLETED", "wrote 8 batches"), seen
    assert seen["spark_active"] is False, seen
    assert not [n for n in seen["left_in_tmp"] if n.startswith("athena-emulator")], seen
    assert emulator_dirs(tmp) == []


class Stderr:
    """A process's stderr lines as they arrive, so a test can tell what came after a signal."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: List[tuple] = []
        self._thread = threading.Thread(target=self._read, args=(process.stderr,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def after(self, moment: float) -> List[str]:
        self._thread.join(30)
        return [line for at, line in self.lines if at >= moment and line.strip()]

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)


def interrupt_when(process: subprocess.Popen, marker: str, delay: float, timeout: float) -> float:
    """Read ``process``'s stdout until ``marker``; ``delay`` s later send SIGINT to its
    process group, as a terminal's Ctrl-C does. Returns when it was sent."""
    seen: List[str] = []
    deadline = time.time() + timeout
    assert process.stdout is not None
    for line in process.stdout:
        seen.append(line)
        if marker in line or time.time() > deadline:
            break
    assert any(marker in line for line in seen), "".join(seen)[-3000:]
    time.sleep(delay)
    sent = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    return sent


@pytest.mark.dbt
def test_ctrl_c_during_the_demo_prints_one_line_and_leaves_nothing(tmp_path):
    from tests.integration.conftest import copy_project

    project = copy_project(tmp_path / "integration_tests")
    tmp = tmp_path / "tmp"
    demo = subprocess.Popen(
        [sys.executable, "-m", "athena_spark_emulator.demo", "--project-dir", str(project)],
        env=fresh_env(tmp),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stderr = Stderr(demo)
    try:
        # a Python model has started: its calculation is running in Spark, writing
        sent = interrupt_when(demo, "START python", delay=4, timeout=500)
        out = demo.stdout.read()  # stderr is Stderr's: communicate() would race it
        demo.wait(300)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
    assert demo.returncode == 130, out + stderr.text()
    assert stderr.after(sent) == [
        "demo interrupted: dbt ended, the emulator stopped and removed its files"
    ], stderr.text()
    assert "Traceback" not in out + stderr.text() and "leaked" not in out + stderr.text()
    assert emulator_dirs(tmp) == []


def test_ctrl_c_during_run_ends_the_command_and_prints_one_line(tmp_path):
    tmp = tmp_path / "tmp"
    command = [
        str(Path(sys.executable).parent / "athena-spark-emulator"),
        "run",
        "--",
        sys.executable,
        "-c",
        # like dbt, the command ends quietly on the terminal's Ctrl-C (which reaches it too)
        "import signal, sys, time; signal.signal(signal.SIGINT, lambda *a: sys.exit(130)); "
        "print('command started', flush=True); time.sleep(600)",
    ]
    run = subprocess.Popen(
        command,
        env=fresh_env(tmp),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stderr = Stderr(run)
    try:
        sent = interrupt_when(run, "command started", delay=0.5, timeout=120)
        out = run.stdout.read()
        run.wait(120)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, out + stderr.text()
    assert stderr.after(sent) == [
        "athena-spark-emulator: interrupted: the emulator stopped and removed its files"
    ], stderr.text()
    assert "Traceback" not in out + stderr.text()
    assert emulator_dirs(tmp) == []


def test_demo_exits_0_under_make_on_ctrl_c(monkeypatch):
    """Under make (MAKELEVEL set) the demo's status is 0: make got the same Ctrl-C, exits
    by it, and prints no '*** [demo] Error 130' line of its own."""
    from athena_spark_emulator import demo

    class Interrupting:
        def __init__(self, *args, **kwargs):
            raise demo.Interrupted()

    monkeypatch.setattr("athena_spark_emulator.emulator.Emulator", Interrupting)
    monkeypatch.setenv("MAKELEVEL", "1")
    assert demo.main(["--project-dir", str(REPO_ROOT / "integration_tests")]) == 0
    monkeypatch.delenv("MAKELEVEL")
    assert demo.main(["--project-dir", str(REPO_ROOT / "integration_tests")]) == 130
