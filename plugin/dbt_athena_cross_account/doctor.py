"""``cross_account_doctor``: a read-only preflight for cross-account reads.

Pure logic, nothing here imports dbt. ``run_doctor`` takes boto3 clients (Athena, Glue,
S3, STS) and plain facts gathered from the dbt graph, and returns :class:`Check` rows:
PASS, WARN or FAIL, each with a one-line reason and, for WARN and FAIL, a fix.

The checks are separate on purpose (see the troubleshooting note summarised in the
design notes, section 6): registering the catalog, reading Glue *metadata* in the owner
account and reading the *data* in S3 fail for different reasons and need different fixes.

Only read APIs are called: sts:GetCallerIdentity, athena:GetDataCatalog,
athena:GetWorkGroup, glue:GetDatabase, glue:GetTable, s3:ListObjectsV2 (s3:ListBucket),
s3:GetObject (one byte, Range 0-0, which also proves kms:Decrypt) and
s3:GetBucketEncryption (s3:GetEncryptionConfiguration). ``READ_ONLY_ACTIONS`` lists them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account.resolver import (
    ACCESS_DENIED_CODES,
    NOT_FOUND_CODES,
    THROTTLING_CODES,
    classify,
    default_catalog_id,
    error_code,
    is_local_catalog,
)

PASS, WARN, FAIL = "PASS", "WARN", "FAIL"

#: Every AWS API action the doctor may call. Tests assert nothing else is ever called.
READ_ONLY_ACTIONS = frozenset(
    {
        "GetCallerIdentity",
        "GetDataCatalog",
        "GetWorkGroup",
        "GetDatabase",
        "GetTable",
        "ListObjectsV2",
        "GetObject",
        "GetBucketEncryption",
    }
)

CATALOG_ID_PROPERTY = "spark.hadoop.hive.metastore.glue.catalogid"
SEPARATOR_PROPERTY = "spark.hadoop.aws.glue.catalog.separator"
SEPARATOR = "/"

GLUE_READ_ACTIONS = [
    "glue:GetDatabase",
    "glue:GetDatabases",
    "glue:GetTable",
    "glue:GetTables",
    "glue:GetPartition",
    "glue:GetPartitions",
    "glue:BatchGetPartition",
]
S3_NO_SUCH_BUCKET = frozenset({"NoSuchBucket"})
GLUE_NOT_FOUND = frozenset({"EntityNotFoundException"})

_ASSUMED_ROLE = re.compile(r"^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role/([^/]+)/.+$")
_S3_URI = re.compile(r"^s3[an]?://([^/]+)/?(.*)$")


@dataclass(frozen=True)
class Check:
    """One row of the report."""

    status: str
    check: str
    subject: str
    reason: str
    fix: str = ""

    def as_dict(self) -> Dict[str, str]:
        return {
            "status": self.status,
            "check": self.check,
            "subject": self.subject,
            "reason": self.reason,
            "fix": self.fix,
        }


@dataclass
class TableRef:
    catalog: str
    schema: str
    table: str
    models: Tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.catalog}.{self.schema}.{self.table}"


@dataclass
class ModelFacts:
    """What the graph says about one Python model."""

    unique_id: str
    opted_in: bool
    spark_properties: Mapping[str, Any]
    catalogs: Tuple[str, ...] = ()


@dataclass
class Identity:
    """Who the checks run as, and who Spark runs as."""

    account: Optional[str] = None
    arn: Optional[str] = None
    principal: Optional[str] = None  # an IAM role/user ARN usable in a policy
    execution_role: Optional[str] = None
    work_group: Optional[str] = None
    note: str = ""

    def principals(self) -> List[str]:
        found = [p for p in (self.principal, self.execution_role) if p]
        return list(dict.fromkeys(found)) or ["arn:aws:iam::<your account>:role/<your dbt role>"]


# ---- small helpers ----------------------------------------------------------------------
def _status(exc: BaseException) -> int:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if isinstance(status, int):
            return status
    return 0


def _is_denied(exc: BaseException) -> bool:
    """AccessDenied in any spelling, or any HTTP 403 (S3 and some emulators send bare 403s)."""
    return error_code(exc) in ACCESS_DENIED_CODES or error_code(exc) == "403" or _status(exc) == 403


_XML_FIELD = re.compile(r"<(Code|Message)>([^<]*)</\1>")


def _short(exc: BaseException) -> str:
    """``Code: message`` of an AWS error, also when the body was XML that botocore left raw."""
    code = error_code(exc) or type(exc).__name__
    response = getattr(exc, "response", None)
    message = ""
    if isinstance(response, dict):
        message = str(response.get("Error", {}).get("Message", "") or "")
    if message.lstrip().startswith("<"):
        fields = dict(_XML_FIELD.findall(message))
        code = fields.get("Code", code)
        message = fields.get("Message", "")
    message = " ".join(message.split())
    return f"{code}: {message}" if message else code


def policy_principal(arn: Optional[str]) -> Optional[str]:
    """The IAM principal of a caller ARN: an assumed-role session becomes its role."""
    if not arn:
        return None
    match = _ASSUMED_ROLE.match(arn)
    if match:
        partition, account, role = match.groups()
        return f"arn:{partition}:iam::{account}:role/{role}"
    return arn


def split_s3_uri(location: str) -> Optional[Tuple[str, str]]:
    match = _S3_URI.match(location or "")
    if not match:
        return None
    bucket, key = match.groups()
    if key and not key.endswith("/"):
        key += "/"
    return bucket, key


def split_table_name(name: str) -> List[str]:
    """``catalog.schema.table``; a part may be double-quoted (``""`` is a quote)."""
    parts, part, quoted, i = [], "", False, 0
    while i < len(name):
        char = name[i]
        if quoted and char == '"' and name[i + 1 : i + 2] == '"':
            part += '"'
            i += 1
        elif char == '"':
            quoted = not quoted
        elif char == "." and not quoted:
            parts.append(part)
            part = ""
        else:
            part += char
        i += 1
    parts.append(part)
    return parts


_STRING_LIST = re.compile(r'\[\s+("[^"\n]*"(?:,\s+"[^"\n]*")*)\s+\]')


def _json(document: Mapping[str, Any]) -> str:
    """Indented JSON with lists of strings kept on one line (shorter, still valid)."""
    text = json.dumps(document, indent=2)
    return _STRING_LIST.sub(lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)


def glue_policies(identity: Identity, owner: str, region: str, database: str) -> str:
    """Both policy documents a cross-account Glue read needs, filled in."""
    resources = [
        f"arn:aws:glue:{region}:{owner}:catalog",
        f"arn:aws:glue:{region}:{owner}:database/{database}",
        f"arn:aws:glue:{region}:{owner}:table/{database}/*",
    ]
    owner_side = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": identity.principals()},
                "Action": GLUE_READ_ACTIONS,
                "Resource": resources,
            }
        ],
    }
    consumer_side = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": GLUE_READ_ACTIONS, "Resource": resources}],
    }
    roles = ", ".join(identity.principals())
    return (
        f"1) owner account {owner}: add to its Glue catalog resource policy "
        f"(aws glue put-resource-policy --region {region} --policy-in-json file://policy.json):\n"
        f"{_json(owner_side)}\n"
        f"2) consumer account {identity.account or '<your account>'}: attach to {roles}:\n"
        f"{_json(consumer_side)}"
    )


def s3_policies(identity: Identity, bucket: str, prefix: str, kms_key: Optional[str]) -> str:
    objects = f"arn:aws:s3:::{bucket}/{prefix}*"
    statements = [
        {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": f"arn:aws:s3:::{bucket}"},
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": objects},
    ]
    if prefix:
        statements[0]["Condition"] = {"StringLike": {"s3:prefix": [f"{prefix}*"]}}
    bucket_policy = {
        "Version": "2012-10-17",
        "Statement": [{**s, "Principal": {"AWS": identity.principals()}} for s in statements],
    }
    consumer = {"Version": "2012-10-17", "Statement": [dict(s) for s in statements]}
    if kms_key:
        consumer["Statement"].append(
            {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": kms_key}
        )
    roles = ", ".join(identity.principals())
    text = (
        f"1) bucket owner: add to the bucket policy of s3://{bucket} "
        f"(aws s3api get-bucket-policy --bucket {bucket}):\n{_json(bucket_policy)}\n"
        f"2) consumer account {identity.account or '<your account>'}: attach to "
        f"{roles}:\n{_json(consumer)}"
    )
    if kms_key:
        text += (
            f"\n3) the bucket uses SSE-KMS with key {kms_key}: its key policy (in the key owner's "
            f"account) must allow kms:Decrypt for {roles}."
        )
    return text


# ---- 1. registration --------------------------------------------------------------------
def check_registration(
    athena: Any, name: str, region: str, skipped: Sequence[str] = ()
) -> Tuple[Check, Optional[str]]:
    """PASS with the owner account id, or FAIL with the create/update-data-catalog line."""
    create = (
        f"aws athena create-data-catalog --region {region} --name {name.lower()} --type GLUE "
        "--parameters catalog-id=<12-digit owner account id>"
    )
    tail = f" ({len(skipped)} table check(s) skipped until this passes)" if skipped else ""
    catalog: Optional[Mapping[str, Any]] = None
    try:
        for spelling in dict.fromkeys([name.lower(), name]):
            catalog = athena.get_data_catalog(Name=spelling).get("DataCatalog") or None
            if catalog:
                break
    except Exception as exc:
        code = error_code(exc)
        if code in NOT_FOUND_CODES:
            catalog = None
        elif _is_denied(exc):
            return (
                Check(
                    FAIL,
                    "registration",
                    name,
                    f"athena:GetDataCatalog was denied ({_short(exc)}){tail}",
                    f"grant athena:GetDataCatalog on arn:aws:athena:{region}:<your "
                    "account>:datacatalog/"
                    f"{name.lower()} to the role in your dbt profile",
                ),
                None,
            )
        elif code in THROTTLING_CODES:
            return (
                Check(
                    FAIL,
                    "registration",
                    name,
                    f"athena:GetDataCatalog was throttled ({code}){tail}",
                    "raise num_retries / num_boto3_retries in the dbt profile and run the "
                    "doctor again",
                ),
                None,
            )
        elif code:
            return Check(
                FAIL,
                "registration",
                name,
                f"athena:GetDataCatalog failed ({_short(exc)}){tail}",
                "check the region and credentials of your dbt profile",
            ), None
        else:
            raise
    resolution = classify(name, catalog, default_catalog_id)
    if resolution.account_id:
        return (
            Check(
                PASS, "registration", name, f"GLUE data catalog, catalog-id {resolution.account_id}"
            ),
            resolution.account_id,
        )
    if catalog is None:
        fix = f"register the owner's Glue catalog: {create}"
    elif resolution.malformed:
        fix = (
            f"aws athena update-data-catalog --region {region} --name "
            f"{catalog.get('Name', name)} --type GLUE "
            "--parameters catalog-id=<12-digit owner account id>"
        )
    else:
        fix = (
            "Spark reads only GLUE catalogs; register the owner's Glue catalog under a GLUE "
            "catalog name "
            f"({create.replace('--name ' + name.lower(), '--name <new name>')}) and point the "
            "source's "
            "database at it"
        )
    if name != name.lower() and catalog is not None:
        fix += f"; note that Athena SQL lowercases catalog names, so prefer '{name.lower()}'"
    return Check(FAIL, "registration", name, resolution.reason + tail, fix), None


# ---- 2. Glue metadata -------------------------------------------------------------------
def check_metadata(
    glue: Any, ref: TableRef, owner: str, region: str, identity: Identity, databases: Dict[str, Any]
) -> Tuple[Check, Optional[Mapping[str, Any]]]:
    """glue:GetDatabase then glue:GetTable with CatalogId=<owner>."""
    subject = ref.name
    action = "glue:GetDatabase"
    try:
        key = f"{owner}/{ref.schema}"
        if key not in databases:
            try:
                glue.get_database(CatalogId=owner, Name=ref.schema)
                databases[key] = None
            except Exception as exc:
                databases[key] = exc
        if databases[key] is not None:
            raise databases[key]
        action = "glue:GetTable"
        table = glue.get_table(CatalogId=owner, DatabaseName=ref.schema, Name=ref.table)["Table"]
    except Exception as exc:
        code = error_code(exc)
        if not code:
            raise
        where = (
            f"database '{ref.schema}'"
            if action == "glue:GetDatabase"
            else f"table '{ref.schema}.{ref.table}'"
        )
        if _is_denied(exc):
            return (
                Check(
                    FAIL,
                    "metadata",
                    subject,
                    f"{action} on {where} in account {owner} was denied ({_short(exc)}); both "
                    "the owner's "
                    "Glue resource policy and your IAM policy must allow it",
                    glue_policies(identity, owner, region, ref.schema),
                ),
                None,
            )
        if code in GLUE_NOT_FOUND:
            listing = (
                "get-databases"
                if action == "glue:GetDatabase"
                else f"get-tables --database-name {ref.schema}"
            )
            return (
                Check(
                    FAIL,
                    "metadata",
                    subject,
                    f"{where} does not exist in the Glue catalog of account {owner} ({region})",
                    "check the source's schema/identifier, or list what exists: aws glue "
                    f"{listing} --catalog-id {owner} --region {region}",
                ),
                None,
            )
        return (
            Check(
                FAIL,
                "metadata",
                subject,
                f"{action} on {where} failed ({_short(exc)})",
                "retry; if it persists, check the region and the owner account id",
            ),
            None,
        )
    return Check(
        PASS, "metadata", subject, f"glue:GetDatabase and glue:GetTable work with CatalogId={owner}"
    ), table


# ---- 3. table format --------------------------------------------------------------------
def check_format(ref: TableRef, table: Mapping[str, Any]) -> Check:
    params = {str(k).lower(): str(v) for k, v in (table.get("Parameters") or {}).items()}
    table_type = params.get("table_type", "").upper()
    subject = ref.name
    if table.get("IsRegisteredWithLakeFormation") or table_type == "GOVERNED":
        return Check(
            WARN,
            "format",
            subject,
            "the table's location is governed by Lake Formation; Athena Spark (PySpark engine "
            "v3) has no "
            "Lake Formation support, so LF grants do not apply and the read fails or needs "
            "direct S3 access",
            "ask the owner to grant the Spark execution role direct (IAM + bucket policy) "
            "access, or to "
            "register the location in hybrid access mode; otherwise read it from a SQL model "
            "instead",
        )
    if table_type == "ICEBERG":
        return Check(
            WARN,
            "format",
            subject,
            "Iceberg table: the '<account>/<database>' separator path goes through the Hive "
            "Glue client, "
            "which does not load Iceberg tables",
            "read it through an Iceberg catalog configured for the owner account "
            "(spark.sql.catalog.<name>.glue.id=<owner account>) instead of "
            "spark_cross_account_catalog",
        )
    if str(table.get("TableType", "")).upper() == "VIRTUAL_VIEW":
        return Check(
            WARN,
            "format",
            subject,
            "this is an Athena/Glue view; Spark cannot expand Athena (Presto/Trino) view "
            "definitions",
            "read the view's underlying tables instead",
        )
    provider = (
        params.get("spark.sql.sources.provider")
        or params.get("classification")
        or (
            (table.get("StorageDescriptor") or {})
            .get("SerdeInfo", {})
            .get("SerializationLibrary", "")
        ).rsplit(".", 1)[-1]
    )
    if table_type in {"DELTA", "HUDI"} or provider.lower() in {"delta", "hudi"}:
        return Check(
            WARN,
            "format",
            subject,
            f"{(table_type or provider).title()} table: the Hive Glue client reads only its "
            "raw files",
            "configure the matching Spark catalog for the owner account, or read it from a "
            "SQL model",
        )
    return Check(
        PASS,
        "format",
        subject,
        f"Hive table ({provider or 'unknown format'}), readable through the separator",
    )


# ---- 4. S3 data -------------------------------------------------------------------------
def _kms_key(s3: Any, bucket: str) -> Tuple[Optional[str], str]:
    """(KMS key or 'aws/s3' when the bucket defaults to SSE-KMS, a note)."""
    try:
        rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"][
            "Rules"
        ]
    except Exception as exc:
        code = error_code(exc)
        if code == "ServerSideEncryptionConfigurationNotFoundError":
            return None, ""
        if not code:
            raise
        return None, (
            f"; the bucket's default encryption could not be read ({code}): if it uses SSE-KMS, "
            "kms:Decrypt on its key is needed too"
        )
    for rule in rules:
        default = rule.get("ApplyServerSideEncryptionByDefault") or {}
        if str(default.get("SSEAlgorithm", "")).startswith("aws:kms"):
            return default.get("KMSMasterKeyID") or "the AWS managed key aws/s3", ""
    return None, ""


def check_data(s3: Any, ref: TableRef, table: Mapping[str, Any], identity: Identity) -> Check:
    subject = ref.name
    location = str((table.get("StorageDescriptor") or {}).get("Location") or "")
    parsed = split_s3_uri(location)
    if not parsed:
        return Check(
            WARN,
            "data",
            subject,
            f"the table has no S3 location ({location or 'none'}), so its data cannot be checked",
            "ask the owner which location the table reads; Spark reads only s3:// locations",
        )
    bucket, prefix = parsed
    step = "s3:ListBucket"
    try:
        listing = s3.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=20)
        keys = [o["Key"] for o in listing.get("Contents", []) if not o["Key"].endswith("/")]
        if not keys:
            return Check(
                WARN,
                "data",
                subject,
                f"listing {location} works but it holds no files, so the read returns no rows",
                "check the table's StorageDescriptor.Location with the owner (aws glue get-table)",
            )
        step = "s3:GetObject"
        s3.get_object(Bucket=bucket, Key=keys[0], Range="bytes=0-0")["Body"].read()
    except Exception as exc:
        code = error_code(exc)
        if not code:
            raise
        if code in S3_NO_SUCH_BUCKET:
            return Check(
                FAIL,
                "data",
                subject,
                f"bucket '{bucket}' of {location} does not exist",
                "ask the owner to fix the table's location (aws glue update-table) or "
                "recreate the bucket",
            )
        if _is_denied(exc):
            kms_key, note = _kms_key(s3, bucket)
            what = (
                f"listing s3://{bucket}/{prefix}"
                if step == "s3:ListBucket"
                else f"reading s3://{bucket}/{keys[0]}"
            )
            kms = (
                f"; the bucket uses SSE-KMS ({kms_key}), so kms:Decrypt is needed too"
                if kms_key
                else note
            )
            return Check(
                FAIL,
                "data",
                subject,
                f"{what} was denied ({step}, {_short(exc)}) although the Glue metadata is "
                "readable: "
                f"bucket '{bucket}' needs its bucket policy and your IAM policy to allow it{kms}",
                s3_policies(identity, bucket, prefix, kms_key),
            )
        return Check(
            FAIL,
            "data",
            subject,
            f"{step} on {location} failed ({_short(exc)})",
            "retry; if it persists, check the bucket's region and policy",
        )
    kms_key, _ = _kms_key(s3, bucket)
    kms = f", SSE-KMS key {kms_key} decrypts" if kms_key else ""
    return Check(PASS, "data", subject, f"listed and read 1 byte of {location}{kms}")


# ---- 5. session properties and setup ------------------------------------------------------
def check_models(models: Iterable[ModelFacts]) -> List[Check]:
    """Session properties of each Python model (from its engine_config; no AWS call)."""
    rows: List[Check] = []
    lowered = {CATALOG_ID_PROPERTY, CATALOG_ID_PROPERTY[len("spark.hadoop.") :]}
    for model in models:
        found: List[Check] = []
        props = {str(k).strip(): v for k, v in (model.spark_properties or {}).items()}
        for key in [k for k in props if k.lower() in lowered]:
            found.append(
                Check(
                    FAIL,
                    "session",
                    model.unique_id,
                    f"engine_config SparkProperties sets {key}={props[key]}: that makes account "
                    f"{props[key]}'s Glue catalog the default for every read AND write of the "
                    "session, "
                    "so the model's own table would be created in the other account",
                    f"remove {key} from the model's engine_config and set "
                    "spark_cross_account_catalog: true; "
                    "sources in the other account are then read through their registered data "
                    "catalog",
                )
            )
        if (
            model.opted_in
            and SEPARATOR_PROPERTY in props
            and str(props[SEPARATOR_PROPERTY] or "") != SEPARATOR
        ):
            found.append(
                Check(
                    WARN,
                    "session",
                    model.unique_id,
                    f"engine_config overrides {SEPARATOR_PROPERTY} with "
                    f"{props[SEPARATOR_PROPERTY]!r}; the "
                    "generated `<account>/<database>` names need '/', so cross-account reads "
                    "hit the local catalog",
                    f"remove {SEPARATOR_PROPERTY} from the model's engine_config SparkProperties",
                )
            )
        if model.opted_in and not found:
            found.append(
                Check(
                    PASS,
                    "session",
                    model.unique_id,
                    "keeps the '/' separator; no glue.catalogid override",
                )
            )
        rows += found
    return rows


def check_setup(setup: Mapping[str, Any]) -> List[Check]:
    """The core self-checks (plugin, dispatch), FAIL when an opted-in model would hit them."""
    rows: List[Check] = []
    readers = list(setup.get("readers") or [])
    project = setup.get("project_name") or "<your project>"
    severity = FAIL if readers else WARN
    who = (
        f"{', '.join(readers)} read cross-account catalogs, so `dbt run` fails"
        if readers
        else "no selected opted-in model reads a cross-account catalog yet"
    )
    if not setup.get("plugin", True):
        rows.append(
            Check(
                severity,
                "setup",
                "plugin",
                f"the dbt-athena-cross-account Python plugin is not installed ({who})",
                "pip install dbt-athena-cross-account   (in the same virtualenv as dbt-athena)",
            )
        )
    winner = setup.get("dispatch_package")
    if winner is not None and winner != "dbt_athena_cross_account":
        rows.append(
            Check(
                severity,
                "setup",
                "dispatch",
                f"create_table_as dispatches to package '{winner}', so the cross-account "
                f"get_spark_df is never used ({who})",
                f"add to {project}/dbt_project.yml:\n"
                "dispatch:\n  - macro_namespace: athena\n"
                f"    search_order: ['{project}', 'dbt_athena_cross_account', 'dbt']",
            )
        )
    elif winner is not None:
        rows.append(
            Check(
                PASS, "setup", "dispatch", "create_table_as dispatches to dbt_athena_cross_account"
            )
        )
    if setup.get("plugin", True) and "plugin_version" in setup:
        rows.append(
            Check(
                PASS,
                "setup",
                "plugin",
                f"dbt-athena-cross-account {setup['plugin_version']} is installed",
            )
        )
    return rows


# ---- identity -----------------------------------------------------------------------------
def find_identity(sts: Any, athena: Any, work_group: Optional[str]) -> Tuple[Identity, List[Check]]:
    identity = Identity(work_group=work_group)
    rows: List[Check] = []
    try:
        caller = sts.get_caller_identity()
        identity.account, identity.arn = caller.get("Account"), caller.get("Arn")
        identity.principal = policy_principal(identity.arn)
    except Exception as exc:
        if not error_code(exc):
            raise
        rows.append(
            Check(
                WARN,
                "identity",
                "sts",
                f"sts:GetCallerIdentity failed ({_short(exc)}); policies below use placeholders",
                "check the credentials of your dbt profile (aws_profile_name / assume_role_arn)",
            )
        )
    if work_group:
        try:
            config = (athena.get_work_group(WorkGroup=work_group).get("WorkGroup") or {}).get(
                "Configuration"
            ) or {}
            identity.execution_role = config.get("ExecutionRole")
            if not identity.execution_role:
                rows.append(
                    Check(
                        WARN,
                        "identity",
                        work_group,
                        f"Spark work group '{work_group}' has no execution role, so Spark "
                        "sessions cannot start",
                        f"aws athena update-work-group --work-group {work_group} "
                        "--configuration-updates ExecutionRole=<role arn>",
                    )
                )
        except Exception as exc:
            if not error_code(exc):
                raise
            rows.append(
                Check(
                    WARN,
                    "identity",
                    work_group,
                    f"athena:GetWorkGroup on '{work_group}' failed ({_short(exc)}), so the "
                    "policies below "
                    "name only the dbt role, not Spark's execution role",
                    f"grant athena:GetWorkGroup on workgroup/{work_group} to the dbt role",
                )
            )
    return identity, rows


# ---- the whole run ------------------------------------------------------------------------
def parse_tables(tables: Iterable[Any]) -> List[TableRef]:
    """Strings ``catalog.schema.table`` or dicts ``{catalog, schema, table, models}``."""
    refs: Dict[str, TableRef] = {}
    for item in tables or []:
        if isinstance(item, Mapping):
            ref = TableRef(
                str(item["catalog"]),
                str(item["schema"]),
                str(item["table"]),
                tuple(item.get("models") or ()),
            )
        else:
            parts = split_table_name(str(item))
            if len(parts) != 3 or not all(p.strip() for p in parts):
                raise ValueError(
                    f"cross_account_doctor: table {item!r} is not 'catalog.schema.table'. "
                    'Fix: pass tables: ["partner_catalog.sales.orders"]'
                )
            ref = TableRef(*(p.strip() for p in parts))
        key = ref.name.lower()
        if key in refs:
            refs[key].models = tuple(dict.fromkeys(refs[key].models + ref.models))
        else:
            refs[key] = ref
    return list(refs.values())


def run_doctor(
    *,
    athena: Any,
    glue: Any,
    s3: Any,
    sts: Any,
    region: str,
    catalogs: Iterable[str] = (),
    tables: Iterable[Any] = (),
    models: Iterable[ModelFacts] = (),
    setup: Optional[Mapping[str, Any]] = None,
    work_group: Optional[str] = None,
) -> Tuple[Identity, List[Check]]:
    rows: List[Check] = check_setup(setup or {})
    model_list = list(models)
    rows += check_models(model_list)
    refs = [r for r in parse_tables(tables) if not is_local_catalog(r.catalog)]
    names: Dict[str, str] = {}
    for name in [*(str(c).strip() for c in catalogs or []), *(r.catalog for r in refs)]:
        if name and not is_local_catalog(name):
            names.setdefault(name.lower(), name)
    identity, identity_rows = find_identity(sts, athena, work_group)
    rows += identity_rows
    databases: Dict[str, Any] = {}
    for key, name in names.items():
        mine = [r for r in refs if r.catalog.lower() == key]
        check, owner = check_registration(athena, name, region, [r.name for r in mine])
        rows.append(check)
        if owner is None:
            continue
        for ref in mine:
            check, table = check_metadata(glue, ref, owner, region, identity, databases)
            rows.append(check)
            if table is None:
                continue
            rows.append(check_format(ref, table))
            if (
                str(table.get("TableType", "")).upper() != "VIRTUAL_VIEW"
            ):  # a view has no data of its own
                rows.append(check_data(s3, ref, table, identity))
    return identity, rows


def counts(rows: Iterable[Check]) -> Dict[str, int]:
    result = {PASS: 0, WARN: 0, FAIL: 0}
    for row in rows:
        result[row.status] += 1
    return result


def summary_line(rows: Iterable[Check]) -> str:
    n = counts(rows)
    return f"{n[PASS]} PASS, {n[WARN]} WARN, {n[FAIL]} FAIL"


def format_report(
    rows: Sequence[Check], identity: Optional[Identity] = None, region: str = ""
) -> str:
    """A fixed-width table; every WARN/FAIL row is followed by its indented fix."""
    lines = ["cross_account_doctor report"]
    if identity is not None:
        who = identity.arn or "<unknown caller>"
        lines.append(f"  checked as {who}{' in ' + region if region else ''}")
        if identity.work_group:
            role = identity.execution_role or "an execution role the doctor could not read"
            lines.append(
                f"  Spark work group '{identity.work_group}' runs as {role}; Spark reads with "
                "that role, "
                "so policies below name it too"
            )
    width_check = max([len("CHECK"), *(len(r.check) for r in rows)])
    width_subject = min(48, max([len("SUBJECT"), *(len(r.subject) for r in rows)]))
    header = f"{'STATUS':<6}  {'CHECK':<{width_check}}  {'SUBJECT':<{width_subject}}  REASON"
    lines += [header, "-" * len(header)]
    for row in rows:
        lines.append(
            f"{row.status:<6}  {row.check:<{width_check}}  {row.subject:<{width_subject}}  "
            f"{row.reason}"
        )
        if row.fix and row.status != PASS:
            fix_lines = row.fix.splitlines()
            lines.append(f"{'':<8}fix: {fix_lines[0]}")
            lines += [f"{'':<13}{line}" for line in fix_lines[1:]]
    lines.append(summary_line(rows))
    return "\n".join(lines)
