"""The pure resolution logic, without dbt: boto3 clients against moto's real HTTP server
(the session emulator), botocore's Stubber only where moto cannot answer (pagination)."""

from __future__ import annotations

import threading
from typing import List

import boto3
import pytest
from botocore.stub import Stubber

from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.resolver import (
    CatalogResolver,
    classify,
    default_catalog_id,
    is_account_id,
)
from tests.conftest import run_in_threads
from tests.stack import ensure_data_catalog


@pytest.fixture
def athena(emulator):
    ensure_data_catalog(emulator, "partner_catalog", "GLUE", {"catalog-id": "999999999999"})
    ensure_data_catalog(emulator, "second_partner", "GLUE", {"catalog-id": "888888888888"})
    ensure_data_catalog(
        emulator, "s3tables_like", "GLUE", {"catalog-id": "111122223333:s3tablescatalog/bucket"}
    )
    ensure_data_catalog(emulator, "no_id_catalog", "GLUE", {"other": "x"})
    ensure_data_catalog(
        emulator,
        "lambda_catalog",
        "LAMBDA",
        {"function": "arn:aws:lambda:eu-west-1:123456789012:function:f"},
    )
    emulator.reset_counters()
    return emulator.client("athena")


@pytest.mark.parametrize(
    "value, expected",
    [
        ("999999999999", True),
        ("99999999999", False),
        ("9999999999999", False),
        ("99999999999a", False),
        ("111122223333:s3tablescatalog/b", False),
        (None, False),
        (999999999999, False),
        ("९९९९९९९९९९९९", False),
    ],
)
def test_is_account_id(value, expected):
    assert is_account_id(value) is expected


def test_classify_reasons_name_the_catalog():
    assert classify("x", None, default_catalog_id).reason.startswith("'x' is not registered")
    lam = classify("fed", {"Type": "LAMBDA", "Parameters": {}}, default_catalog_id)
    assert lam.account_id is None and "LAMBDA" in lam.reason and not lam.malformed
    bad = classify(
        "s3t",
        {"Type": "GLUE", "Parameters": {"catalog-id": "1:s3tablescatalog/b"}},
        default_catalog_id,
    )
    assert bad.malformed and "'1:s3tablescatalog/b'" in bad.reason and "s3t" in bad.reason
    missing = classify("m", {"Type": "GLUE", "Parameters": {}}, default_catalog_id)
    assert missing.malformed and "catalog-id missing" in missing.reason


def test_names_mode_makes_no_list_call_and_one_get_per_name(athena, emulator):
    resolver = CatalogResolver(lambda: athena)
    assert resolver.catalog_map(["partner_catalog", "PARTNER_CATALOG", "awsdatacatalog"]) == {
        "partner_catalog": "999999999999",
        "PARTNER_CATALOG": "999999999999",
    }
    assert emulator.calls["ListDataCatalogs"] == 0
    assert emulator.calls["GetDataCatalog"] == 1


def test_mixed_case_reference_resolves_lowercase_catalog(athena, emulator):
    resolver = CatalogResolver(lambda: athena)
    assert resolver.catalog_map(["Partner_Catalog"]) == {"Partner_Catalog": "999999999999"}
    assert emulator.calls["GetDataCatalog"] == 1


def test_unregistered_and_lambda_are_left_out_not_errors(athena):
    resolver = CatalogResolver(lambda: athena)
    assert resolver.catalog_map(["lambda_catalog", "never_registered"]) == {}
    assert "LAMBDA" in resolver.explain("lambda_catalog")["reason"]
    assert "not registered" in resolver.explain("never_registered")["reason"]


@pytest.mark.parametrize(
    "name, shown",
    [
        ("s3tables_like", "'111122223333:s3tablescatalog/bucket'"),
        ("no_id_catalog", "catalog-id missing"),
    ],
)
def test_referenced_malformed_catalog_id_is_an_error_naming_catalog_and_value(athena, name, shown):
    with pytest.raises(CrossAccountCatalogError) as info:
        CatalogResolver(lambda: athena).catalog_map([name])
    message = str(info.value)
    assert name in message and shown in message and "update-data-catalog" in message


def test_no_argument_map_skips_malformed_non_glue_and_local(athena):
    logged: List[str] = []
    result = CatalogResolver(lambda: athena, debug=logged.append).catalog_map()
    assert result["partner_catalog"] == "999999999999"
    assert result["second_partner"] == "888888888888"
    assert "s3tables_like" not in result and "no_id_catalog" not in result
    assert "lambda_catalog" not in result
    assert not any(name.lower() == "awsdatacatalog" for name in result)
    assert any("s3tables_like" in line for line in logged)


def test_single_flight_cache_50_threads_one_call(athena, emulator):
    emulator.latency["GetDataCatalog"] = 0.2  # keep the first call in flight while others arrive
    try:
        resolver = CatalogResolver(lambda: athena)
        barrier = threading.Barrier(50)
        results = []

        def worker(_: int) -> None:
            barrier.wait()
            results.append(resolver.catalog_map(["partner_catalog"]))

        run_in_threads(worker, 50)
    finally:
        emulator.latency.clear()
    assert results == [{"partner_catalog": "999999999999"}] * 50
    assert emulator.calls["GetDataCatalog"] == 1


