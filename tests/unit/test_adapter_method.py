"""The method the plugin registers on dbt-athena's real AthenaAdapter, called the way Jinja
calls it, with the dbt connection's boto3 session pointed at moto's HTTP server."""

from __future__ import annotations

import multiprocessing
import threading
from argparse import Namespace
from pathlib import Path

import pytest
import yaml
from dbt_common.exceptions import CompilationError

import dbt_athena_cross_account  # noqa: F401  (registers the methods, as dbt's plugin discovery does)
from tests.conftest import run_in_threads
from tests.stack import athena_target, ensure_data_catalog


@pytest.fixture
def make_adapter(emulator, tmp_path: Path):
    """Real AthenaAdapters from a real dbt project + profile (as dbt-athena's unit tests do)."""
    from dbt.adapters.athena import AthenaAdapter
    from dbt.config.runtime import RuntimeConfig
    from dbt.flags import get_flags, set_from_args

    def build(threads: int = 1) -> AthenaAdapter:
        (tmp_path / "dbt_project.yml").write_text(
            "name: unit\nversion: '1.0'\nconfig-version: 2\nprofile: unit\n"
        )
        (tmp_path / "profiles.yml").write_text(
            yaml.safe_dump(
                {"unit": {"target": "t", "outputs": {"t": athena_target(threads=threads)}}}
            )
        )
        set_from_args(
            Namespace(
                project_dir=str(tmp_path),
                profiles_dir=str(tmp_path),
                target=None,
                profile=None,
                threads=None,
                vars={},
            ),
            None,
        )
        config = RuntimeConfig.from_args(get_flags())
        return AthenaAdapter(config, multiprocessing.get_context("spawn"))

    emulator.reset_counters()
    return build


def _registered(emulator, *catalogs):
    for name, kind, params in catalogs:
        ensure_data_catalog(emulator, name, kind, params)
    emulator.reset_counters()


def test_get_spark_cross_account_catalog_map_only_default(make_adapter, emulator, monkeypatch):
    """Only awsdatacatalog registered -> empty map (the seed's regression guard).

    moto leaves AwsDataCatalog out of ListDataCatalogs, so the emulator's listing is
    replaced with what real AWS returns for an account with nothing else registered."""
    from moto.athena.models import AthenaBackend

    monkeypatch.setattr(
        AthenaBackend,
        "list_data_catalogs",
        lambda self: [{"CatalogName": "AwsDataCatalog", "Type": "GLUE"}],
    )
    adapter = make_adapter()
    with adapter.connection_named("unit"):
        assert adapter.get_spark_cross_account_catalog_map() == {}
    assert emulator.calls["ListDataCatalogs"] == 1
    assert emulator.calls["GetDataCatalog"] == 0


def test_get_spark_cross_account_catalog_map_with_cross_account_glue(make_adapter, emulator):
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    adapter = make_adapter()
    with adapter.connection_named("unit"):
        result = adapter.get_spark_cross_account_catalog_map()
    assert result["partner_catalog"] == "999999999999"
    assert all(len(v) == 12 and v.isdigit() for v in result.values())


def test_get_spark_cross_account_catalog_map_excludes_non_glue(make_adapter, emulator):
    _registered(
        emulator,
        ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}),
        (
            "lambda_catalog",
            "LAMBDA",
            {"function": "arn:aws:lambda:eu-west-1:123456789012:function:f"},
        ),
        (
            "hive_catalog",
            "HIVE",
            {"metadata-function": "arn:aws:lambda:eu-west-1:123456789012:function:h"},
        ),
    )
    adapter = make_adapter()
    with adapter.connection_named("unit"):
        result = adapter.get_spark_cross_account_catalog_map()
    assert "partner_catalog" in result
    assert "lambda_catalog" not in result and "hive_catalog" not in result
    # a GetDataCatalog only for GLUE catalogs: non-GLUE are skipped from the listing
    glue_listed = [
        c
        for c in emulator.client("athena").list_data_catalogs()["DataCatalogsSummary"]
        if c["Type"] == "GLUE" and c["CatalogName"].lower() != "awsdatacatalog"
    ]
    assert emulator.calls["GetDataCatalog"] == len(glue_listed)


def test_catalog_names_mode_one_get_no_list(make_adapter, emulator):
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    adapter = make_adapter()
    with adapter.connection_named("unit"):
        assert adapter.get_spark_cross_account_catalog_map(["partner_catalog"]) == {
            "partner_catalog": "999999999999"
        }
        assert adapter.get_spark_cross_account_catalog_map(["partner_catalog"]) == {
            "partner_catalog": "999999999999"
        }
        assert adapter.get_spark_cross_account_catalog_map("partner_catalog") == {
            "partner_catalog": "999999999999"
        }
    assert emulator.calls["GetDataCatalog"] == 1
    assert emulator.calls["ListDataCatalogs"] == 0


def test_cache_is_per_adapter_so_per_run(make_adapter, emulator):
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    for _ in range(2):
        adapter = make_adapter()
        with adapter.connection_named("unit"):
            adapter.get_spark_cross_account_catalog_map(["partner_catalog"])
    assert emulator.calls["GetDataCatalog"] == 2


def test_eight_threads_fifty_models_one_call(make_adapter, emulator):
    """threads: 8, 50 models referencing one catalog -> exactly one GetDataCatalog."""
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    emulator.latency["GetDataCatalog"] = 0.2
    adapter = make_adapter(threads=8)
    results, errors = [], []
    gate = threading.Semaphore(8)

    def model(i: int) -> None:
        with gate:
            try:
                with adapter.connection_named(f"model.unit.m{i}"):
                    results.append(adapter.get_spark_cross_account_catalog_map(["partner_catalog"]))
            except Exception as exc:  # pragma: no cover - reported below
                errors.append(exc)

    try:
        run_in_threads(model, 50)
    finally:
        emulator.latency.clear()
    assert not errors
    assert results == [{"partner_catalog": "999999999999"}] * 50
    assert emulator.calls["GetDataCatalog"] == 1


