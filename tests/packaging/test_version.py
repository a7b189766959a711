"""One version for the plugin and the dbt package: written once as the plugin's
``__version__``, read by hatch for the wheel, and repeated (checked here) in
``dbt_project.yml``, the newest CHANGELOG heading and the README's install lines."""

from __future__ import annotations

import re
from importlib import metadata
from typing import List

import yaml
from packaging.version import Version

from tests.conftest import REPO_ROOT
from tests.packaging.conftest import DIST_NAME, PLUGIN_DIR, source_version

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


def test_the_version_is_a_release_version() -> None:
    version = Version(source_version())
    assert str(version) == source_version()
    assert not version.is_devrelease and version.local is None


def test_pyproject_reads_the_version_from_the_plugin() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    path = REPO_ROOT / pyproject["tool"]["hatch"]["version"]["path"]
    assert path == PLUGIN_DIR / "__init__.py"


def test_the_installed_plugin_has_the_source_version() -> None:
    import dbt_athena_cross_account

    assert dbt_athena_cross_account.__version__ == metadata.version(DIST_NAME) == source_version()


def test_dbt_project_version_is_the_plugin_version() -> None:
    project = yaml.safe_load((REPO_ROOT / "dbt_project.yml").read_text())
    assert str(project["version"]) == source_version()


def test_newest_changelog_heading_is_the_plugin_version() -> None:
    headings = re.findall(r"^## \[?(\d[^\]\s]*)", (REPO_ROOT / "CHANGELOG.md").read_text(), re.M)
    assert headings, "CHANGELOG.md has no '## <version>' heading"
    assert headings[0] == source_version()


def readme_revisions() -> List[str]:
    text = (REPO_ROOT / "README.md").read_text()
    return re.findall(r"(?:@|revision: )v(\d+\.\d+\.\d+(?:[a-z]+\d+)?)", text)


def test_readme_install_lines_name_the_plugin_version() -> None:
    found = readme_revisions()
    # the pip line from git and the packages.yml revision, at least
    assert len(found) >= 2, found
    assert set(found) == {source_version()}, found
