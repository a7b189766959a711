"""Every command the doctor prints can be pasted into a shell: values are shell-quoted,
so a name such as ``partner $(touch owned) x`` is one argument and never runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from dbt_athena_cross_account import fixes
from tests.unit.doctor.helpers import only, run

HOSTILE = "partner $(touch owned) x"


def pasted(command: str, tmp_path: Path) -> List[str]:
    """Run ``command`` in bash with a fake ``aws`` that prints its arguments; return them."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "aws"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert not (tmp_path / "owned").exists(), f"pasting ran a command: {command}"
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_fake_aws_sees_an_unquoted_command_split_and_run(tmp_path):
    """The check below can fail: an unquoted name is split, and its $(...) runs."""
    with pytest.raises(AssertionError, match="pasting ran a command"):
        pasted(f"aws athena get-data-catalog --name {HOSTILE}", tmp_path)


def test_create_data_catalog_for_a_hostile_catalog_name(aws, tmp_path):
    _, rows = run(aws, catalogs=(HOSTILE,))
    row = only(rows, "registration", HOSTILE)
    command = row.fix.split("register the owner's Glue catalog: ", 1)[1]
    assert pasted(command, tmp_path) == [
        "athena",
        "create-data-catalog",
        "--region",
        "eu-west-1",
        "--name",
        HOSTILE,
        "--type",
        "GLUE",
        "--parameters",
        "catalog-id=<12-digit owner account id>",
    ]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            fixes.update_data_catalog(HOSTILE, "eu-west-1"),
            ["athena", "update-data-catalog", "--region", "eu-west-1", "--name", HOSTILE],
        ),
        (fixes.update_data_catalog(HOSTILE), ["athena", "update-data-catalog", "--name", HOSTILE]),
        (
            fixes.shell_command("aws", "glue", "get-tables", "--database-name", HOSTILE),
            ["glue", "get-tables", "--database-name", HOSTILE],
        ),
    ],
)
def test_every_fix_command_quotes_its_values(command, expected, tmp_path):
    assert pasted(command, tmp_path)[: len(expected)] == expected
