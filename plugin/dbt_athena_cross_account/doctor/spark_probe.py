"""The Spark probe's pure logic (nothing here calls AWS or imports dbt): group the checked
models by the Spark session they start, build the one calculation a session runs, and turn
what it printed into ``spark`` rows.

The calculation is the models' own read code: the ``get_spark_df`` block the package
generates (``_cross_account_get_spark_df``, passed in as text) with the read plans of the
group's models, followed by a loop that reads each cross-account table's schema and one
row (``limit(1)``) and prints one JSON line. It writes nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account import roles
from dbt_athena_cross_account.doctor.policies import glue_policies
from dbt_athena_cross_account.doctor.rows import Check, Identity
from dbt_athena_cross_account.errors import FAIL, PASS, WARN

KIND = "spark"
DEFAULT_TIMEOUT = (
    600  # seconds per session: its start, then its one calculation (one small job per table)
)
DEFAULT_MAX_SESSIONS = 4
MARKER = "dbt_athena_cross_account probe result: "


@dataclass
class ProbedTable:
    """One cross-account table a group reads: the report's name and the plan key to read."""

    subject: str  # catalog.schema.table, as the doctor's other rows name it
    key: str  # the relation string get_spark_df receives (a key of the read plan)
    account: str
    database: str
    role: Optional[Dict[str, Any]] = None  # read through this role (plan entry "role")
    entry: Optional[Dict[str, Any]] = None  # its plan entry (None: plan[key])


@dataclass
class SessionGroup:
    """Models whose sessions start with the same engine configuration: one probe session."""

    engine_config: Dict[str, Any]
    models: List[str] = field(default_factory=list)
    tables: Dict[str, ProbedTable] = field(default_factory=dict)  # subject.lower() -> table
    plan: Dict[str, Any] = field(default_factory=dict)  # merged read plans of the models

    @property
    def label(self) -> str:
        props = self.engine_config.get("SparkProperties") or {}
        iceberg = any("org.apache.iceberg" in str(v) for v in props.values())
        return f"session of {', '.join(self.models)} ({'with' if iceberg else 'without'} Iceberg classes)"


def config_key(engine_config: Mapping[str, Any]) -> str:
    return json.dumps(engine_config, sort_keys=True, default=str)


def group_models(models: Iterable[Mapping[str, Any]]) -> List[SessionGroup]:
    """``models``: ``{unique_id, engine_config, reads, plan}`` (``plan`` the model's read
    plan tables); one group per distinct engine configuration, in first-seen order. Only
    cross-account reads (a plan entry with an ``account``) are probed."""
    groups: Dict[str, SessionGroup] = {}
    for model in models:
        tables = _cross_account_tables(model.get("reads") or [], model.get("plan") or {})
        if not tables:
            continue
        key = config_key(model.get("engine_config") or {})
        group = groups.setdefault(key, SessionGroup(dict(model.get("engine_config") or {})))
        group.models.append(str(model["unique_id"]))
        for table in tables:
            group.tables.setdefault(table.subject.lower(), table)
            group.plan[table.key] = table.entry or model["plan"][table.key]
    return list(groups.values())


def _cross_account_tables(
    reads: Sequence[Mapping[str, Any]], plan: Mapping[str, Any]
) -> List[ProbedTable]:
    found = []
    for read in reads:
        key = next((k for k in read.get("keys") or [] if k in plan), None)
        entry = plan.get(key) if key is not None else None
        if key is not None and entry and entry.get("account"):
            subject = f"{read['catalog']}.{read['schema']}.{read['table']}"
            role = entry.get("role")
            if role:  # each role its own read: models may read one table through several
                through = f" through {role['role_arn']}" + (
                    f" (external id {role['external_id']!r})" if role.get("external_id") else ""
                )
                subject, key = subject + through, key + through
            found.append(
                ProbedTable(subject, key, str(entry["account"]), str(read["schema"]), role, entry)
            )
    return found


