"""The methods the plugin adds to ``AthenaAdapter``, callable from Jinja as ``adapter.<name>``.

They use the dbt connection's boto3 session (so the profile's region,
``aws_profile_name`` and ``assume_role_arn`` apply) and dbt-athena's retry config
(so throttling is retried with backoff). One resolver, and so one cache, per adapter
instance, which dbt creates once per run.

``_patch.METHODS`` puts them on the class with the doctor's ``run_cross_account_doctor``.
Nothing here imports the doctor: the doctor builds on these methods, not the other way round.
"""

from __future__ import annotations

import functools
import os
import threading
from importlib import metadata
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from dbt.adapters.athena.constants import LOGGER
from dbt.adapters.athena.utils import get_catalog_id
from dbt_common.exceptions import CompilationError, DbtRuntimeError

from dbt_athena_cross_account import guard, overrides, roles
from dbt_athena_cross_account._aws import connection_clients
from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.flags import FlagError
from dbt_athena_cross_account.plan import Read, build_read_plan
from dbt_athena_cross_account.resolver import CatalogResolver

MARKER = "_dbt_athena_cross_account_"
_RESOLVER_ATTR = "_dbt_athena_cross_account_resolver"
_BLOCKS_ATTR = "_dbt_athena_cross_account_blocks"
_resolver_lock = threading.Lock()
_blocks_lock = threading.Lock()


def resolver_for(adapter: Any) -> CatalogResolver:
    """The adapter's resolver, created once, whichever thread asks first."""
    resolver = adapter.__dict__.get(_RESOLVER_ATTR)
    if resolver is None:
        with _resolver_lock:
            resolver = adapter.__dict__.get(_RESOLVER_ATTR)
            if resolver is None:
                resolver = CatalogResolver(
                    client_factory=lambda: connection_clients(adapter, "athena")[0]["athena"],
                    fresh_client_factory=lambda: connection_clients(adapter, "athena", fresh=True)[
                        0
                    ]["athena"],
                    catalog_id_of=get_catalog_id,
                    debug=LOGGER.debug,
                )
                adapter.__dict__[_RESOLVER_ATTR] = resolver
    return resolver


def get_spark_cross_account_catalog_map(
    self: Any, catalog_names: Union[str, Iterable[str], None] = None
) -> Dict[str, str]:
    """``{catalog_name: account_id}`` of cross-account GLUE data catalogs.

    With no argument: pages through athena:ListDataCatalogs and resolves every GLUE
    catalog except the local one. With ``catalog_names``: resolves only those, one
    athena:GetDataCatalog each, cached for the run.
    """
    try:
        return resolver_for(self).catalog_map(catalog_names)
    except CrossAccountCatalogError as exc:
        raise CompilationError(str(exc)) from None


def get_spark_cross_account_catalog_info(self: Any, catalog_name: str) -> Dict[str, Any]:
    """How one catalog name resolved: ``{name, type, account_id, reason, malformed}``."""
    try:
        return resolver_for(self).explain(catalog_name)
    except CrossAccountCatalogError as exc:
        raise CompilationError(str(exc)) from None


def get_spark_cross_account_read_plan(
    self: Any,
    model: str,
    reads: Iterable[Dict[str, Any]],
    fallback: Any = None,
    write_catalog: Optional[str] = None,
    owner_roles: Any = None,
) -> Dict[str, Any]:
    """How an opted-in Python model reads each ref/source: ``{tables, warnings}``.

    ``reads`` are the model's refs and sources as dbt rendered them (see
    ``plan.Read``). Catalogs are resolved through the run's cache; anything that cannot
    be read cross-account is a compile error unless ``fallback`` is ``local``. The
    profile's region is where Spark's Iceberg catalogs read the owners' Glue.
    ``owner_roles``: the model's ``spark_cross_account_roles`` (``roles.py``).
    """
    region = getattr(getattr(self.config, "credentials", None), "region_name", None)
    try:
        plan = build_read_plan(
            model,
            [Read.from_mapping(r) for r in reads],
            resolver_for(self).resolve,
            fallback=fallback,
            write_catalog=write_catalog,
            region=str(region) if region else None,
            owner_roles=owner_roles,
        )
    except CrossAccountCatalogError as exc:
        raise CompilationError(str(exc)) from None
    return plan.as_dict()


def get_spark_cross_account_roles(self: Any, fqn: Any, value: Any = None) -> Any:
    """The model's ``spark_cross_account_roles`` with the project's merged in
    (``roles.effective_roles``): dbt replaces a folder's or model's dict config instead of
    merging it, so the values ``dbt_project.yml`` sets on the model's path ``fqn`` are
    merged, outermost first, and then ``value`` (the model's config as dbt resolved it)."""
    models = getattr(self.config, "models", None) or {}
    return roles.effective_roles(roles.project_levels(models, [str(p) for p in fqn or ()]), value)


