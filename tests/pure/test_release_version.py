"""scripts/release_version.py, which `make lint` and the release workflow run: the plugin's
``__version__``, dbt_project.yml, the newest CHANGELOG heading, the README's install lines,
the tag and the built wheel and sdist must name one version, or the release stops before
anything is published."""

from __future__ import annotations

import importlib.util
import io
import shutil
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "release_version.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release_version", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


release = _load()
VERSION = release.source_version(REPO_ROOT)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the files that name the version."""
    for name in (str(release.INIT), "dbt_project.yml", "CHANGELOG.md", "README.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / name, tmp_path / name)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _release_heading(root: Path) -> None:
    """Date the newest CHANGELOG heading, as a maintainer does before tagging."""
    changelog = root / "CHANGELOG.md"
    heading = next(line for line in changelog.read_text().splitlines() if line.startswith("## "))
    _edit(changelog, heading, f"## {VERSION} (2026-12-02)")


def _dist(path: Path, version: str, wheel_version: str) -> Path:
    path.mkdir()
    with zipfile.ZipFile(
        path / f"dbt_athena_cross_account-{wheel_version}-py3-none-any.whl", "w"
    ) as whl:
        whl.writestr(
            f"dbt_athena_cross_account-{wheel_version}.dist-info/METADATA",
            f"Metadata-Version: 2.4\nName: dbt-athena-cross-account\nVersion: {wheel_version}\n",
        )
    data = f"Metadata-Version: 2.4\nName: dbt-athena-cross-account\nVersion: {version}\n".encode()
    with tarfile.open(path / f"dbt_athena_cross_account-{version}.tar.gz", "w:gz") as sdist:
        info = tarfile.TarInfo(f"dbt_athena_cross_account-{version}/PKG-INFO")
        info.size = len(data)
        sdist.addfile(info, io.BytesIO(data))
    return path


def test_the_repository_agrees_with_itself() -> None:
    assert release.problems(REPO_ROOT) == []
    assert release.main(["--root", str(REPO_ROOT)]) == 0


def test_each_file_naming_another_version_is_named(root: Path) -> None:
    assert release.problems(root) == []
    _edit(root / "dbt_project.yml", f'version: "{VERSION}"', 'version: "9.9.9"')
    _edit(
        root / "README.md",
        f"dbt-athena-cross-account=={VERSION}",
        "dbt-athena-cross-account==9.9.9",
    )
    found = release.problems(root)
    assert len(found) == 2, found
    assert found[0].startswith("dbt_project.yml: version is '9.9.9'"), found
    assert found[1].startswith("README.md: the install lines name v['0."), found


def test_a_newer_changelog_heading_is_named(root: Path) -> None:
    _edit(root / "CHANGELOG.md", f"## {VERSION}", f"## 9.9.9 (unreleased)\n\n## {VERSION}")
    assert release.problems(root) == [
        f"CHANGELOG.md: the newest heading is '9.9.9', not '{VERSION}' ({release.INIT})"
    ]


def test_the_tag_must_be_v_version_and_the_heading_released(root: Path) -> None:
    _release_heading(root)
    assert release.problems(root, tag=f"v{VERSION}") == []
    assert release.problems(root, tag=VERSION) == [
        f"the tag is '{VERSION}', but {release.INIT} says '{VERSION}': tag v{VERSION}"
    ]
    _edit(root / "CHANGELOG.md", f"## {VERSION} (2026-12-02)", f"## {VERSION} (unreleased)")
    (found,) = release.problems(root, tag=f"v{VERSION}")
    assert "still says unreleased" in found


def test_the_built_wheel_and_sdist_must_have_the_version(root: Path, tmp_path: Path) -> None:
    assert release.problems(root, dist=_dist(tmp_path / "ok", VERSION, VERSION)) == []
    found = release.problems(root, dist=_dist(tmp_path / "bad", VERSION, "9.9.9"))
    assert found == [
        f"{tmp_path / 'bad'}/dbt_athena_cross_account-9.9.9-py3-none-any.whl: "
        f"version '9.9.9', not '{VERSION}'"
    ]
    (tmp_path / "empty").mkdir()
    assert len(release.problems(root, dist=tmp_path / "empty")) == 2


def test_the_release_notes_are_the_version_s_changelog_section(root: Path, tmp_path: Path) -> None:
    changelog = root / "CHANGELOG.md"
    older = "\n## 0.0.1 (2026-01-01)\n\n### Added\n\n- the first one\n"
    changelog.write_text(changelog.read_text() + older, encoding="utf-8")
    notes = tmp_path / "notes.md"
    assert release.main(["--root", str(root), "--notes", str(notes)]) == 0
    written = notes.read_text()
    assert written.startswith("### Added\n"), written[:80]
    assert "the first one" not in written and "## " + VERSION not in written
    assert (
        release.changelog_section(changelog.read_text(), "0.0.1")
        == "### Added\n\n- the first one\n"
    )
    assert release.changelog_section(changelog.read_text(), "9.9.9") is None
