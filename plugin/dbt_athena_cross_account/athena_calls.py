"""The Athena control-plane calls the resolver makes, and what their errors mean.

Each call takes the boto3 Athena client it runs on. An AWS error becomes a
:class:`~dbt_athena_cross_account.errors.CrossAccountCatalogError` that names the IAM action
and the fix (:func:`explain_client_error`); an expiry becomes
:class:`~dbt_athena_cross_account.renewing_client.CredentialsExpired`, which the caller's
:class:`~dbt_athena_cross_account.renewing_client.RenewingClient` retries once. Anything
that is not an AWS error propagates as it is. Pure: nothing here imports dbt or boto3.
"""

from __future__ import annotations

from typing import Any, Callable, List, Mapping, NoReturn, Optional

from dbt_athena_cross_account.errors import (
    ACCESS_DENIED_CODES,
    NOT_FOUND_CODES,
    THROTTLING_CODES,
    CrossAccountCatalogError,
    error_code,
    expired_credentials,
)
from dbt_athena_cross_account.names import is_local_catalog
from dbt_athena_cross_account.renewing_client import CredentialsExpired

GLUE = "GLUE"
Debug = Callable[[str], None]


def _attempts(exc: BaseException) -> Optional[int]:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        retry = response.get("ResponseMetadata", {}).get("RetryAttempts")
        if isinstance(retry, int):
            return retry + 1
    return None


EXPIRED_CREDENTIALS_MESSAGE = "{action} for {subject} failed with {code} twice: the AWS credentials of your dbt profile expired and fresh ones from the same profile are expired too. Fix: refresh them (for example `aws sso login`, or new keys in the environment); with assume_role_arn in the profile, raise assume_role_duration_seconds or check that the base credentials can still call sts:AssumeRole."
OPTED_IN_WHY = "This permission is needed only because a model opted in with spark_cross_account_catalog: true."
ACCESS_DENIED = "AccessDenied calling {action} for {subject}: {error}\nGrant '{action}' to the role in your dbt profile (resource arn:aws:athena:<region>:<account>:datacatalog/{catalog}). {why}"
CALL_FAILED = "{action} for {subject} failed: {error}. AWS answered with an error of its own, not a refusal of your credentials. Fix: run dbt again; if it keeps failing, check the region of your dbt profile and the AWS Health Dashboard. The call is made only because a model opted in with spark_cross_account_catalog: true."
THROTTLED = "{action} for {subject} was throttled by AWS after {attempts} attempts ({code}). Raise 'num_retries' (or 'num_boto3_retries') in your dbt profile, lower 'threads', or ask AWS for a higher Athena control-plane quota."


def explain_client_error(
    exc: BaseException, action: str, catalog: Optional[str]
) -> CrossAccountCatalogError:
    """A CrossAccountCatalogError for a failed AWS call, naming the IAM action and the fix."""
    code = error_code(exc)
    subject = f"catalog '{catalog}'" if catalog else "the data catalog list"
    if code in ACCESS_DENIED_CODES:
        return CrossAccountCatalogError(
            ACCESS_DENIED.format(
                action=action, subject=subject, error=exc, catalog=catalog or "*", why=OPTED_IN_WHY
            )
        )
    if expired_credentials(code):
        return CrossAccountCatalogError(
            EXPIRED_CREDENTIALS_MESSAGE.format(action=action, subject=subject, code=code)
        )
    if code in THROTTLING_CODES:
        tries = _attempts(exc)
        return CrossAccountCatalogError(
            THROTTLED.format(action=action, subject=subject, attempts=tries or "several", code=code)
        )
    return CrossAccountCatalogError(CALL_FAILED.format(action=action, subject=subject, error=exc))


def raise_explained(exc: BaseException, action: str, catalog: Optional[str]) -> NoReturn:
    """Raise what ``exc`` from ``action`` means: ``CredentialsExpired`` (retried once with a
    fresh client), an explained AWS error, or ``exc`` itself when it is not an AWS error."""
    code = error_code(exc)
    if not code:
        raise exc
    explained = explain_client_error(exc, action, catalog)
    if expired_credentials(code):
        raise CredentialsExpired(explained) from exc
    raise explained from exc


def get_data_catalog(client: Any, name: str, debug: Debug) -> Optional[Mapping[str, Any]]:
    """``athena:GetDataCatalog``: the catalog, or None when it is not registered."""
    try:
        response = client.get_data_catalog(Name=name)
    except Exception as exc:
        if error_code(exc) in NOT_FOUND_CODES:
            debug(f"GetDataCatalog({name!r}) -> not found: {exc}")
            return None
        raise_explained(exc, "athena:GetDataCatalog", name)
    # moto answers an unknown name with an empty body instead of an error.
    return response.get("DataCatalog") or None


def list_glue_catalog_names(client: Any, debug: Debug) -> List[str]:
    """``athena:ListDataCatalogs``, every page: the names of the non-local GLUE catalogs."""
    names: List[str] = []
    try:
        for page in client.get_paginator("list_data_catalogs").paginate():
            for summary in page.get("DataCatalogsSummary", []):
                name = summary.get("CatalogName", "")
                if summary.get("Type") == GLUE and name and not is_local_catalog(name):
                    names.append(name)
                else:
                    debug(f"skipping data catalog {name!r} of type {summary.get('Type')}")
    except Exception as exc:
        raise_explained(exc, "athena:ListDataCatalogs", None)
    return names
