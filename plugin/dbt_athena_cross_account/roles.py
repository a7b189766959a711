"""``spark_cross_account_roles``: read an owner's Iceberg tables as a role the owner controls.

Pure; nothing here imports dbt. The model config maps a catalog name to the owner's role,
an ARN string or ``{role_arn: ..., external_id: ...}``, usually set once for the project::

    models:
      my_project:
        +spark_cross_account_roles:
          partner_catalog: "arn:aws:iam::999999999999:role/dbt-reader"

For a catalog in the mapping, the read plan reads the owner's **Iceberg** tables through the
per-owner Iceberg catalog with iceberg-aws's ``AssumeRoleAwsClientFactory``
(:func:`assume_role_conf`): Glue metadata and S3 data are read as the owner's role, so the
owner grants the execution role nothing but the role's trust. Hive tables cannot be read
that way (:data:`HIVE_UNDER_ROLE`): the Hive Glue client takes one credentials provider for
the whole session, writes included. So the format of a table read through a role is checked
at compile time, from the source's ``meta: {spark_table_format: ...}``, which must name it
(:data:`FORMAT_NOT_NAMED`): the usual lookup reads the owner's Glue as the execution role,
which holds no grant here.

Only the catalogs a model reads are validated (:func:`role_for`): a project-level mapping
names catalogs many models never read.

dbt replaces a dict config set at a deeper level (a folder, the model) instead of merging
it, so :func:`effective_roles` merges the mappings of every level of ``dbt_project.yml`` on
the model's path, then the model's own value: an entry mapped to null turns that catalog
off, ``null`` for the whole setting turns every catalog off.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.names import catalog_key, iceberg_catalog_name

ROLES_CONFIG = "spark_cross_account_roles"
#: iceberg-aws's client factory that assumes a role (Iceberg 1.2.1, Athena's engine v3).
ASSUME_ROLE_FACTORY = "org.apache.iceberg.aws.AssumeRoleAwsClientFactory"
#: The AWS SDK v2 STS client the factory needs (not bundled by Iceberg).
STS_CLIENT_CLASS = "software.amazon.awssdk.services.sts.StsClient"
#: STS refuses sessions longer than an hour when the caller is itself an assumed role (role
#: chaining), which Athena's Spark identity is.
MAX_CHAINED_SECONDS = 3600

_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::(\d{12}):role/(?:[\w+=,.@-]+/)*([\w+=,.@-]{1,64})")
_EXTERNAL_ID = re.compile(r"[\w+=,.@:/-]{2,1224}")
_SESSION_CHARS = re.compile(r"[^A-Za-z0-9_+=,.@-]")

EXAMPLE = '+spark_cross_account_roles: {{{catalog}: "arn:aws:iam::{account}:role/<reader role>"}}'
BAD_MAPPING = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles to {value}, which is not a mapping from catalog name to the owner's role. Fix: write it as a mapping, e.g. +spark_cross_account_roles: {{partner_catalog: \"arn:aws:iam::999999999999:role/dbt-reader\"}}, or {{partner_catalog: {{role_arn: ..., external_id: ...}}}}."
FLAT_MAPPING = 'dbt_athena_cross_account: model \'{model}\' sets spark_cross_account_roles to a mapping whose keys include {keys}: the keys of spark_cross_account_roles are catalog names, so this reads as catalogs named {keys} and the catalog it is meant for gets no role. Fix: nest the role under the catalog it reads, e.g. +spark_cross_account_roles: {{partner_catalog: {{role_arn: "arn:aws:iam::999999999999:role/dbt-reader", external_id: "..."}}}} (or {{partner_catalog: "arn:aws:iam::999999999999:role/dbt-reader"}}).'
BAD_ENTRY = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles for catalog '{catalog}' to {value}, which is neither a role ARN string nor a mapping with role_arn (and optionally external_id). Fix: {example}, or {{{catalog}: {{role_arn: ..., external_id: ...}}}}."
NOT_A_ROLE_ARN = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles for catalog '{catalog}' to {value}, which is not an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>). Fix: {example}."
WRONG_ACCOUNT = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles for catalog '{catalog}' to the role {value} of account {role_account}, but catalog '{catalog}' belongs to account {account}: the owner's Iceberg tables are read as that role, which must be a role of the owner. Fix: {example}."
EXTERNAL_ID_NOT_A_STRING = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles for catalog '{catalog}' with external_id {value}, a {kind}, but an external id is a string (YAML reads 123456 as a number, and a leading zero would be lost). Fix: quote it: external_id: \"{value}\"."
UNKNOWN_ENTRY_KEY = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles for catalog '{catalog}' with the key(s) {keys}, which it does not know: the role's mapping takes role_arn and external_id only (with underscores). Fix: {{{catalog}: {{role_arn: ..., external_id: ...}}}}{hint}."
BAD_EXTERNAL_ID = "dbt_athena_cross_account: model '{model}' sets spark_cross_account_roles for catalog '{catalog}' with external_id {value}, which STS does not accept (2 to 1224 characters of letters, digits and +=,.@:/-). Fix: use the external id the owner's role trusts, or remove external_id."
FORMAT_NOT_NAMED = "dbt_athena_cross_account: model '{model}' reads {label} of account {account} through the role {role_arn} (spark_cross_account_roles for catalog '{catalog}'), but the source does not name the table's format, and under a role it cannot be looked up before the model runs: the lookup would read the owner's Glue as the work group's execution role, which the owner grants nothing. Only Iceberg tables can be read through a role (a Hive table would switch every Glue call of the session to the owner's role, dbt-athena's own writes included), so dbt checks the format at compile time from the source's meta. Nothing was submitted. Fix: in the source's YAML, set meta: {{spark_table_format: iceberg}} on the table or on the whole source (when the owner's tables are Iceberg); for a Hive table, ask the owner to grant the work group's execution role the table in its Glue resource policy and bucket policy (then map '{catalog}' to null in spark_cross_account_roles for this model), or to expose the table as Iceberg."
HIVE_UNDER_ROLE = "dbt_athena_cross_account: model '{model}' reads {label} of account {account}, whose meta says it is a Hive table (spark_table_format: hive), through the role {role_arn} (spark_cross_account_roles for catalog '{catalog}'), but only Iceberg tables can be read through a role: Spark's Hive Glue client takes one credentials provider for the whole session, so it would switch every Glue call of the session to the owner's role, dbt-athena's own writes into your account included. Nothing was submitted. Fix: if the table is an Iceberg table, correct its meta to spark_table_format: iceberg (a table's meta wins over its source's); for a Hive table, ask the owner to grant the work group's execution role this table in its Glue resource policy and bucket policy (then map '{catalog}' to null in spark_cross_account_roles for this model), or to expose the table as Iceberg."


@dataclass(frozen=True)
class OwnerRole:
    """The role through which a catalog's Iceberg tables are read."""

    catalog: str
    role_arn: str
    account: str
    external_id: Optional[str] = None

    def as_dict(self) -> Dict[str, Any]:
        return {"role_arn": self.role_arn, "account": self.account, "external_id": self.external_id}