def test_throttling_is_retried_by_botocore_then_succeeds(athena, emulator):
    emulator.inject_error("GetDataCatalog", "ThrottlingException", "Rate exceeded", times=2)
    assert CatalogResolver(lambda: athena).catalog_map(["partner_catalog"]) == {
        "partner_catalog": "999999999999"
    }
    assert emulator.calls["GetDataCatalog"] == 3


def test_throttling_that_outlasts_retries_says_how_to_fix(emulator, athena):
    client = boto3.client(
        "athena",
        region_name="eu-west-1",
        endpoint_url=emulator.endpoint_url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=boto3.session.Config(retries={"max_attempts": 2, "mode": "standard"}),
    )
    # botocore's retries.max_attempts=2 means 2 retries: 3 attempts, all throttled here.
    emulator.inject_error("GetDataCatalog", "ThrottlingException", "Rate exceeded", times=3)
    with pytest.raises(CrossAccountCatalogError) as info:
        CatalogResolver(lambda: client).catalog_map(["partner_catalog"])
    assert emulator.calls["GetDataCatalog"] == 3
    message = str(info.value)
    assert "throttled" in message and "after 3 attempts" in message and "num_retries" in message
    assert "partner_catalog" in message


@pytest.mark.parametrize(
    "action, method, call",
    [
        ("GetDataCatalog", "athena:GetDataCatalog", lambda r: r.catalog_map(["partner_catalog"])),
        ("ListDataCatalogs", "athena:ListDataCatalogs", lambda r: r.catalog_map()),
    ],
)
def test_access_denied_names_the_iam_action_and_the_opt_in(athena, emulator, action, method, call):
    emulator.inject_error(
        action,
        "AccessDeniedException",
        "User: arn:aws:sts::123456789012:assumed-role/dbt/x is not authorized",
    )
    with pytest.raises(CrossAccountCatalogError) as info:
        call(CatalogResolver(lambda: athena))
    message = str(info.value)
    assert f"AccessDenied calling {method}" in message
    assert "spark_cross_account_catalog: true" in message
    assert emulator.calls[action] == 1  # AccessDenied is not retried


def test_an_error_is_not_kept_the_next_caller_asks_again(athena, emulator):
    """An AccessDenied for one model is not replayed to later models: each asks AWS."""
    emulator.inject_error("GetDataCatalog", "AccessDeniedException", "denied", times=2)
    resolver = CatalogResolver(lambda: athena)
    for _ in range(2):
        with pytest.raises(CrossAccountCatalogError):
            resolver.catalog_map(["partner_catalog"])
    assert resolver.catalog_map(["partner_catalog"]) == {"partner_catalog": "999999999999"}
    assert emulator.calls["GetDataCatalog"] == 3


def test_callers_waiting_on_a_failing_lookup_share_its_one_call(athena, emulator):
    emulator.inject_error("GetDataCatalog", "AccessDeniedException", "denied")
    emulator.latency["GetDataCatalog"] = 0.3
    resolver = CatalogResolver(lambda: athena)
    errors: List[BaseException] = []

    def model(_: int) -> None:
        try:
            resolver.catalog_map(["partner_catalog"])
        except CrossAccountCatalogError as exc:
            errors.append(exc)

    try:
        run_in_threads(model, 4)
    finally:
        emulator.latency.clear()
    assert len(errors) == 4
    assert emulator.calls["GetDataCatalog"] == 1


def test_list_data_catalogs_pages_are_followed():
    """moto never paginates ListDataCatalogs; real AWS pages at 50. Stub two pages."""
    client = boto3.client(
        "athena", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    stub = Stubber(client)
    stub.add_response(
        "list_data_catalogs",
        {
            "DataCatalogsSummary": [
                {"CatalogName": "AwsDataCatalog", "Type": "GLUE"},
                {"CatalogName": "p1", "Type": "GLUE"},
            ],
            "NextToken": "t1",
        },
        {},
    )
    stub.add_response(
        "list_data_catalogs",
        {
            "DataCatalogsSummary": [
                {"CatalogName": "p2", "Type": "GLUE"},
                {"CatalogName": "fed", "Type": "LAMBDA"},
            ]
        },
        {"NextToken": "t1"},
    )
    stub.add_response(
        "get_data_catalog",
        {
            "DataCatalog": {
                "Name": "p1",
                "Type": "GLUE",
                "Parameters": {"catalog-id": "111111111111"},
            }
        },
        {"Name": "p1"},
    )
    stub.add_response(
        "get_data_catalog",
        {
            "DataCatalog": {
                "Name": "p2",
                "Type": "GLUE",
                "Parameters": {"catalog-id": "222222222222"},
            }
        },
        {"Name": "p2"},
    )
    with stub:
        result = CatalogResolver(lambda: client, max_in_flight=1).catalog_map()
    stub.assert_no_pending_responses()
    assert result == {"p1": "111111111111", "p2": "222222222222"}


def test_invalid_request_from_aws_means_not_registered():
    """Real AWS answers an unknown name with InvalidRequestException (moto: empty body)."""
    client = boto3.client(
        "athena", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    stub = Stubber(client)
    stub.add_client_error(
        "get_data_catalog", "InvalidRequestException", "Catalog nope not found", 400
    )
    with stub:
        resolver = CatalogResolver(lambda: client)
        assert resolver.catalog_map(["nope"]) == {}
        assert "not registered" in resolver.explain("nope")["reason"]
