"""Resolve Athena data catalog names to the AWS account ids that own their Glue catalogs.

Pure logic: nothing here imports dbt. The adapter layer (``_adapter.py``) hands in a
boto3 Athena client factory and a logger; tests hand in a client pointed at moto.

:class:`CatalogResolver` puts together three parts that each stand alone:
:class:`~dbt_athena_cross_account.renewing_client.RenewingClient` (the shared client,
renewed on expired credentials), ``athena_calls`` (the AWS calls and what their errors
mean) and :class:`~dbt_athena_cross_account.single_flight.SingleFlight` (the cache). What
is left here is what a name resolves to (:func:`classify`) and the shape of the map.

Rules (see docs/how-it-works.md):

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
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from dbt_athena_cross_account.athena_calls import GLUE, get_data_catalog, list_glue_catalog_names
from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.names import LOCAL_CATALOG, catalog_key, is_local_catalog
from dbt_athena_cross_account.renewing_client import RenewingClient
from dbt_athena_cross_account.single_flight import SingleFlight

__all__ = ["LOCAL_CATALOG", "catalog_key", "is_local_catalog"]  # re-exported for callers

MAX_IN_FLIGHT = 8
MALFORMED_FIX = "{reason}. Fix: set it with `{command}`."

_ACCOUNT_ID = re.compile(r"[0-9]{12}")
# the single-flight key of the ListDataCatalogs listing (catalog keys are strings)
_LISTING = ("ListDataCatalogs",)

CatalogIdExtractor = Callable[[Mapping[str, Any]], Optional[str]]


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


def glue_catalog_map(
    names: Iterable[str], resolved: Mapping[str, Resolution], debug: Callable[[str], None]
) -> Dict[str, str]:
    """The no-argument map: ``{name: account_id}`` of the listed GLUE catalogs that resolved
    to an account; the others are left out with a debug log."""
    result: Dict[str, str] = {}
    for name in names:
        resolution = resolved[catalog_key(name)]
        if resolution.account_id:
            result[name] = resolution.account_id
        else:
            debug(f"left out of the cross-account map: {resolution.reason}")
    return result


def wanted_catalogs(catalog_names: Union[str, Iterable[str]]) -> List[str]:
    """The names a caller asked for, stripped, without blanks and the local catalog."""
    if isinstance(catalog_names, str):
        catalog_names = [catalog_names]
    return [
        str(n).strip() for n in catalog_names if str(n).strip() and not is_local_catalog(str(n))
    ]


def referenced_catalog_map(wanted: List[str], resolved: Mapping[str, Resolution]) -> Dict[str, str]:
    """``{name as given: account_id}`` of the referenced catalogs that resolved to an
    account; a GLUE catalog with a malformed catalog-id raises, with the command to fix it."""
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
        self._client = RenewingClient(
            client_factory, fresh_client_factory, debug, what="Athena client"
        )
        self._catalog_id_of = catalog_id_of
        self._debug = debug
        self._max_in_flight = max(1, int(max_in_flight))
        self._cache = SingleFlight()

    def _fetch(self, key: str, spelling: str) -> Resolution:
        client = self._client.get()
        catalog = get_data_catalog(client, key, self._debug)
        if catalog is None and spelling != key:
            catalog = get_data_catalog(client, spelling, self._debug)
        resolution = classify(spelling, catalog, self._catalog_id_of)
        self._debug(f"cross-account catalog {spelling!r} -> {resolution}")
        return resolution

    def _resolve_one(self, name: str) -> Resolution:
        spelling = str(name).strip()
        key = catalog_key(spelling)
        if key == LOCAL_CATALOG:
            return Resolution(spelling, GLUE, None, f"'{spelling}' is the local catalog")
        resolution: Resolution = self._cache.run(key, lambda: self._fetch(key, spelling))
        return resolution

    def resolve_one(self, name: str) -> Resolution:
        """One name's Resolution (cached for the resolver's life)."""
        return self._client.call(lambda: self._resolve_one(name))

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
        results = self._client.call(lambda: self._resolve_all(spellings))
        return {catalog_key(s): r for s, r in zip(spellings, results)}

    def _listed(self) -> List[str]:
        names: List[str] = self._cache.run(
            _LISTING, lambda: list_glue_catalog_names(self._client.get(), self._debug)
        )
        return names

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
            listed = self._client.call(self._listed)
            return glue_catalog_map(listed, self.resolve(listed), self._debug)
        wanted = wanted_catalogs(catalog_names)
        return referenced_catalog_map(wanted, self.resolve(wanted))

    def explain(self, catalog_name: str) -> Dict[str, Any]:
        """The cached Resolution of one name, as a dict (looks it up if not cached yet)."""
        return self.resolve_one(catalog_name).as_dict()