def role_account(arn: str) -> Optional[str]:
    """The account of an IAM role ARN; None when ``arn`` is not one."""
    match = _ROLE_ARN.fullmatch(arn.strip())
    return match.group(1) if match else None


#: keys of one role's mapping: written at the top level, the catalog level was forgotten
_ENTRY_KEYS = ("role_arn", "external_id", "role-arn", "external-id")


def parse_roles(model: str, value: Any) -> Dict[str, Any]:
    """The mapping, keyed by ``catalog_key`` (entries not yet validated). None/empty: {}."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return {}
    if not isinstance(value, Mapping):
        raise CrossAccountCatalogError(BAD_MAPPING.format(model=model, value=repr(value)))
    parsed = {catalog_key(str(k)): v for k, v in value.items()}
    flat = [k for k in _ENTRY_KEYS if k in parsed and not isinstance(parsed[k], Mapping)]
    if flat:
        raise CrossAccountCatalogError(
            FLAT_MAPPING.format(model=model, keys=" and ".join(repr(k) for k in flat))
        )
    return parsed


def effective_roles(levels: Sequence[Any], value: Any) -> Any:
    """The model's mapping: the values of ``dbt_project.yml`` on the model's path (outermost
    first), then the model's own ``value`` (what dbt resolved: the deepest level that set it),
    merged catalog by catalog. dbt replaces a dict config instead of merging it, so without
    this a folder's ``{other_catalog: null}`` would drop the project's roles. A level set to
    null turns every catalog off; a value that is not a mapping is returned as it is, for
    :func:`parse_roles` to refuse."""
    merged: Dict[str, Any] = {}
    for level in [*levels, value]:
        if level is None or (isinstance(level, str) and not level.strip()):
            merged = {}
        elif isinstance(level, Mapping):
            merged.update({catalog_key(str(k)): v for k, v in level.items()})
        else:
            return level
    return merged


def project_levels(models_config: Any, fqn: Sequence[str], key: str = ROLES_CONFIG) -> List[Any]:
    """The values ``models_config`` (``dbt_project.yml``'s ``models:``) sets ``key`` to on the
    path ``fqn`` (package, folders, model name), outermost first."""
    found: List[Any] = []
    level = models_config
    for part in [None, *fqn]:
        if part is not None:
            level = level.get(part) if isinstance(level, Mapping) else None
        if not isinstance(level, Mapping):
            break
        for name in ("+" + key, key):
            if name in level:
                found.append(level[name])
    return found


def _entry(model: str, catalog: str, account: str, value: Any) -> tuple:
    example = EXAMPLE.format(catalog=catalog, account=account)
    if isinstance(value, str):
        return value, None
    if isinstance(value, Mapping) and isinstance(value.get("role_arn"), str):
        unknown = sorted(str(k) for k in set(value) - {"role_arn", "external_id"})
        if unknown:
            hint = " (external-id is written external_id)" if "external-id" in unknown else ""
            raise CrossAccountCatalogError(
                UNKNOWN_ENTRY_KEY.format(
                    model=model, catalog=catalog, keys=", ".join(map(repr, unknown)), hint=hint
                )
            )
        external_id = value.get("external_id")
        if external_id is None or isinstance(external_id, str):
            return value["role_arn"], external_id
        raise CrossAccountCatalogError(
            EXTERNAL_ID_NOT_A_STRING.format(
                model=model, catalog=catalog, value=external_id, kind=type(external_id).__name__
            )
        )
    raise CrossAccountCatalogError(
        BAD_ENTRY.format(model=model, catalog=catalog, value=repr(value), example=example)
    )


def role_for(
    model: str, roles: Mapping[str, Any], catalog: str, account: str
) -> Optional[OwnerRole]:
    """The validated role of ``catalog`` (owned by ``account``); None when it has none (not
    in the mapping, or mapped to null: how a folder or model turns a project's entry off)."""
    key = catalog_key(catalog)
    if roles.get(key) is None:
        return None
    arn, external_id = _entry(model, key, account, roles[key])
    example = EXAMPLE.format(catalog=key, account=account)
    found = role_account(arn)
    if found is None:
        raise CrossAccountCatalogError(
            NOT_A_ROLE_ARN.format(model=model, catalog=key, value=repr(arn), example=example)
        )
    if found != str(account):
        raise CrossAccountCatalogError(
            WRONG_ACCOUNT.format(
                model=model,
                catalog=key,
                value=arn.strip(),
                role_account=found,
                account=account,
                example=example,
            )
        )
    if external_id is not None and not _EXTERNAL_ID.fullmatch(external_id):
        raise CrossAccountCatalogError(
            BAD_EXTERNAL_ID.format(model=model, catalog=key, value=repr(external_id))
        )
    return OwnerRole(key, arn.strip(), found, external_id)


def session_name(model: str) -> str:
    """The AssumeRole session name: names dbt and the model (STS: 2-64 of [\\w+=,.@-],
    ASCII only: accents are dropped, other characters become ``-``). A versioned model's
    unique id (``model.<package>.<name>.v<N>``) keeps its name: ``dbt-<name>-v<N>``."""
    parts = model.split(".") if model else []
    if len(parts) >= 3 and parts[0] in ("model", "snapshot", "seed"):
        parts = parts[2:]
    short = "-".join(parts[-2:]) if len(parts) > 1 else (parts[-1] if parts else "model")
    ascii_name = unicodedata.normalize("NFKD", short).encode("ascii", "ignore").decode()
    return ("dbt-" + _SESSION_CHARS.sub("-", ascii_name or "model"))[:64]


def role_catalog_name(role: OwnerRole) -> str:
    """The Spark catalog reading ``role.account``'s Iceberg tables as ``role``: its own name,
    so a session reused by a model that reads the same owner through grants never gets a
    catalog initialised with the other credentials (Spark caches a catalog at first use)."""
    digest = hashlib.sha256(f"{role.role_arn}\n{role.external_id or ''}".encode()).hexdigest()
    return f"{iceberg_catalog_name(role.account)}_role_{digest[:8]}"


def assume_role_conf(
    prefix: str, role: OwnerRole, region: str, model: str
) -> List[List[Optional[str]]]:
    """``[key, value, None]`` rows that make the catalog at ``prefix`` read as ``role``."""
    rows: List[List[Optional[str]]] = [
        [prefix + ".client.factory", ASSUME_ROLE_FACTORY, None],
        [prefix + ".client.assume-role.arn", role.role_arn, None],
        [prefix + ".client.assume-role.region", region, None],
        [prefix + ".client.assume-role.session-name", session_name(model), None],
        [prefix + ".client.assume-role.timeout-sec", str(MAX_CHAINED_SECONDS), None],
    ]
    if role.external_id:
        rows.append([prefix + ".client.assume-role.external-id", role.external_id, None])
    return rows


def trust_policy(execution_role_arn: str, external_id: Optional[str] = None) -> Dict[str, Any]:
    """The statement the owner adds to the reader role's trust policy."""
    statement: Dict[str, Any] = {
        "Effect": "Allow",
        "Principal": {"AWS": execution_role_arn},
        "Action": "sts:AssumeRole",
    }
    if external_id:
        statement["Condition"] = {"StringEquals": {"sts:ExternalId": external_id}}
    return {"Version": "2012-10-17", "Statement": [statement]}


# ---- errors raised inside Spark when reading through a role ---------------------------------
ROLE_REFUSED = "dbt_athena_cross_account: {label} could not be read: STS refused to let the work group's execution role assume the role {role_arn} (spark_cross_account_roles), so account {account}'s table '{database}'.'{table}' was not read. STS gives the same answer for each of these causes, so check them all: (1) the role's trust policy does not allow the execution role sts:AssumeRole; (2) {external_cause}; (3) the role does not exist (a typo in the ARN is refused alike); (4) the execution role's own IAM policy does not allow sts:AssumeRole on that role. Never remove an sts:ExternalId condition from the role's trust policy to make this work: it protects the owner. Run `dbt run-operation cross_account_doctor --args '{{spark: true}}'`: it prints the trust policy statement to check, filled in."
EXTERNAL_ID_SENT = "the trust policy requires another external id than the one this model sends, with the external id {external_id!r} (spark_cross_account_roles' external_id): use the one the owner gave you"
EXTERNAL_ID_NOT_SENT = "the trust policy requires an external id (an sts:ExternalId condition) and this model sends none: set the one the owner gave you, {{{catalog}: {{role_arn: ..., external_id: ...}}}} in spark_cross_account_roles"
ROLE_CLASSES_MISSING = "dbt_athena_cross_account: {label} is read through the role {role_arn} (spark_cross_account_roles), but the model's Spark session cannot load {factory} or the AWS SDK's STS client ({sts}) that it needs (whether Athena ships them is not verified). Fix: ask the owner to grant the work group's execution role the table directly (Glue resource policy and bucket policy) and map '{catalog}' to null in spark_cross_account_roles. Run `dbt run-operation cross_account_doctor --args '{{spark: true}}'` to check the classes."
ROLE_GLUE_DENIED = "dbt_athena_cross_account: {label} could not be read: the role {role_arn} was assumed, but Glue denied it access to account {account}, database '{database}', table '{table}'. The role's IAM policy must allow glue:GetTable (and glue:GetDatabase) on its account's catalog, and the S3 reads of the table's files. Run `dbt run-operation cross_account_doctor --args '{{spark: true}}'` to check."
ROLE_NOT_FOUND = "dbt_athena_cross_account: {label} could not be read through the role {role_arn}: account {account} has no Iceberg table '{table}' in database '{database}'. A Hive table is not found either: only Iceberg tables can be read through a role (Spark's Hive Glue client would switch every Glue call of the session to the owner's role, dbt-athena's own writes included). Fix: check the source's schema and identifier with the owner; for a Hive table, ask the owner to grant the work group's execution role the table in its Glue resource policy and bucket policy (then map '{catalog}' to null in spark_cross_account_roles for this model), or to expose the table as Iceberg."

REFUSED_MARKERS = (
    "is not authorized to perform: sts:AssumeRole",
    "DurationSeconds exceeds",
)
CLASSES_MISSING_MARKERS = (
    "ClassNotFoundException: " + ASSUME_ROLE_FACTORY,
    "Cannot initialize AwsClientFactory",
    "ClassNotFoundException: software.amazon.awssdk.services.sts",
    "NoClassDefFoundError: software/amazon/awssdk/services/sts",
)


def read_errors(
    label: str, role: OwnerRole, schema: str, table: str, not_found_markers: Any, denied: Any
) -> List[Dict[str, Any]]:
    """The rules that re-raise a failed read through ``role`` (see ``formats.read_errors``)."""
    names = dict(
        label=label,
        role_arn=role.role_arn,
        account=role.account,
        catalog=role.catalog,
        database=schema.strip(),
        table=table.strip(),
    )
    external = (
        EXTERNAL_ID_SENT.format(external_id=role.external_id)
        if role.external_id
        else EXTERNAL_ID_NOT_SENT.format(catalog=role.catalog)
    )
    return [
        {
            "format": None,
            "markers": list(REFUSED_MARKERS),
            "message": ROLE_REFUSED.format(external_cause=external, **names),
        },
        {
            "format": None,
            "markers": list(CLASSES_MISSING_MARKERS),
            "message": ROLE_CLASSES_MISSING.format(
                factory=ASSUME_ROLE_FACTORY, sts=STS_CLIENT_CLASS, **names
            ),
        },
        {"format": None, "markers": list(denied), "message": ROLE_GLUE_DENIED.format(**names)},
        {
            "format": None,
            "markers": list(not_found_markers),
            "message": ROLE_NOT_FOUND.format(**names),
        },
    ]
