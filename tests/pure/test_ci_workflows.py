"""The GitHub workflows say what CONTRIBUTING.md says they do. `make lint` validates them
against GitHub's workflow schema and runs zizmor; this checks what neither knows: that the
CI matrix runs the legs of .ci/legs with .ci/leg (the legs stay defined once), that the
release builds once, checks the versions with scripts/release_version.py and publishes by
trusted publishing with no secret, and that each job holds only the permissions it needs."""

from __future__ import annotations

import re
from typing import Any, Dict, List

import pytest
import yaml

from tests.conftest import REPO_ROOT

WORKFLOWS = REPO_ROOT / ".github" / "workflows"
CI_LEGS = (REPO_ROOT / ".ci" / "legs").read_text(encoding="utf-8")
_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")


def workflow(name: str) -> Dict[str, Any]:
    doc = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    doc["on"] = doc.pop(True, doc.get("on"))  # YAML 1.1 reads the key `on` as True
    return doc


CI = workflow("ci.yml")
RELEASE = workflow("release.yml")


def steps(job: Dict[str, Any]) -> List[Dict[str, Any]]:
    return list(job.get("steps") or [])


def runs(job: Dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in steps(job))


@pytest.mark.parametrize("name", ["ci.yml", "release.yml"])
def test_every_action_is_pinned_by_commit_sha_with_its_release_named(name: str) -> None:
    text = (WORKFLOWS / name).read_text(encoding="utf-8")
    uses = re.findall(r"^\s*(?:- )?uses:\s*(\S+)(.*)$", text, re.M)
    assert uses
    for ref, comment in uses:
        assert _PINNED.match(ref), f"{name}: {ref} is not pinned by a full commit SHA"
        assert re.match(r"\s+# v\d+\.\d+\.\d+$", comment), f"{name}: {ref} names no release"


def test_one_action_one_commit_across_the_workflows() -> None:
    text = "".join((WORKFLOWS / n).read_text(encoding="utf-8") for n in ("ci.yml", "release.yml"))
    pins: Dict[str, set] = {}
    for action, sha in re.findall(r"uses:\s*([\w./-]+)@([0-9a-f]{40})", text):
        pins.setdefault(action, set()).add(sha)
    assert {a: s for a, s in pins.items() if len(s) > 1} == {}


@pytest.mark.parametrize("doc", [CI, RELEASE], ids=["ci", "release"])
def test_least_privilege_and_one_run_at_a_time(doc: Dict[str, Any]) -> None:
    assert doc["permissions"] == {}, "no permission by default; each job asks for its own"
    assert all("permissions" in job for job in doc["jobs"].values())
    assert "group" in doc["concurrency"]


def test_ci_runs_each_leg_of_ci_legs_with_ci_leg_on_pull_requests_and_main() -> None:
    assert set(CI["on"]) == {"pull_request", "push"}
    assert CI["on"]["push"] == {"branches": ["main"]}
    legs = re.findall(r'^\s+"(\w+)\|\.venv-', CI_LEGS, re.M)
    test = CI["jobs"]["test"]
    assert sorted(test["strategy"]["matrix"]["leg"]) == sorted(legs)
    assert test["permissions"] == {"contents": "read"}
    step = next(s for s in steps(test) if ".ci/leg" in str(s.get("run", "")))
    assert step["env"]["LEG"] == "${{ matrix.leg }}"
    assert '.ci/leg "$LEG"' in step["run"]
    java = next(s for s in steps(test) if "actions/setup-java@" in s.get("uses", ""))
    assert str(java["with"]["java-version"]) == "17"
    summary = CI["jobs"]["summary"]
    assert summary["needs"] == "test" and ".ci/summary" in runs(summary)


def test_release_builds_once_checks_versions_and_publishes_without_a_secret() -> None:
    assert RELEASE["on"] == {"push": {"tags": ["v*"]}}
    jobs = RELEASE["jobs"]
    builders = [name for name, job in jobs.items() if "python -m build" in runs(job)]
    assert builders == ["build"]
    build = runs(jobs["build"])
    assert "twine check --strict dist/*" in build
    assert 'scripts/release_version.py --tag "$TAG" --dist dist/ --notes' in build
    assert "secrets." not in (WORKFLOWS / "release.yml").read_text(encoding="utf-8")

    pypi = jobs["pypi"]
    assert pypi["environment"]["name"] == "pypi"
    assert pypi["permissions"] == {"id-token": "write"}
    (publish,) = [s for s in steps(pypi) if "pypa/gh-action-pypi-publish@" in s.get("uses", "")]
    assert not {"password", "user"} & set(publish.get("with") or {})

    release = jobs["github-release"]
    assert release["permissions"] == {"contents": "write"}
    assert set(release["needs"]) == {"build", "pypi"}
    assert "gh release create" in runs(release) and "--notes-file" in runs(release)
    writers = sorted(n for n, j in jobs.items() if "write" in (j["permissions"] or {}).values())
    assert writers == ["github-release", "pypi"]