def test_malformed_catalog_id_is_a_compilation_error(make_adapter, emulator):
    _registered(
        emulator, ("s3tables_like", "GLUE", {"catalog-id": "111122223333:s3tablescatalog/bucket"})
    )
    adapter = make_adapter()
    with adapter.connection_named("unit"), pytest.raises(CompilationError) as info:
        adapter.get_spark_cross_account_catalog_map(["s3tables_like"])
    assert "s3tables_like" in str(info.value) and "111122223333:s3tablescatalog/bucket" in str(
        info.value
    )


def test_access_denied_is_a_compilation_error_naming_the_action(make_adapter, emulator):
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    emulator.inject_error(
        "GetDataCatalog", "AccessDeniedException", "not authorized to perform athena:GetDataCatalog"
    )
    adapter = make_adapter()
    with adapter.connection_named("unit"), pytest.raises(CompilationError) as info:
        adapter.get_spark_cross_account_catalog_map(["partner_catalog"])
    assert "athena:GetDataCatalog" in str(info.value) and "partner_catalog" in str(info.value)


def test_profile_retries_are_used_for_throttling(make_adapter, emulator):
    """The profile sets num_boto3_retries: 3, so two throttles are absorbed."""
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    emulator.inject_error("GetDataCatalog", "ThrottlingException", "Rate exceeded", times=2)
    adapter = make_adapter()
    with adapter.connection_named("unit"):
        assert adapter.get_spark_cross_account_catalog_map(["partner_catalog"]) == {
            "partner_catalog": "999999999999"
        }
    assert emulator.calls["GetDataCatalog"] == 3


def test_methods_are_available_to_jinja_and_stubbed_at_parse_time():
    from dbt.adapters.athena import AthenaAdapter

    for name in (
        "get_spark_cross_account_catalog_map",
        "get_spark_cross_account_catalog_info",
        "get_spark_cross_account_versions",
    ):
        assert name in AthenaAdapter._available_
        assert AthenaAdapter._parse_replacements_[name]() == {}


# ---- the real client path: the dbt connection, from pool threads --------------------------
def test_two_catalogs_on_a_fresh_adapter_resolve_from_pool_threads(make_adapter, emulator):
    """The first lookup of a run names two catalogs, so they are resolved in a thread pool
    whose threads hold no dbt connection. The client must come from the caller's connection."""
    _registered(
        emulator,
        ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}),
        ("supplier_catalog", "GLUE", {"catalog-id": "777777777777"}),
    )
    adapter = make_adapter(threads=8)
    with adapter.connection_named("model.unit.two_partners"):
        assert adapter.get_spark_cross_account_catalog_map(
            ["partner_catalog", "supplier_catalog"]
        ) == {"partner_catalog": "999999999999", "supplier_catalog": "777777777777"}
    assert emulator.calls["GetDataCatalog"] == 2


def test_a_failed_lookup_is_not_cached_for_later_models(make_adapter, emulator):
    """One model's AccessDenied must not become every later model's error in the same run."""
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    emulator.inject_error("GetDataCatalog", "AccessDeniedException", "denied once")
    adapter = make_adapter()
    with adapter.connection_named("model.unit.first"), pytest.raises(CompilationError):
        adapter.get_spark_cross_account_catalog_map(["partner_catalog"])
    with adapter.connection_named("model.unit.second"):
        assert adapter.get_spark_cross_account_catalog_map(["partner_catalog"]) == {
            "partner_catalog": "999999999999"
        }
    assert emulator.calls["GetDataCatalog"] == 2


@pytest.mark.parametrize("names", [["partner_catalog"], ["partner_catalog", "supplier_catalog"]])
def test_expired_credentials_renew_the_client_once(make_adapter, emulator, names):
    """A run that outlives its assume_role credentials gets ExpiredToken: the resolver
    builds a new client from the calling thread's dbt connection and retries once."""
    _registered(
        emulator,
        ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}),
        ("supplier_catalog", "GLUE", {"catalog-id": "777777777777"}),
    )
    adapter = make_adapter()
    with adapter.connection_named("model.unit.early"):
        adapter.get_spark_cross_account_catalog_map(["awsdatacatalog"])  # no call
    emulator.inject_error("GetDataCatalog", "ExpiredTokenException", "The security token expired")
    with adapter.connection_named("model.unit.late"):
        result = adapter.get_spark_cross_account_catalog_map(names)
    assert set(result) == set(names)
    assert emulator.calls["GetDataCatalog"] == len(names) + 1


def test_credentials_that_stay_expired_give_an_error_with_the_fix(make_adapter, emulator):
    _registered(emulator, ("partner_catalog", "GLUE", {"catalog-id": "999999999999"}))
    emulator.inject_error(
        "GetDataCatalog", "ExpiredTokenException", "The security token expired", times=2
    )
    adapter = make_adapter()
    with adapter.connection_named("model.unit.m"), pytest.raises(CompilationError) as info:
        adapter.get_spark_cross_account_catalog_map(["partner_catalog"])
    message = str(info.value)
    assert "partner_catalog" in message and "ExpiredTokenException" in message
    assert "credentials" in message and "assume_role" in message
    assert emulator.calls["GetDataCatalog"] == 2
