"""The page "Test your own project on the emulator" (docs/testing-on-the-emulator.md, linked
from the README), done as a new user does it: from a directory
outside the repository, in a new venv, ``pip install "<clone>[emulator]"``; then the
project, seed, commands and pytest example exactly as the page shows them.

It checks the three promises of that section: ``athena-spark-emulator run --spark -- dbt
build`` writes the owner account's rows; the doctor run inside ``run`` is all PASS; the
page's pytest example passes. One Spark start per process that needs one (the ``run
--spark`` and the pytest example).

Set ``E2E_TRANSCRIPT=<file>`` to keep the commands and their output.

The page's install line is run as written (with the clone's path for the package name),
plus pytest for the pytest example.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

from tests.conftest import REPO_ROOT

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.spark,
    pytest.mark.dbt,
]

PAGE = REPO_ROOT / "docs" / "testing-on-the-emulator.md"
SECTION = "# Test your own project on the emulator"
INSTALL_EXTRA = ["pytest"]  # the page's pytest example needs it in the same venv


def page_section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return text[start:end]


def code_blocks(section: str) -> List[tuple]:
    """(language, body) of every fenced block, in order."""
    return re.findall(r"```(\w*)\n(.*?)```", section, re.S)


def project_files(section: str) -> Dict[str, str]:
    """Blocks whose first line is a comment naming a file: ``# models/x.py``."""
    files = {}
    for _, body in code_blocks(section):
        first, _, rest = body.partition("\n")
        match = re.fullmatch(r"# ([\w./-]+\.(?:yml|py))", first.strip())
        if match:
            files[match.group(1)] = rest
    return files


def commands(section: str, after: str) -> List[str]:
    """The command lines of the first bash block after the text ``after`` (prose, or the
    first line of a block)."""
    blocks = code_blocks(section)
    at = section.index(after)
    starts = [section.index(f"```{lang}\n{body}```") for lang, body in blocks]
    body = next(b for (lang, b), start in zip(blocks, starts) if lang == "bash" and start > at)
    lines = [line.split("  #", 1)[0].strip() for line in body.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


class Shell:
    """Runs commands like a user's shell: the venv's bin first on PATH, a clean environment."""

    def __init__(self, venv: Path, cwd: Path, transcript: List[str]) -> None:
        self.cwd = cwd
        self.transcript = transcript
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DBT_"))}
        for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTEST_ADDOPTS"):
            keep.pop(name, None)
        keep["PATH"] = f"{venv / 'bin'}{os.pathsep}{keep.get('PATH', '')}"
        keep["VIRTUAL_ENV"] = str(venv)
        keep["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
        keep["DBT_USE_COLORS"] = "false"
        self.env = keep

    def __call__(self, command: str, timeout: int = 1200) -> subprocess.CompletedProcess:
        started = time.monotonic()
        done = subprocess.run(
            command,
            shell=True,
            cwd=self.cwd,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        self.transcript.append(
            f"$ {command}\n{done.stdout}{done.stderr}"
            f"[exit {done.returncode}, {time.monotonic() - started:.0f}s]\n"
        )
        return done


def test_docs_test_your_own_project_on_the_emulator(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    section = page_section()
    files = project_files(section)
    assert {"dbt_project.yml", "packages.yml", "profiles.yml", "seed.yml"} <= set(files)
    assert {"models/sources.yml", "models/partner_orders.py", "tests/test_partner_orders.py"} <= (
        set(files)
    )
    root = tmp_path_factory.mktemp("outside-the-repo")
    assert REPO_ROOT not in root.parents
    transcript: List[str] = []
    try:
        # 1. a new venv and the page's install line, with the clone's path
        venv = root / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        shell = Shell(venv, root, transcript)
        [install] = [
            line
            for line in code_blocks(section)[0][1].splitlines()
            if line.startswith("pip install")
        ]
        install = install.split("  #", 1)[0].strip()
        assert install.endswith('"dbt-athena-cross-account[emulator]"'), install
        line = install.replace("dbt-athena-cross-account", str(REPO_ROOT))
        line = line.replace("pip install", "python -m pip install -q", 1)
        line += " " + " ".join(f'"{spec}"' for spec in INSTALL_EXTRA)
        done = shell(line, timeout=2400)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

        # 2. the project, exactly as shown (packages.yml's path made to point at the clone)
        project = root / "shop"
        for name, text in files.items():
            path = project / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.replace("../dbt-athena-cross-account", str(REPO_ROOT)))
        shell.cwd = project
        assert shell("athena-spark-emulator profile shop").stdout == files["profiles.yml"]

        # 3. the commands, as shown
        steps = commands(section, "One command starts the emulator")
        assert steps[0] == "dbt deps" and "--spark" in steps[1] and "doctor" in steps[2], steps
        results = [shell(step) for step in steps]
        for step, done in zip(steps, results):
            assert done.returncode == 0, f"{step}\n{done.stdout[-4000:]}{done.stderr[-3000:]}"
        build, doctor = results[1], results[2]
        assert "athena-spark-emulator: starting local Spark" in build.stderr
        written = sorted(
            (project / "out" / "s3" / "dbt-data" / "analytics").glob("partner_orders/**/*.parquet")
        )
        assert written, build.stdout[-3000:]
        read = shell(
            'python -c "import pyarrow.parquet as pq, sys; '
            "print(sorted(r['order_id'] for p in sys.argv[1:] "
            'for r in pq.read_table(p).to_pylist()))" ' + " ".join(str(p) for p in written)
        )
        assert read.stdout.strip() == "[101, 102]", read.stdout + read.stderr  # the owner's
        summary = re.search(r"^(\d+) PASS, (\d+) WARN, (\d+) FAIL$", doctor.stdout, re.M)
        assert summary and summary.group(2, 3) == ("0", "0"), doctor.stdout[-4000:]
        assert int(summary.group(1)) >= 7 and not re.search(r"^(WARN|FAIL) ", doctor.stdout, re.M)

        # 4. the pytest example
        [pytest_line] = commands(section, "# tests/test_partner_orders.py")
        assert pytest_line == "pytest tests/"
        done = shell(f"{pytest_line} -p no:cacheprovider")
        assert done.returncode == 0 and " 1 passed" in done.stdout, done.stdout[-4000:]
    finally:
        target = os.environ.get("E2E_TRANSCRIPT")
        if target:
            Path(target).write_text("\n".join(transcript))
