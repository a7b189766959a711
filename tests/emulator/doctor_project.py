"""The dbt project files the doctor's emulator tests write: a project whose Python models
opt in, dispatching ``athena`` to this package, with the package installed from the clone;
and how those tests read one row of the doctor's report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict

import yaml

from tests.conftest import REPO_ROOT


def write_project_files(project: Path, name: str, models: Dict[str, Any]) -> None:
    """``dbt_project.yml`` (``models`` is the project's ``models:`` config) and
    ``packages.yml`` in ``project``."""
    config = {
        "name": name,
        "version": "1.0.0",
        "config-version": 2,
        "profile": name,
        "dispatch": [
            {
                "macro_namespace": "athena",
                "search_order": [name, "dbt_athena_cross_account", "dbt"],
            }
        ],
        "models": {name: models},
    }
    (project / "dbt_project.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (project / "packages.yml").write_text(yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]}))


PLANTED = {  # models under models/planted/ are enabled with --vars '{planted: true}'
    "+spark_cross_account_catalog": True,
    "planted": {"+enabled": "{{ var('planted', false) }}"},
}


def write_planted_project(
    root: Path, name: str, sources: Dict[str, Any], models: Dict[str, str]
) -> Path:
    """``root/name``: a project whose models opt in (those under ``planted/`` only with
    ``--vars '{planted: true}'``), with ``sources`` (a sources.yml document) and ``models``
    (path under models/ -> code). The caller writes profiles.yml."""
    project = root / name
    (project / "models" / "planted").mkdir(parents=True)
    write_project_files(project, name, PLANTED)
    (project / "models" / "sources.yml").write_text(yaml.safe_dump(sources, sort_keys=False))
    for path, code in models.items():
        (project / "models" / path).write_text(code)
    return project


def line(out: str, status: str, check: str, subject: str) -> str:
    """The reason of one report row; fails the test naming the whole report if absent."""
    match = re.search(rf"^{status}\s+{check}\s+{re.escape(subject)}\s+(.*)$", out, re.M)
    assert match, f"no {status} {check} {subject} row in:\n{out}"
    return match.group(1)


def fix_of(out: str, check: str, subject: str) -> str:
    """The indented fix lines that follow one row (without the leading ``fix: ``)."""
    lines = out.splitlines()
    start = next(
        i
        for i, text in enumerate(lines)
        if re.match(rf"^\S+\s+{check}\s+{re.escape(subject)}\s", text)
    )
    fix = []
    for text in lines[start + 1 :]:
        if not text.startswith("        "):
            break
        fix.append(text.strip())
    return "\n".join(fix).removeprefix("fix: ")
