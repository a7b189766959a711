"""`dbt ARGS` in a new process FORKED from one that has already imported dbt.

Every dbt CLI invocation in a fresh interpreter spends about 5 of its 9 CPU seconds
importing dbt-core and dbt-athena (mashumaro builds its classes at import). The suites run
a few hundred invocations per CI leg, so that import was most of CI's time. Here one warm
server per test run imports them once (``PRELOAD``: dbt-core's CLI, tasks and dbt-athena,
NOT this project's plugin) and, for each invocation, forks a child that does what the `dbt`
console script does: ``sys.argv``, the environment, the working directory, stdin, stdout and
stderr set as ``subprocess.run`` would set them, then ``sys.exit(cli())``. The child is a new
process that has never run dbt: dbt's plugin discovery finds and imports
``dbt_athena_cross_account`` in it as in a user's `dbt`, and no state of one invocation can
reach the next (each child is forked from the pristine server).

What it does not prove (how dbt behaves in an interpreter that has imported nothing), the
suites about installing and discovering the plugin prove in plain subprocesses of their own
venvs (tests/packaging/test_plugin_loading.py, test_wheel.py, tests/e2e/). ``DBT_CLI_FORK=0``
runs every invocation as a plain subprocess; tests/integration/test_dbt_cli.py and
tests/unit/test_forked_dbt.py check that both ways give the same result.

Run as a script, this file is the server (it imports nothing from tests/).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Dict, List, Optional

# what a `dbt` invocation imports after its CLI; version-dependent names are skipped
PRELOAD = (
    "dbt.cli.main",
    "dbt.adapters.athena",
    "dbt.adapters.athena.impl",
    "dbt.adapters.athena.python_submissions",
    "dbt.task.build",
    "dbt.task.run",
    "dbt.task.run_operation",
    "dbt.task.show",
    "dbt.task.test",
    "dbt.task.seed",
    "dbt.task.deps",
    "dbt.task.retry",
    "dbt.task.docs.generate",
    "dbt.parser.manifest",
    "pyathena",
    "boto3",
)
# The dbt classes whose JSON schema dbt builds to validate a project, profile, selectors and
# node configs (recorded from the suites' invocations). ``json_schema`` is an lru_cache of a
# pure function of the class, the same in every process; built once here it saves each
# invocation ~2.5 of its CPU seconds. Names a version lacks are skipped.
WARM_SCHEMAS = (
    "dbt.contracts.project:Project",
    "dbt.contracts.project:PackageConfig",
    "dbt.contracts.project:ProfileConfig",
    "dbt.contracts.project:Configuration",
    "dbt.contracts.project:ProjectFlags",
    "dbt.contracts.selection:SelectorFile",
    "dbt.contracts.graph.unparsed:UnparsedMacroUpdate",
    "dbt.contracts.graph.unparsed:UnparsedModelUpdate",
    "dbt.contracts.graph.unparsed:UnparsedSourceDefinition",
    "dbt.contracts.graph.nodes:ModelNode",
    "dbt.contracts.graph.nodes:HookNode",
    "dbt.artifacts.resources.v1.model:ModelConfig",
    "dbt.artifacts.resources.v1.components:Contract",
    "dbt.artifacts.resources.v1.source_definition:SourceConfig",
    "dbt.artifacts.resources.v1.config:NodeConfig",
    "dbt.artifacts.resources.v1.config:Hook",
    "dbt.adapters.athena.connections:AthenaCredentials",
)


# The AWS services dbt-athena and the plugin call, whose botocore models the server loads once.
BOTOCORE_SERVICES = ("athena", "glue", "s3", "sts", "lakeformation")


# ---- the server (a script: `python forked_dbt.py SOCKET DBT_SCRIPT`) -----------------------
def _preload() -> None:
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for name in WARM_SCHEMAS:
        module, _, qualname = name.partition(":")
        with contextlib.suppress(ImportError, AttributeError):
            getattr(importlib.import_module(module), qualname).json_schema()
    share_botocore_loader()
    import botocore.session

    session = botocore.session.get_session()
    for service in BOTOCORE_SERVICES:  # loaded once here, in every child's memory after fork
        session.create_client(
            service, region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x"
        )
    if threading.active_count() != 1:  # forking a process with threads is unsafe
        raise SystemExit(f"forked_dbt: preloading started threads: {threading.enumerate()}")


def share_botocore_loader() -> None:
    """One botocore data loader per search path for every botocore session of the process
    (idempotent). The warm server calls it, and so does the test process (tests/stack.py),
    which runs dbt in-process for dbt-tests-adapter's classes.

    botocore builds a loader per session, and each loader reads and decodes the service
    models' JSON again; dbt-athena makes a new session for most of its AWS calls. That was a
    quarter of each invocation's CPU (py-spy over tests/integration/test_workflows.py:
    35.7 of 134 CPU s in ``Session.client``, 24.7 s decoding JSON). A loader's caches are
    pure functions of its search path and botocore's data files, so sharing it changes no
    result; a child whose ``AWS_DATA_PATH`` differs gets a loader of its own."""
    import botocore.session
    from botocore import loaders

    if getattr(botocore.session.create_loader, "shared_by_tests", False):
        return
    shared: Dict[Optional[str], Any] = {}

    def create_loader(search_path_string: Optional[str] = None) -> Any:
        if search_path_string not in shared:
            shared[search_path_string] = loaders.create_loader(search_path_string)
        return shared[search_path_string]

    create_loader.shared_by_tests = True  # type: ignore[attr-defined]
    botocore.session.create_loader = create_loader  # type: ignore[assignment]


def _exit_code(code: Any) -> int:
    """What the interpreter makes of ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_dbt(request: Dict[str, Any], dbt_script: str) -> None:
    """In the child: become `dbt ARGS` as subprocess.run(..., capture_output) starts it; never
    returns."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for fd, path, mode in (
            (0, os.devnull, os.O_RDONLY),
            (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            target = os.open(path, mode)
            os.dup2(target, fd)
            os.close(target)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = [dbt_script, *request["args"]]
        from dbt.cli.main import cli

        try:
            cli()
            code = 0
        except SystemExit as stop:
            code = _exit_code(stop.code)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            atexit._run_exitfuncs()  # the interpreter's normal exit, then no server code
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _handle(conn: socket.socket, dbt_script: str) -> None:
    """In a forked handler: fork the dbt child, report its pid, then its exit status."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # so waitpid sees the child
    request = json.loads(conn.makefile("r").readline())
    pid = os.fork()
    if pid == 0:
        conn.close()
        _run_dbt(request, dbt_script)
    conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
    _, status, usage = os.wait4(pid, 0)
    answer = {
        "returncode": os.waitstatus_to_exitcode(status),
        "cpu": usage.ru_utime + usage.ru_stime,
    }
    conn.sendall(json.dumps(answer).encode() + b"\n")


