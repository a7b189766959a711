"""Resolve Athena data catalog names to the AWS account ids that own their Glue catalogs.

Pure logic: nothing here imports dbt. The adapter layer (``_adapter.py``) hands in a
boto3 Athena client factory and a logger; tests hand in a client pointed at moto.

Rules (see README "How it works"):

* Names are matched case-insensitively; ``awsdatacatalog`` is the local catalog and is
  never looked up.
* Only a ``GLUE`` data catalog whose ``Parameters["catalog-id"]`` is a plain 12-digit
  account id can be read through Spark's ``<account>/<database>`` separator form.
* Each name is looked up at most once per resolver (one resolver per dbt run), even when
  many threads ask for it at the same time. Only answers are kept: a failed lookup is
  tried again by the next caller, so one model's error never becomes another's.
* The Athena client is built in the calling thread (the one that holds the dbt
  connection) and shared with the pool threads that look several names up at once.
  When AWS says the credentials expired (``ExpiredToken*``), the client is built again
  from fresh credentials and the lookup is tried once more.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from dbt_athena_cross_account.names import LOCAL_CATALOG, catalog_key, is_local_catalog

__all__ = ["LOCAL_CATALOG", "catalog_key", "is_local_catalog"]  # re-exported for callers

GLUE = "GLUE"
MAX_IN_FLIGHT = 8

_ACCOUNT_ID = re.compile(r"[0-9]{12}")

ACCESS_DENIED_CODES = frozenset(
    {
        "AccessDeniedException",
        "AccessDenied",
        "UnauthorizedOperation",
        "UnrecognizedClientException",
    }
)
THROTTLING_CODES = frozenset(
    {"ThrottlingException", "TooManyRequestsException", "Throttling", "RequestLimitExceeded"}
)
NOT_FOUND_CODES = frozenset({"InvalidRequestException", "ResourceNotFoundException"})
EXPIRED_CREDENTIALS_PREFIX = "ExpiredToken"  # ExpiredToken, ExpiredTokenException

CatalogIdExtractor = Callable[[Mapping[str, Any]], Optional[str]]


class CrossAccountCatalogError(Exception):
    """A problem that stops a model from reading a cross-account catalog.

    The message always names the catalog (or API action) and says how to fix it.
    """


def is_account_id(value: object) -> bool:
    """True for a plain 12-digit AWS account id, the only form Spark's separator accepts."""
    return isinstance(value, str) and _ACCOUNT_ID.fullmatch(value) is not None


def default_catalog_id(catalog: Mapping[str, Any]) -> Optional[str]:
    """``Parameters["catalog-id"]`` of a GLUE catalog, else None (mirrors dbt-athena)."""
    if catalog.get("Type") != GLUE:
        return None
    value = (catalog.get("Parameters") or {}).get("catalog-id")
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Resolution:
    """What one data catalog name resolved to.

    ``account_id`` is set only when Spark can read the catalog through the separator.
    Otherwise ``reason`` says why, in words fit for a warning.
    ``malformed`` marks a GLUE catalog whose catalog-id is missing or not 12 digits.
    """

    name: str
    catalog_type: Optional[str]
    account_id: Optional[str]
    reason: str = ""
    malformed: bool = False

    def as_dict(self) -> Dict[str, Any]:
        return {
            "name": self.name,
            "type": self.catalog_type,
            "account_id": self.account_id,
            "reason": self.reason,
            "malformed": self.malformed,
        }


def classify(
    name: str, catalog: Optional[Mapping[str, Any]], catalog_id_of: CatalogIdExtractor
) -> Resolution:
    """Turn one ``GetDataCatalog`` answer (or None: not registered) into a Resolution."""
    if not catalog:
        return Resolution(
            name,
            None,
            None,
            f"'{name}' is not registered as an Athena data catalog in this account and region",
        )
    catalog_type = str(catalog.get("Type") or "")
    if catalog_type != GLUE:
        return Resolution(
            name,
            catalog_type,
            None,
            f"'{name}' is a {catalog_type or 'untyped'} data catalog; "
            "Spark's Glue client reads only GLUE catalogs",
        )
    try:
        catalog_id = catalog_id_of(catalog)
    except (KeyError, TypeError):
        catalog_id = None
    if is_account_id(catalog_id):
        return Resolution(name, GLUE, catalog_id)
    shown = "missing" if catalog_id is None else repr(catalog_id)
    return Resolution(
        name,
        GLUE,
        None,
        f"GLUE data catalog '{name}' has catalog-id {shown}; Spark's '<account>/<database>' form "
        "needs a plain 12-digit AWS account id (S3 Tables ids such as "
        "'<acct>:s3tablescatalog/<bucket>' cannot be used)",
        malformed=True,
    )


