"""tests/forked_dbt.py, the warm process the suites fork `dbt` from, behaves as the console
script does in a new interpreter: the same output and exit status, the environment and
working directory it is given and nothing else, and nothing carried from one invocation
to the next."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict

import pytest

from tests import forked_dbt
from tests.stack import dbt_cli

pytestmark = pytest.mark.dbt


def without_clock(result) -> tuple:
    return tuple(re.sub(r"\d\d:\d\d:\d\d(\.\d+)?", "T", str(part)) for part in result)


def both_ways(
    monkeypatch: pytest.MonkeyPatch, args, project: Path, env: Dict[str, str]
) -> Dict[str, object]:
    done = {}
    for fork in ("0", "1"):
        monkeypatch.setenv("DBT_CLI_FORK", fork)
        result = dbt_cli(args, project, project, env)
        done[fork] = (result.returncode, result.stdout, result.stderr)
    return done


def test_the_output_is_the_console_scripts(tmp_path, monkeypatch):
    done = both_ways(monkeypatch, ["debug", "--config-dir"], tmp_path, {})
    assert done["1"][0] == 0, done
    assert without_clock(done["0"]) == without_clock(done["1"])
    assert f"open {tmp_path}" in str(done["1"][1])


def test_a_missing_project_fails_alike(tmp_path, monkeypatch):
    """The exit status and the message of a failing invocation come through unchanged."""
    missing = tmp_path / "no-such-project"
    missing.mkdir()
    done = both_ways(monkeypatch, ["parse"], missing, {})
    assert done["0"][0] == done["1"][0] == 2, done
    assert without_clock(done["0"]) == without_clock(done["1"])
    assert "dbt_project.yml" in str(done["1"][1]) + str(done["1"][2])


def test_each_child_gets_the_env_it_is_given_and_nothing_from_the_last(tmp_path, monkeypatch):
    """DBT_LOG_FORMAT=json in one invocation's env makes its output JSON; the next one,
    without it, prints plain lines again."""
    monkeypatch.setenv("DBT_CLI_FORK", "1")
    outputs = []
    for env in ({"DBT_LOG_FORMAT": "json"}, {}):
        result = dbt_cli(["debug", "--config-dir"], tmp_path, tmp_path, env)
        assert result.returncode == 0, result.stdout + result.stderr
        outputs.append(result.stdout.lstrip()[:1])
    assert outputs[0] == "{" and outputs[1] != "{", outputs


def test_the_warm_process_never_imports_the_plugin():
    """dbt's plugin discovery must find and import dbt_athena_cross_account in each child, as
    in a user's `dbt`; preloading it would hide a discovery failure."""
    assert not any(name.startswith("dbt_athena_cross_account") for name in forked_dbt.PRELOAD)
    assert "dbt.cli.main" in forked_dbt.PRELOAD


def test_botocore_sessions_share_one_loader_per_search_path(tmp_path, monkeypatch):
    """share_botocore_loader (the warm server's and this process's): every botocore session
    gets the same data loader for the same search path and its own for another
    (AWS_DATA_PATH); calling it again wraps nothing twice."""
    import botocore.session

    forked_dbt.share_botocore_loader()
    create_loader = botocore.session.create_loader
    forked_dbt.share_botocore_loader()
    assert botocore.session.create_loader is create_loader

    def loader() -> object:
        return botocore.session.get_session().get_component("data_loader")

    first, second = loader(), loader()
    assert first is second
    monkeypatch.setenv("AWS_DATA_PATH", str(tmp_path))
    other = loader()
    assert other is not first and str(tmp_path) in other.search_paths
    client = botocore.session.get_session().create_client(
        "sts", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    assert client.meta.service_model.service_name == "sts"
