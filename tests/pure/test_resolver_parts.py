"""The parts CatalogResolver is built from, each alone: the single-flight cache, the client
renewed on expired credentials, the Athena calls and their error mapping, the map shaping.
(tests/unit/test_resolver.py tests them together, against the emulator.)"""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, List

import pytest
from botocore.exceptions import ClientError

from dbt_athena_cross_account import errors
from dbt_athena_cross_account.athena_calls import (
    explain_client_error,
    get_data_catalog,
    list_glue_catalog_names,
    raise_explained,
)
from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.renewing_client import CredentialsExpired, RenewingClient
from dbt_athena_cross_account.resolver import (
    Resolution,
    glue_catalog_map,
    referenced_catalog_map,
    wanted_catalogs,
)
from dbt_athena_cross_account.single_flight import SingleFlight


def client_error(code: str, retries: int = 0) -> ClientError:
    response: Any = {
        "Error": {"Code": code, "Message": "m"},
        "ResponseMetadata": {"RetryAttempts": retries},
    }
    return ClientError(response, "GetDataCatalog")


# ---- errors.py ---------------------------------------------------------------------------
def test_errors_is_the_one_home_of_statuses_and_codes() -> None:
    from dbt_athena_cross_account import formats
    from dbt_athena_cross_account.doctor import rows

    assert (errors.PASS, errors.WARN, errors.FAIL) == ("PASS", "WARN", "FAIL")
    assert rows.PASS is errors.PASS and formats.FAIL is errors.FAIL
    assert errors.error_code(client_error("Throttling")) == "Throttling"
    assert errors.error_code(ValueError("x")) == ""
    assert errors.expired_credentials("ExpiredTokenException")
    assert not errors.expired_credentials("AccessDenied")


# ---- single_flight.py --------------------------------------------------------------------
def test_single_flight_computes_once_for_threads_asking_at_once() -> None:
    cache, calls, gate = SingleFlight(), [], threading.Event()

    def compute() -> str:
        calls.append(1)
        gate.wait(5)
        return "answer"

    results: List[str] = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.run("k", compute))) for _ in range(10)
    ]
    for thread in threads:
        thread.start()
    time.sleep(0.1)  # every thread is waiting on the first one's flight
    gate.set()
    for thread in threads:
        thread.join()
    assert calls == [1] and results == ["answer"] * 10
    assert cache.run("other", lambda: "second") == "second"  # keys are separate


def test_single_flight_shares_an_error_then_forgets_it() -> None:
    cache, calls = SingleFlight(), []

    def failing() -> str:
        calls.append(1)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cache.run(("listing",), failing)
    assert cache.run(("listing",), lambda: "ok") == "ok"  # the failure was not kept
    assert cache.run(("listing",), failing) == "ok" and calls == [1]  # the answer is


# ---- renewing_client.py ------------------------------------------------------------------
def test_renewing_client_builds_once_and_renews_once_per_expiry() -> None:
    built: List[str] = []
    messages: List[str] = []
    client = RenewingClient(
        lambda: built.append("first") or "client-1",
        lambda: built.append("fresh") or "client-2",
        messages.append,
        what="Athena client",
    )
    assert client.get() == client.get() == "client-1" and built == ["first"]
    attempts: List[Any] = []

    def call() -> str:
        attempts.append(client.get())
        if len(attempts) == 1:
            raise CredentialsExpired(CrossAccountCatalogError("expired twice"))
        return "done"

    assert client.call(call) == "done"
    assert attempts == ["client-1", "client-2"] and built == ["first", "fresh"]
    assert messages == ["AWS credentials expired; building a new Athena client"]
    client.renew("client-1")  # a thread that saw the old client fail: no second renewal
    assert built == ["first", "fresh"]


def test_renewing_client_raises_the_explained_error_on_a_second_expiry() -> None:
    client = RenewingClient(lambda: object())

    def call() -> None:
        raise CredentialsExpired(CrossAccountCatalogError("failed with ExpiredToken twice"))

    with pytest.raises(CrossAccountCatalogError, match="twice") as info:
        client.call(call)
    assert info.value.__cause__ is None and info.value.__suppress_context__