def write_spark_cross_account_code(self: Any, node: Dict[str, Any], code: str) -> str:
    """Write the Python an opted-in model submits to ``<target>/cross_account/...``.

    dbt writes no runtime file for Python models (``target/run/*.py`` stays empty), so
    this is where users can read the exact code. Returns the path written.
    """
    relative = os.path.normpath(str(node.get("original_file_path") or node["unique_id"] + ".py"))
    if relative.startswith("..") or os.path.isabs(relative):
        relative = os.path.basename(relative)
    path = os.path.join(
        self.config.project_root,
        self.config.target_path,
        "cross_account",
        str(node.get("package_name") or ""),
        relative,
    )
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(code)
    LOGGER.debug(
        f"dbt_athena_cross_account: wrote the code submitted for {node['unique_id']} to {path}"
    )
    return path


def record_spark_cross_account_block(self: Any, unique_id: str, block: str) -> str:
    """Remember that the package rendered ``block`` (its get_spark_df block) for the model
    ``unique_id`` in this invocation, and return it: the submission guard accepts that
    model's code only when it carries one of the blocks recorded for it."""
    with _blocks_lock:
        recorded = self.__dict__.setdefault(_BLOCKS_ATTR, {})
        recorded.setdefault(str(unique_id), set()).add(guard.rendered(str(block)))
    return block


def recorded_blocks(adapter: Any, unique_id: str) -> List[guard.RenderedBlock]:
    """The blocks the package rendered for ``unique_id`` on this adapter (this invocation)."""
    with _blocks_lock:
        return list(adapter.__dict__.get(_BLOCKS_ATTR, {}).get(str(unique_id), ()))


def get_spark_cross_account_fixes(self: Any) -> Dict[str, Any]:
    """The fix texts of ``fixes.py`` (dispatch YAML, data catalog commands) for macros."""
    from dbt_athena_cross_account import fixes

    return fixes.for_jinja()


def get_spark_cross_account_versions(self: Any) -> Dict[str, Optional[str]]:
    """Installed versions of the plugin, dbt-athena and dbt-core (for error messages)."""

    def version(dist: str) -> Optional[str]:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return None

    return {
        "dbt-athena-cross-account": version("dbt-athena-cross-account"),
        "dbt-athena": version("dbt-athena"),
        "dbt-core": version("dbt-core"),
    }


def get_spark_cross_account_dispatch_order(self: Any, macro_namespace: str = "athena") -> List[str]:
    """The project's ``dispatch`` search order for ``macro_namespace`` ([] when not configured).

    Jinja's ``adapter.dispatch(...)`` cannot answer this from inside a package: with no
    dispatch entry it searches the *calling* package first, so it would find this
    package's own override there and report it active.
    """
    order = self.config.get_macro_search_order(macro_namespace)
    return list(order or [])


def setup_verdict(adapter: Any, package: str) -> Optional[overrides.Verdict]:
    """Whether models of ``package`` reach this package's athena__create_table_as, from the
    manifest's macros and the dispatch entry (None: no manifest to tell from)."""
    get_resolver = getattr(adapter, "get_macro_resolver", None)
    manifest = get_resolver() if callable(get_resolver) else None
    manifest_macros = getattr(manifest, "macros", None)
    if not manifest_macros:
        return None
    from dbt.adapters.factory import get_adapter_package_names

    config = adapter.config
    macros = overrides.Macros(
        overrides.macro_infos(manifest_macros),
        config.project_name,
        get_adapter_package_names(adapter.type()),
    )
    order = config.get_macro_search_order("athena")
    return overrides.find_bypass(macros, order, package or config.project_name)


def get_spark_cross_account_setup(self: Any, packages: Iterable[str] = ()) -> Dict[str, Any]:
    """{package: {ok, reason, fix, winner, macro}} for the opted-in models of each package:
    whether dbt will really call this package's athena__create_table_as for them."""
    found: Dict[str, Any] = {}
    for package in dict.fromkeys(str(p) for p in packages):
        verdict = setup_verdict(self, package)
        if verdict is not None:
            found[package] = {
                "ok": verdict.ok,
                "reason": verdict.reason,
                "fix": verdict.fix,
                "winner": verdict.winner,
                "macro": verdict.bypass.name if verdict.bypass else None,
            }
    return found


def guarded_submit(submit: Callable[..., Any]) -> Callable[..., Any]:
    """``submit_python_job`` that refuses an opted-in model's code without the read plan."""

    @functools.wraps(submit)
    def submit_python_job(self: Any, parsed_model: dict, compiled_code: str) -> Any:
        try:
            refused = guard.refusal(
                parsed_model,
                compiled_code,
                lambda package: setup_verdict(self, package),
                recorded_blocks(self, str(parsed_model.get("unique_id"))),
            )
        except FlagError as exc:
            raise DbtRuntimeError(str(exc)) from None
        if refused:
            raise DbtRuntimeError(refused)
        return submit(self, parsed_model, compiled_code)

    setattr(submit_python_job, MARKER, True)
    return submit_python_job
