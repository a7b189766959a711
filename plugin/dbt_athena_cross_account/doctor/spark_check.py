"""``cross_account_doctor --args '{spark: true}'``: the Spark probe, from the dbt side.

Each checked model's read plan is the one its run builds (``get_spark_cross_account_read_plan``
over the refs and sources dbt resolved), and its session's engine configuration is the
one dbt-athena starts (``AthenaSparkSessionConfig.set_engine_config``: table_type's
properties, the ``/`` separator for opted-in models, engine_config on top). Models with
the same configuration share one probe session (``spark_probe.group_models``).
"""

from __future__ import annotations

import copy
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from dbt_athena_cross_account.doctor.rows import Check, Identity
from dbt_athena_cross_account.doctor.spark_probe import (
    DEFAULT_MAX_SESSIONS,
    DEFAULT_TIMEOUT,
    KIND,
    group_models,
    not_probed_rows,
    session_lines,
)
from dbt_athena_cross_account.errors import FAIL

NO_PLAN = "the model's read plan could not be built, so the probe cannot read its tables: {error}"
NO_PLAN_FIX = (
    "the registration and metadata rows above say what to fix; `dbt compile` shows the same error"
)
NO_ENGINE = "dbt-athena refuses the model's session configuration: {error}"
NO_ENGINE_FIX = "correct the model's engine_config (keys: CoordinatorDpuSize, MaxConcurrentDpus, DefaultExecutorDpuSize, SparkProperties, AdditionalConfigs)"
BAD_ARGUMENT = "cross_account_doctor: {name} must be a positive integer, got {value!r}"


def engine_config(session_config: Mapping[str, Any]) -> Dict[str, Any]:
    """The EngineConfiguration dbt-athena starts the model's session with."""
    from dbt.adapters.athena.config import AthenaSparkSessionConfig

    config = copy.deepcopy({k: v for k, v in session_config.items() if v is not None})
    return dict(AthenaSparkSessionConfig(config).set_engine_config())


def _positive(name: str, value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ValueError(BAD_ARGUMENT.format(name=name, value=value))
    return int(value)


def plan_models(
    adapter: Any, models: Sequence[Mapping[str, Any]]
) -> Tuple[List[Dict[str, Any]], List[Check]]:
    """([{unique_id, engine_config, reads, plan}], FAIL rows of models that cannot be probed)."""
    from dbt_athena_cross_account._adapter import get_spark_cross_account_read_plan

    planned, rows = [], []
    for model in models:
        if not model.get("reads"):
            continue
        uid = str(model.get("unique_id"))
        try:
            plan = get_spark_cross_account_read_plan(
                adapter,
                uid,
                model["reads"],
                model.get("fallback"),
                model.get("database"),
                owner_roles=model.get("roles"),
            )
        except Exception as exc:  # a compile error the run would raise too
            rows.append(Check(FAIL, KIND, uid, NO_PLAN.format(error=str(exc).strip()), NO_PLAN_FIX))
            continue
        try:
            engine = engine_config(model.get("session_config") or {})
        except (KeyError, TypeError, ValueError) as exc:
            rows.append(Check(FAIL, KIND, uid, NO_ENGINE.format(error=exc), NO_ENGINE_FIX))
            continue
        planned.append({**model, "unique_id": uid, "engine_config": engine, "plan": plan["tables"]})
    return planned, rows


def check_spark(
    adapter: Any,
    probe_args: Mapping[str, Any],
    models: Sequence[Mapping[str, Any]],
    identity: Identity,
    region: str,
    clients: Mapping[str, Any],
    work_group: Optional[str],
) -> Tuple[List[Check], List[str]]:
    """The probe's ``spark`` rows and the report's lines about its sessions."""
    from dbt_athena_cross_account.doctor.spark_run import Probe, no_work_group_rows, probe_groups

    timeout = _positive("spark_timeout", probe_args.get("timeout"), DEFAULT_TIMEOUT)
    cap = _positive("spark_max_sessions", probe_args.get("max_sessions"), DEFAULT_MAX_SESSIONS)
    planned, rows = plan_models(adapter, models)
    groups = group_models(planned)
    if not work_group:
        return rows + no_work_group_rows(groups), []
    probed, skipped = groups[:cap], groups[cap:]
    probe = Probe(clients["athena"], clients["s3"], work_group, timeout)
    begun = time.monotonic()
    rows += probe_groups(probe, probed, str(probe_args.get("read_code") or ""), identity, region)
    rows += not_probed_rows(skipped, len(groups), cap)
    return rows, session_lines(probe.facts, work_group, time.monotonic() - begun)
