#!/usr/bin/env python3
"""Check that every place naming the version agrees, and print a version's release notes.

The version is written once, as ``__version__`` in plugin/dbt_athena_cross_account/__init__.py
(the wheel's version comes from there), and repeated in dbt_project.yml (dbt Hub), the newest
CHANGELOG.md heading and the README's install lines. Standard library only, and it reads the
files rather than importing anything, so it runs on a bare checkout of a tag.

    python scripts/release_version.py                      # the files agree (make lint)
    python scripts/release_version.py --dist build/dist-x  # ... and the built wheel and sdist
    python scripts/release_version.py --tag v0.1.0 --dist dist --notes notes.md
        # the release workflow: also the tag, a dated (released) CHANGELOG heading, and that
        # version's CHANGELOG section written to notes.md for the GitHub release

Exits 1 naming each disagreement and the file to fix.
"""

from __future__ import annotations

import argparse
import re
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import List, Optional, Tuple

REPO_ROOT = Path(__file__).resolve().parents[1]
INIT = Path("plugin/dbt_athena_cross_account/__init__.py")
DIST_NAME = "dbt_athena_cross_account"  # the wheel's and the sdist's file name prefix

_HEADING = re.compile(r"^## \[?(\d[^\]\s]*)\]?(.*)$", re.M)


def source_version(root: Path) -> str:
    """``__version__`` of the plugin, read from its source."""
    text = (root / INIT).read_text(encoding="utf-8")
    found = re.search(r"^__version__ = [\"']([^\"']+)[\"']", text, re.M)
    if not found:
        raise SystemExit(f'{INIT}: no `__version__ = "..."` line')
    return found.group(1)


def dbt_project_version(root: Path) -> Optional[str]:
    text = (root / "dbt_project.yml").read_text(encoding="utf-8")
    found = re.search(r"^version:\s*[\"']?([^\"'\s#]+)", text, re.M)
    return found.group(1) if found else None


def newest_changelog_heading(root: Path) -> Tuple[Optional[str], str]:
    """(version, the rest of the heading line) of CHANGELOG.md's first ``## <version>``."""
    found = _HEADING.search((root / "CHANGELOG.md").read_text(encoding="utf-8"))
    return (found.group(1), found.group(2).strip()) if found else (None, "")


def changelog_section(text: str, version: str) -> Optional[str]:
    """The body of ``## <version> ...`` in a CHANGELOG, up to the next ``## `` heading."""
    headings = list(_HEADING.finditer(text))
    for i, heading in enumerate(headings):
        if heading.group(1) == version:
            end = headings[i + 1].start() if i + 1 < len(headings) else len(text)
            return text[heading.end() : end].strip() + "\n"
    return None


def readme_versions(root: Path) -> List[str]:
    """The versions the README's install lines name (``@v<version>``, ``revision: v<version>``,
    ``dbt-athena-cross-account==<version>``)."""
    text = (root / "README.md").read_text(encoding="utf-8")
    number = r"(\d+\.\d+\.\d+(?:[a-z]+\d+)?)"
    return [
        a or b
        for a, b in re.findall(
            rf"(?:@|revision: )v{number}|dbt-athena-cross-account=={number}", text
        )
    ]


def dist_versions(dist: Path) -> List[Tuple[str, Optional[str]]]:
    """[(file name, the version its metadata declares)] of the wheels and sdists in ``dist``."""
    found: List[Tuple[str, Optional[str]]] = []
    for wheel in sorted(dist.glob(f"{DIST_NAME}-*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            names = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
            text = archive.read(names[0]).decode() if names else ""
        found.append((wheel.name, Parser().parsestr(text).get("Version")))
    for sdist in sorted(dist.glob(f"{DIST_NAME}-*.tar.gz")):
        with tarfile.open(sdist) as archive:
            member = next(
                (
                    m
                    for m in archive.getmembers()
                    if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
                ),
                None,
            )
            handle = archive.extractfile(member) if member else None
            text = handle.read().decode() if handle else ""
        found.append((sdist.name, Parser().parsestr(text).get("Version")))
    return found


def file_problems(root: Path, version: str) -> List[str]:
    """Where dbt_project.yml, CHANGELOG.md or README.md name another version."""
    found = []
    project = dbt_project_version(root)
    if project != version:
        found.append(f"dbt_project.yml: version is {project!r}, not {version!r} ({INIT})")
    heading, _ = newest_changelog_heading(root)
    if heading != version:
        found.append(f"CHANGELOG.md: the newest heading is {heading!r}, not {version!r} ({INIT})")
    readme = readme_versions(root)
    if not readme or set(readme) != {version}:
        found.append(f"README.md: the install lines name v{sorted(set(readme))}, not v{version}")
    return found


def tag_problems(root: Path, version: str, tag: str) -> List[str]:
    """Whether ``tag`` is v<version> and the CHANGELOG heading says it is released."""
    found = []
    if tag != f"v{version}":
        found.append(f"the tag is {tag!r}, but {INIT} says {version!r}: tag v{version}")
    _, rest = newest_changelog_heading(root)
    if "unreleased" in rest.lower():
        found.append(
            f"CHANGELOG.md: the heading '## {version} {rest}' still says unreleased: "
            f"date it ('## {version} (YYYY-MM-DD)') before tagging"
        )
    return found


def dist_problems(dist: Path, version: str) -> List[str]:
    """Whether ``dist`` holds one wheel and one sdist, both of ``version``."""
    found = []
    built = dist_versions(dist)
    for suffix, kind in ((".whl", "wheel"), (".tar.gz", "sdist")):
        if not any(name.endswith(suffix) for name, _ in built):
            found.append(f"{dist}: no {DIST_NAME} {kind}")
    for name, declared in built:
        if declared != version or f"-{version}" not in name:
            found.append(f"{dist}/{name}: version {declared!r}, not {version!r}")
    return found


def problems(root: Path, tag: Optional[str] = None, dist: Optional[Path] = None) -> List[str]:
    """Every disagreement with the plugin's ``__version__``, each naming what to fix."""
    version = source_version(root)
    found = file_problems(root, version)
    if tag is not None:
        found += tag_problems(root, version, tag)
    if dist is not None:
        found += dist_problems(dist, version)
    return found


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="the repository")
    parser.add_argument("--tag", help="the release tag, v<version>")
    parser.add_argument("--dist", type=Path, help="the directory holding the built wheel and sdist")
    parser.add_argument("--notes", type=Path, help="write the version's CHANGELOG section here")
    args = parser.parse_args(argv)
    found = problems(args.root, args.tag, args.dist)
    version = source_version(args.root)
    if args.notes is not None:
        section = changelog_section(
            (args.root / "CHANGELOG.md").read_text(encoding="utf-8"), version
        )
        if not section or not section.strip():
            found.append(f"CHANGELOG.md: no entries under '## {version}' for the release notes")
        else:
            args.notes.write_text(section, encoding="utf-8")
    for problem in found:
        print(f"version mismatch: {problem}", file=sys.stderr)
    if not found:
        print(
            f"version {version}: the plugin, dbt_project.yml, CHANGELOG.md and README.md agree"
            + (f", and so does the tag {args.tag}" if args.tag else "")
            + (f", and so do the files in {args.dist}" if args.dist else "")
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