def error_code(exc: BaseException) -> str:
    """The AWS error code of a botocore ClientError, '' for anything else."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


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
MALFORMED_FIX = "{reason}. Fix: set it with `{command}`."
THROTTLED = "{action} for {subject} was throttled by AWS after {attempts} attempts ({code}). Raise 'num_retries' (or 'num_boto3_retries') in your dbt profile, lower 'threads', or ask AWS for a higher Athena control-plane quota."


class _CredentialsExpired(Exception):
    """AWS answered ExpiredToken*: build the client again and retry (never cached)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


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
    if code.startswith(EXPIRED_CREDENTIALS_PREFIX):
        return CrossAccountCatalogError(
            EXPIRED_CREDENTIALS_MESSAGE.format(action=action, subject=subject, code=code)
        )
    if code in THROTTLING_CODES:
        tries = _attempts(exc)
        return CrossAccountCatalogError(
            THROTTLED.format(action=action, subject=subject, attempts=tries or "several", code=code)
        )
    return CrossAccountCatalogError(
        CALL_FAILED.format(action=action, subject=subject, error=exc)
    )


def _explained(exc: BaseException, action: str, catalog: Optional[str]) -> BaseException:
    """What to raise for ``exc`` from ``action``: ``_CredentialsExpired`` (retried once with a
    fresh client), an explained AWS error, or ``exc`` itself when it is not one."""
    code = error_code(exc)
    if code.startswith(EXPIRED_CREDENTIALS_PREFIX):
        return _CredentialsExpired(explain_client_error(exc, action, catalog))
    if code:
        return explain_client_error(exc, action, catalog)
    return exc


class _Cell:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Optional[Resolution] = None
        self.error: Optional[BaseException] = None