def serve(path: str, dbt_script: str) -> None:
    sys.path[0] = str(Path(dbt_script).parent)  # as the console script's, not tests/
    _preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    print("ready", flush=True)
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in readable and not sys.stdin.readline():
            return  # the test run ended (its end of the pipe closed)
        if listener in readable:
            conn, _ = listener.accept()
            if os.fork() == 0:
                listener.close()
                try:
                    _handle(conn, dbt_script)
                finally:
                    os._exit(0)
            conn.close()


# ---- the client (imported by tests/stack.py) ------------------------------------------------
class _Server:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.proc: Optional[subprocess.Popen] = None
        self.path = ""
        atexit.register(self.stop)

    def socket_path(self, dbt_script: str) -> str:
        with self.lock:
            if self.proc is None or self.proc.poll() is not None:
                self.stop()  # a server that died: its socket folder goes
                folder = tempfile.mkdtemp(prefix="forked-dbt-")
                self.path = os.path.join(folder, "sock")
                self.proc = subprocess.Popen(
                    [sys.executable, __file__, self.path, dbt_script],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                ready = self.proc.stdout.readline() if self.proc.stdout else ""
                if ready.strip() != "ready":
                    raise RuntimeError(f"forked_dbt: the server did not start ({ready!r})")
            return self.path

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            if self.proc.stdin:
                self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if self.path:
            shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)


_SERVER = _Server()


def enabled() -> bool:
    return os.environ.get("DBT_CLI_FORK", "1") != "0" and hasattr(os, "fork")


def run(
    args: List[str], cwd: Path, env: Dict[str, str], dbt_script: str, timeout: float
) -> subprocess.CompletedProcess:
    """``subprocess.run([dbt_script, *args], cwd=cwd, env=env, capture_output=True,
    text=True, timeout=timeout)``, in a child forked from the warm server."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="forked-dbt-out-") as out:
        stdout, stderr = os.path.join(out, "stdout"), os.path.join(out, "stderr")
        request = {"args": args, "cwd": str(cwd), "env": env, "stdout": stdout, "stderr": stderr}
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(_SERVER.socket_path(dbt_script))
            conn.settimeout(timeout)
            conn.sendall(json.dumps(request).encode() + b"\n")
            answers = conn.makefile("r")
            pid = json.loads(answers.readline())["pid"]
            try:
                line = answers.readline()
            except socket.timeout:
                os.kill(pid, signal.SIGKILL)
                raise subprocess.TimeoutExpired([dbt_script, *args], timeout) from None
            if not line:
                raise RuntimeError(f"forked_dbt: the server dropped `dbt {' '.join(args)}`")
            answer = json.loads(line)
        _log(args, answer, time.monotonic() - started)
        return subprocess.CompletedProcess(
            [dbt_script, *args],
            answer["returncode"],
            Path(stdout).read_text(encoding="utf-8", errors="replace"),
            Path(stderr).read_text(encoding="utf-8", errors="replace"),
        )


def _log(args: List[str], answer: Dict[str, Any], wall: float) -> None:
    """With ``FORKED_DBT_LOG=FILE``, one JSON line per invocation: its arguments, wall and
    CPU seconds (the child's own, from wait4), to measure what the suites spend on dbt."""
    target = os.environ.get("FORKED_DBT_LOG")
    if target:
        line = {"args": args[:4], "wall": round(wall, 2), "cpu": round(answer["cpu"], 2)}
        with open(target, "a", encoding="utf-8") as log:
            log.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