PROBE = """
# dbt_athena_cross_account: cross_account_doctor's Spark probe. It reads each table's schema
# and one row through the models' own read code above, and writes nothing.
_CROSS_ACCOUNT_TABLES = _cross_account_json.loads({plan})
_cross_account_probe = []
for _probe_key in _cross_account_json.loads({keys}):
    try:
        _probe_df = get_spark_df(_probe_key)
        _probe_rows = _probe_df.limit(1).collect()
        _probe_read = _CROSS_ACCOUNT_TABLES[_probe_key]
        _cross_account_probe.append({{
            "key": _probe_key, "ok": True, "columns": len(_probe_df.schema.fields),
            "rows": len(_probe_rows),
            "format": _cross_account_table(_probe_read)[1] if _probe_read.get("reads") else "hive",
        }})
    except Exception as _probe_error:
        _cross_account_probe.append({{
            "key": _probe_key, "ok": False, "type": type(_probe_error).__name__,
            "error": str(_probe_error)[:4000],
        }})
# reads through a role need iceberg-aws's AssumeRoleAwsClientFactory and the AWS SDK's STS
# client: does the session load them? (Class.forName through the session's JVM)
if any(_r.get("role") for _r in _CROSS_ACCOUNT_TABLES.values()):
    _probe_classes = {{}}
    for _probe_class in _cross_account_json.loads({classes}):
        try:
            _probe_jvm = spark._jvm
            _probe_loader = _probe_jvm.java.lang.Thread.currentThread().getContextClassLoader()
            _probe_jvm.java.lang.Class.forName(_probe_class, False, _probe_loader)
            _probe_classes[_probe_class] = None
        except Exception as _probe_error:
            _probe_classes[_probe_class] = type(_probe_error).__name__ + ": " + str(_probe_error)[:600]
    _cross_account_probe.append({{"key": {classes_key!r}, "ok": True, "classes": _probe_classes}})
print({marker!r} + _cross_account_json.dumps(_cross_account_probe))
"""
#: The probe's result entry for the class check (no plan key looks like this).
CLASSES_KEY = "<classes>"
ROLE_CLASSES = [roles.ASSUME_ROLE_FACTORY, roles.STS_CLIENT_CLASS]


def calculation_code(read_code: str, group: SessionGroup) -> str:
    """The one calculation of ``group``'s session: the generated read code (rendered with
    an empty plan; the group's merged plan replaces it), then the probe loop."""
    keys = [table.key for table in group.tables.values()]
    probe = PROBE.format(
        plan=json.dumps(json.dumps(group.plan)),
        keys=json.dumps(json.dumps(keys)),
        marker=MARKER,
        classes=json.dumps(json.dumps(ROLE_CLASSES)),
        classes_key=CLASSES_KEY,
    )
    # the block subclasses dbt's dbtObj, which only a model's code defines
    return "dbtObj = object\n" + read_code + "\n" + probe


def parse_output(stdout: str) -> Optional[Dict[str, Dict[str, Any]]]:
    """{plan key: result} from the calculation's stdout; None when it printed no result."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            return {r["key"]: r for r in json.loads(line[len(MARKER) :])}
    return None


# ---- rows --------------------------------------------------------------------------------
PASSED = "read as the execution role {role}: {fmt} table, {columns} column(s), {rows} row(s) read (limit 1)"
FAILED = "Spark, as the execution role {role}: {reason}"
GLUE_DENIED = "Glue denied the work group's execution role"
S3_DENIED = re.compile(r"(AccessDenied|Access Denied|403 Forbidden|Status Code: 403)")
NO_ICEBERG = "has no Iceberg classes"
S3_FIX = (
    "allow the execution role {role} to read the table's files: s3:ListBucket and s3:GetObject "
    "in the bucket policy of the table's location and in the role's IAM policy, and kms:Decrypt "
    "in the key policy when the bucket uses SSE-KMS (the data row prints these statements for "
    "your dbt role: add the execution role to them)"
)
OTHER_FIX = "read the Spark error above; the exact code the probe ran is what the models run"
NO_RESULT = "the probe calculation {state}{why}"
TIMED_OUT = "the probe session did not finish within {timeout} s (spark_timeout) and was terminated"
TIMEOUT_FIX = "raise spark_timeout, or look at the session in the Athena console ({session})"
NOT_PROBED = "not probed: {count} session configuration(s) found, spark_max_sessions is {cap}"
NOT_PROBED_FIX = (
    "pass a higher spark_max_sessions, e.g. --args '{{spark: true, spark_max_sessions: {count}}}'"
)


def _split(message: str) -> Tuple[str, str]:
    """(reason, fix) of a generated-code message: its text before ``Fix:`` / ``Run `dbt``."""
    text = message.replace("dbt_athena_cross_account: ", "", 1).split("\nSpark: ")[0]
    fix = ""
    if " Fix: " in text:
        text, fix = text.split(" Fix: ", 1)
        fix = fix.split(" Run `dbt run-operation")[0].strip()
    text = text.split(" Run `dbt run-operation")[0].strip()
    return text, fix