# ---- athena_calls.py ---------------------------------------------------------------------
class FakeAthena:
    def __init__(self, answers: Dict[str, Any], pages: List[Dict[str, Any]] = ()) -> None:
        self.answers, self.pages, self.asked = answers, list(pages), []

    def get_data_catalog(self, Name: str) -> Dict[str, Any]:  # boto3 spells it Name
        self.asked.append(Name)
        answer = self.answers[Name]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def get_paginator(self, _name: str) -> Any:
        fake = self

        class Paginator:
            def paginate(self) -> List[Dict[str, Any]]:
                for page in fake.pages:
                    if isinstance(page, BaseException):
                        raise page
                return fake.pages

        return Paginator()


def test_get_data_catalog_answers_and_maps_errors() -> None:
    logged: List[str] = []
    found = {"DataCatalog": {"Name": "p", "Type": "GLUE"}}
    athena = FakeAthena(
        {
            "p": found,
            "empty": {},
            "gone": client_error("InvalidRequestException"),
            "denied": client_error("AccessDeniedException"),
            "expired": client_error("ExpiredTokenException"),
            "bug": KeyError("not AWS"),
        }
    )
    assert get_data_catalog(athena, "p", logged.append) == found["DataCatalog"]
    assert get_data_catalog(athena, "empty", logged.append) is None  # moto's empty body
    assert get_data_catalog(athena, "gone", logged.append) is None
    assert logged and "not found" in logged[0]
    with pytest.raises(
        CrossAccountCatalogError, match="AccessDenied calling athena:GetDataCatalog"
    ):
        get_data_catalog(athena, "denied", logged.append)
    with pytest.raises(CredentialsExpired) as expired:
        get_data_catalog(athena, "expired", logged.append)
    assert "twice: the AWS credentials of your dbt profile expired" in str(expired.value.error)
    with pytest.raises(KeyError, match="not AWS"):
        get_data_catalog(athena, "bug", logged.append)


def test_list_glue_catalog_names_keeps_non_local_glue_catalogs() -> None:
    pages = [
        {"DataCatalogsSummary": [{"CatalogName": "AwsDataCatalog", "Type": "GLUE"}]},
        {
            "DataCatalogsSummary": [
                {"CatalogName": "partner", "Type": "GLUE"},
                {"CatalogName": "lambda_one", "Type": "LAMBDA"},
            ]
        },
    ]
    logged: List[str] = []
    assert list_glue_catalog_names(FakeAthena({}, pages), logged.append) == ["partner"]
    assert len(logged) == 2
    with pytest.raises(CrossAccountCatalogError, match="was throttled by AWS after 5 attempts"):
        list_glue_catalog_names(FakeAthena({}, [client_error("Throttling", 4)]), logged.append)


def test_explain_client_error_names_the_action_and_fix() -> None:
    failed = explain_client_error(client_error("InternalServerException"), "athena:X", "c")
    assert "AWS answered with an error of its own" in str(failed)
    assert "for catalog 'c'" in str(failed)
    listing = explain_client_error(client_error("AccessDenied"), "athena:ListDataCatalogs", None)
    assert "the data catalog list" in str(listing) and "datacatalog/*" in str(listing)
    with pytest.raises(ValueError, match="plain"):
        raise_explained(ValueError("plain"), "athena:X", "c")


# ---- resolver.py: the map's shape --------------------------------------------------------
def test_map_shaping() -> None:
    ok = Resolution("Partner", "GLUE", "999999999999")
    bad = Resolution("s3t", "GLUE", None, "GLUE data catalog 's3t' has catalog-id ...", True)
    lam = Resolution("lam", "LAMBDA", None, "'lam' is a LAMBDA data catalog")
    resolved = {"partner": ok, "s3t": bad, "lam": lam}
    logged: List[str] = []
    assert glue_catalog_map(["Partner", "s3t", "lam"], resolved, logged.append) == {
        "Partner": "999999999999"
    }
    assert len(logged) == 2
    assert wanted_catalogs(" Partner ") == ["Partner"]
    assert wanted_catalogs(["a", " ", "AwsDataCatalog", "b "]) == ["a", "b"]
    assert referenced_catalog_map(["Partner", "lam"], {"partner": ok, "lam": lam}) == {
        "Partner": "999999999999"
    }
    with pytest.raises(CrossAccountCatalogError, match="update-data-catalog"):
        referenced_catalog_map(["s3t"], {"s3t": bad})
