"""Every relative link in the user-facing Markdown resolves: to a file of this repository,
and, with a ``#fragment``, to a heading of that file (GitHub's anchor for it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Set, Tuple

import pytest

from tests.conftest import REPO_ROOT

DOCS = sorted(
    [
        REPO_ROOT / "README.md",
        REPO_ROOT / "CONTRIBUTING.md",
        REPO_ROOT / "bench" / "README.md",
        *(REPO_ROOT / "docs").glob("*.md"),
    ]
)
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_INLINE_CODE = re.compile(r"``.+?``|`[^`\n]+`")


def links(path: Path) -> List[str]:
    """The link targets of ``path``, outside fenced and inline code."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    # a link's text may be inline code ([`x.md`](x.md)): keep it, drop code elsewhere
    text = re.sub(r"\[(``.+?``|`[^`\n]+`)\]", "[code]", text)
    return _LINK.findall(_INLINE_CODE.sub("", text))


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> Set[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    return {anchor(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def relative_links() -> List[Tuple[Path, str]]:
    return [
        (doc, target)
        for doc in DOCS
        for target in links(doc)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # https:, mailto:
    ]


def test_the_docs_have_relative_links() -> None:
    """The extraction finds links (so the test below cannot pass empty), in every file."""
    assert {doc for doc, _ in relative_links()} == set(DOCS)
    assert anchor("Installing dbt-core 1.12") == "installing-dbt-core-112"
    assert anchor("Preflight: `dbt run-operation cross_account_doctor`") == (
        "preflight-dbt-run-operation-cross_account_doctor"
    )
    assert links(REPO_ROOT / "README.md").count("docs/iam.md") >= 1


@pytest.mark.parametrize(
    "doc,target",
    relative_links(),
    ids=[f"{d.relative_to(REPO_ROOT)}->{t}" for d, t in relative_links()],
)
def test_relative_link_resolves(doc: Path, target: str) -> None:
    file_part, _, fragment = target.partition("#")
    resolved = (doc.parent / file_part).resolve() if file_part else doc
    assert resolved.exists(), f"{doc.relative_to(REPO_ROOT)}: {target} -> no file {resolved}"
    assert REPO_ROOT in resolved.parents or resolved == REPO_ROOT, target
    if fragment:
        assert resolved.suffix == ".md", f"{target}: an anchor into a file that is not Markdown"
        assert fragment in anchors(resolved), (
            f"{doc.relative_to(REPO_ROOT)}: {target}: no heading with anchor {fragment!r} in "
            f"{resolved.relative_to(REPO_ROOT)} (has {sorted(anchors(resolved))})"
        )