def _role(identity: Identity) -> str:
    return identity.execution_role or "<the work group's execution role>"


THROUGH = "the role {arn}, assumed by the execution role {role}"
TRUST_FIX = "STS answers each of these causes alike, so check them all: the role {arn} exists in account {account} (a typo in the ARN is refused alike); your execution role's IAM policy allows sts:AssumeRole on {arn}; {external}; and the trust policy of {arn} has this statement (the owner adds it{keep}):\n{policy}"
TRUST_KEEP_CONDITION = (
    ", with its sts:ExternalId condition: never remove the condition, it protects the owner"
)
EXTERNAL_ID_SET = "the external id {external_id!r} that the model sends is the one the owner's trust policy requires"
EXTERNAL_ID_UNSET = "the model sends no external id: if the trust policy has an sts:ExternalId condition, keep it and set that external id in spark_cross_account_roles ({{{catalog}: {{role_arn: ..., external_id: ...}}}})"
CLASS_LOADS = "{name} loads in the {label} (Class.forName through the session's JVM): reads through a role can use it"
CLASS_MISSING = "{name} does not load in the {label}, so reads through a role (spark_cross_account_roles) fail there: {error}"
CLASS_FIX = "ask the owner to grant the execution role the tables directly (Glue resource policy and bucket policy) and map their catalogs to null in spark_cross_account_roles"


def _as(table: ProbedTable, identity: Identity) -> str:
    """Who the probe read ``table`` as, for its row."""
    if table.role:
        return THROUGH.format(arn=table.role.get("role_arn"), role=_role(identity))
    return "the execution role " + _role(identity)


def class_rows(group: SessionGroup, results: Optional[Mapping[str, Any]]) -> List[Check]:
    """One row per class the role path needs, when the group reads through a role."""
    found = (results or {}).get(CLASSES_KEY)
    if not found:
        return []
    rows = []
    for name, error in (found.get("classes") or {}).items():
        if error is None:
            rows.append(Check(PASS, KIND, name, CLASS_LOADS.format(name=name, label=group.label)))
        else:
            reason = CLASS_MISSING.format(name=name, label=group.label, error=error)
            rows.append(Check(FAIL, KIND, name, reason, CLASS_FIX))
    return rows


def failure(error: str, table: ProbedTable, identity: Identity, region: str) -> Tuple[str, str]:
    """(reason, fix) for one table's read error, mapped as the generated code mapped it."""
    role = _role(identity)
    reason, fix = _split(error)
    if table.role:  # read through the owner's role: its errors say what to do
        if any(m in error for m in roles.REFUSED_MARKERS):
            arn = str(table.role.get("role_arn"))
            external_id = table.role.get("external_id")
            policy = json.dumps(roles.trust_policy(role, external_id), indent=2)
            external = (
                EXTERNAL_ID_SET.format(external_id=external_id)
                if external_id
                else EXTERNAL_ID_UNSET.format(catalog=table.subject.split(".", 1)[0])
            )
            keep = TRUST_KEEP_CONDITION if external_id else ""
            fix = TRUST_FIX.format(
                account=table.account, arn=arn, policy=policy, external=external, keep=keep
            )
        return f"Spark, through {_as(table, identity)}: {reason}", fix or OTHER_FIX
    if GLUE_DENIED in error:
        as_role = Identity(account=identity.account, execution_role=identity.execution_role)
        fix = glue_policies(as_role, table.account, region, table.database)
    elif NO_ICEBERG in error:
        pass  # the message's own fix: table_type: iceberg, or Iceberg's Spark properties
    elif S3_DENIED.search(error):
        fix = S3_FIX.format(role=role)
    elif not fix:
        fix = OTHER_FIX
    return FAILED.format(role=role, reason=reason), fix