class CatalogResolver:
    """Thread-safe, single-flight cache of catalog name -> Resolution.

    ``client_factory()`` returns a boto3 Athena client. It is called in the thread that
    asks (which holds the dbt connection), never in a pool thread. After AWS answered
    ``ExpiredToken*``, ``fresh_client_factory()`` (default: ``client_factory``) builds a
    client on new credentials.
    """

    def __init__(
        self,
        client_factory: Callable[[], Any],
        catalog_id_of: CatalogIdExtractor = default_catalog_id,
        debug: Callable[[str], None] = lambda _msg: None,
        max_in_flight: int = MAX_IN_FLIGHT,
        fresh_client_factory: Optional[Callable[[], Any]] = None,
    ) -> None:
        self._client_factory = client_factory
        self._fresh_client_factory = fresh_client_factory or client_factory
        self._client: Any = None
        self._catalog_id_of = catalog_id_of
        self._debug = debug
        self._max_in_flight = max(1, int(max_in_flight))
        self._lock = threading.Lock()
        self._cells: Dict[str, _Cell] = {}
        self._listing: Optional[_Cell] = None

    # -- AWS calls -------------------------------------------------------------
    def _athena(self) -> Any:
        """The shared client, built on first use by the calling thread."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._client_factory()
        return self._client

    def _renew_client(self, stale: Any) -> None:
        """Replace ``stale`` with a client on fresh credentials (once, however many ask)."""
        with self._lock:
            if self._client is stale or self._client is None:
                self._debug("AWS credentials expired; building a new Athena client")
                self._client = self._fresh_client_factory()

    def _with_fresh_credentials(self, call: Callable[[], Any]) -> Any:
        """``call()``; after ExpiredToken*, renew the client here and call once more."""
        client = self._athena()
        try:
            return call()
        except _CredentialsExpired:
            self._renew_client(client)
        try:
            return call()
        except _CredentialsExpired as expired:
            raise expired.error from None

    def _get_data_catalog(self, name: str) -> Optional[Mapping[str, Any]]:
        try:
            response = self._athena().get_data_catalog(Name=name)
        except Exception as exc:
            code = error_code(exc)
            if code in NOT_FOUND_CODES:
                self._debug(f"GetDataCatalog({name!r}) -> not found: {exc}")
                return None
            error = _explained(exc, "athena:GetDataCatalog", name)
            if error is exc:
                raise
            raise error from exc
        # moto answers an unknown name with an empty body instead of an error.
        return response.get("DataCatalog") or None

    def _fetch(self, key: str, spelling: str) -> Resolution:
        catalog = self._get_data_catalog(key)
        if catalog is None and spelling != key:
            catalog = self._get_data_catalog(spelling)
        resolution = classify(spelling, catalog, self._catalog_id_of)
        self._debug(f"cross-account catalog {spelling!r} -> {resolution}")
        return resolution

    def _list_glue_catalog_names(self) -> List[str]:
        client = self._athena()
        names: List[str] = []
        try:
            for page in client.get_paginator("list_data_catalogs").paginate():
                for summary in page.get("DataCatalogsSummary", []):
                    name = summary.get("CatalogName", "")
                    if summary.get("Type") == GLUE and name and not is_local_catalog(name):
                        names.append(name)
                    else:
                        self._debug(f"skipping data catalog {name!r} of type {summary.get('Type')}")
        except Exception as exc:
            error = _explained(exc, "athena:ListDataCatalogs", None)
            if error is exc:
                raise
            raise error from exc
        return names

    # -- single-flight cache ---------------------------------------------------
    def _single_flight(self, cell_key: Optional[str], compute: Callable[[], Any]) -> Any:
        """``compute()`` once for everyone asking ``cell_key`` at the same time.

        Callers that wait on a flight share its answer or its error. An error is not
        kept: the next caller computes again.
        """
        with self._lock:
            cell = self._listing if cell_key is None else self._cells.get(cell_key)
            owner = cell is None
            if owner:
                cell = _Cell()
                if cell_key is None:
                    self._listing = cell
                else:
                    self._cells[cell_key] = cell
        assert cell is not None
        if owner:
            try:
                cell.value = compute()
            except BaseException as exc:
                cell.error = exc
                with self._lock:
                    if cell_key is None and self._listing is cell:
                        self._listing = None
                    elif cell_key is not None and self._cells.get(cell_key) is cell:
                        del self._cells[cell_key]
            finally:
                cell.done.set()
        else:
            cell.done.wait()
        if cell.error is not None:
            raise cell.error
        return cell.value

    def _resolve_one(self, name: str) -> Resolution:
        spelling = str(name).strip()
        key = catalog_key(spelling)
        if key == LOCAL_CATALOG:
            return Resolution(spelling, GLUE, None, f"'{spelling}' is the local catalog")
        return self._single_flight(key, lambda: self._fetch(key, spelling))

    def resolve_one(self, name: str) -> Resolution:
        """One name's Resolution (cached for the resolver's life)."""
        return self._with_fresh_credentials(lambda: self._resolve_one(name))

    def _resolve_all(self, spellings: List[str]) -> List[Resolution]:
        if len(spellings) == 1:
            return [self._resolve_one(spellings[0])]
        from concurrent.futures import ThreadPoolExecutor  # only when several names are resolved

        workers = min(self._max_in_flight, len(spellings))
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(self._resolve_one, spellings))

    def resolve(self, names: Iterable[str]) -> Dict[str, Resolution]:
        """Resolve several names, at most ``max_in_flight`` GetDataCatalog calls at once.

        Keys are :func:`~dbt_athena_cross_account.names.catalog_key` of each name.
        """
        unique: Dict[str, str] = {}
        for name in names:
            unique.setdefault(catalog_key(str(name)), str(name).strip())
        spellings = list(unique.values())
        if not spellings:
            return {}
        results = self._with_fresh_credentials(lambda: self._resolve_all(spellings))
        return {catalog_key(s): r for s, r in zip(spellings, results)}

    # -- the public map ----------------------------------------------------------
    def catalog_map(self, catalog_names: Union[str, Iterable[str], None] = None) -> Dict[str, str]:
        """``{catalog_name: account_id}`` for cross-account GLUE catalogs.

        * ``catalog_names`` is None: every GLUE catalog listed by ListDataCatalogs (the
          map of every GLUE catalog a dbt-athena feature request proposed); malformed
          catalog-ids are left out with a debug log.
        * ``catalog_names`` given: only those names, one GetDataCatalog each and no
          ListDataCatalogs. A referenced GLUE catalog with a malformed catalog-id raises.
          Keys are the names as given.
        """
        if catalog_names is None:
            listed = self._with_fresh_credentials(
                lambda: self._single_flight(None, self._list_glue_catalog_names)
            )
            resolved = self.resolve(listed)
            result: Dict[str, str] = {}
            for name in listed:
                resolution = resolved[catalog_key(name)]
                if resolution.account_id:
                    result[name] = resolution.account_id
                else:
                    self._debug(f"left out of the cross-account map: {resolution.reason}")
            return result

        if isinstance(catalog_names, str):
            catalog_names = [catalog_names]
        wanted = [
            str(n).strip() for n in catalog_names if str(n).strip() and not is_local_catalog(str(n))
        ]
        resolved = self.resolve(wanted)
        malformed = [r for r in resolved.values() if r.malformed]
        if malformed:
            from dbt_athena_cross_account.fixes import update_data_catalog

            raise CrossAccountCatalogError(
                "\n".join(
                    MALFORMED_FIX.format(reason=r.reason, command=update_data_catalog(r.name))
                    for r in malformed
                )
            )
        return {
            name: resolved[catalog_key(name)].account_id
            for name in wanted
            if resolved[catalog_key(name)].account_id
        }  # type: ignore[misc]

    def explain(self, catalog_name: str) -> Dict[str, Any]:
        """The cached Resolution of one name, as a dict (looks it up if not cached yet)."""
        return self.resolve_one(catalog_name).as_dict()
