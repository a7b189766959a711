"""The dbt project files the doctor's emulator tests write: a project whose Python models
opt in, dispatching ``athena`` to this package, with the package installed from the clone."""

from __future__ import annotations

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