def table_rows(
    group: SessionGroup,
    results: Optional[Mapping[str, Mapping[str, Any]]],
    identity: Identity,
    region: str,
    problem: Optional[Tuple[str, str]] = None,
) -> List[Check]:
    """One ``spark`` row per table of ``group``; ``problem`` (reason, fix) fails them all
    (the session did not start, the calculation failed or timed out)."""
    role = _role(identity)
    rows = []
    for table in group.tables.values():
        result = (results or {}).get(table.key)
        if problem is not None or result is None:
            reason, fix = problem or (
                NO_RESULT.format(state="printed no result", why=""),
                OTHER_FIX,
            )
            rows.append(Check(FAIL, KIND, table.subject, reason, fix))
        elif result.get("ok"):
            reason = PASSED.format(
                role=role,
                fmt=result.get("format"),
                columns=result.get("columns"),
                rows=result.get("rows"),
            )
            if table.role:
                reason = reason.replace(
                    "as the execution role " + role, "through " + _as(table, identity)
                )
            rows.append(Check(PASS, KIND, table.subject, reason))
        else:
            reason, fix = failure(str(result.get("error")), table, identity, region)
            rows.append(Check(FAIL, KIND, table.subject, reason, fix))
    return rows + class_rows(group, results)


def name_sessions(groups: Sequence[SessionGroup], rows: Sequence[List[Check]]) -> List[Check]:
    """The rows of every group, in order; a table read in more than one session (e.g. an
    Iceberg table read by an Iceberg model and by a Hive model) gets its session named in
    the reason, so its rows can be told apart."""
    seen: Dict[str, int] = {}
    for group in groups:
        for key in group.tables:
            seen[key] = seen.get(key, 0) + 1
    named = []
    for group, group_rows in zip(groups, rows):
        for row in group_rows:
            if seen.get(row.subject.lower(), 0) > 1:
                row = Check(
                    row.status,
                    row.kind,
                    row.subject,
                    f"{row.reason} [in the {group.label}]",
                    row.fix,
                )
            named.append(row)
    return named


def not_probed_rows(groups: Sequence[SessionGroup], count: int, cap: int) -> List[Check]:
    """A WARN per configuration beyond the session cap, naming its models."""
    return [
        Check(
            WARN,
            KIND,
            group.label,
            NOT_PROBED.format(count=count, cap=cap),
            NOT_PROBED_FIX.format(count=count),
        )
        for group in groups
    ]


REQUESTED = "TERMINATE REQUESTED"  # Athena accepted TerminateSession; its state was not read
NOT_TERMINATED = "NOT TERMINATED"  # TerminateSession failed and GetSession did not answer
ENDED_STATES = {"TERMINATED", "TERMINATING", "FAILED"}


@dataclass
class SessionFacts:
    """What one probe session cost: shown in the report."""

    label: str
    session_id: Optional[str]
    state: str  # GetSession's state, or REQUESTED / NOT_TERMINATED with why
    wall_seconds: float
    dpu_millis: Optional[int]

    @property
    def ended(self) -> bool:
        """Athena said so (GetSession), the session no longer runs."""
        return self.state in ENDED_STATES


def session_lines(sessions: Sequence[SessionFacts], work_group: str, elapsed: float) -> List[str]:
    """The report's lines about the sessions the probe started (``elapsed``: the probe's
    wall time; its sessions run at once). The summary says "all terminated" only when
    Athena said so for each; it never calls a session terminated that the lines do not."""
    if not sessions:
        return []
    known = [s.dpu_millis for s in sessions if s.dpu_millis is not None]
    dpu = f"{sum(known) / 1000:.1f} DPU-seconds" if known else "DPU time not reported"
    requested = [s.session_id or "-" for s in sessions if s.state.startswith(REQUESTED)]
    left = [
        s.session_id or "-" for s in sessions if not s.ended and not s.state.startswith(REQUESTED)
    ]
    ended = []
    if left:
        ended.append(f"NOT terminated: {', '.join(left)}")
    if requested:
        ended.append(f"termination requested, not confirmed: {', '.join(requested)}")
    lines = [
        f"  Spark probe: {len(sessions)} session(s) started in work group '{work_group}', "
        f"{elapsed:.1f} s wall time, {dpu} "
        f"(Athena's DpuExecutionInMillis); {'; '.join(ended) or 'all terminated'}"
    ]
    for s in sessions:
        dpu_one = (
            f"{s.dpu_millis} ms DPU time" if s.dpu_millis is not None else "DPU time not reported"
        )
        lines.append(
            f"    {s.session_id or '-'}: {s.label}: {s.state}, {s.wall_seconds:.1f} s, {dpu_one}"
        )
    return lines
