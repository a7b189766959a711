"""Fail closed at the last step: an opted-in model's code without the read plan never runs.

Every Python model dbt-athena runs passes through ``AthenaAdapter.submit_python_job``. The
plugin wraps it (``_patch.install``); the wrapper asks :func:`refusal` first. A model that
opts in and reads refs or sources, but whose code lacks this package's read plan (a root
``create_table_as`` override, a bare-name call, another package's override, a
materialization that renders dbt-athena's macro itself), is stopped there, before any Spark
session starts. Every other model is submitted as it came, with no extra call.

"This package's read plan" is the exact block the package rendered for that model in this
invocation: the package records each block it renders (:func:`rendered`, through
``adapter.record_spark_cross_account_block``) and the code submitted must carry one of
them, outside the model's own code, with no other ``get_spark_df`` or ``SparkdbtObj``
defined after it. A text found anywhere in the code (a comment in the model file, a copy of
an old block) is not enough. Pure; no dbt.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Optional

from dbt_athena_cross_account.flags import FLAG, opted_in
from dbt_athena_cross_account.overrides import Verdict

#: What the package's _cross_account_get_spark_df emits, and no stock code contains.
READ_PLAN_MARKER = "_CROSS_ACCOUNT_TABLES = _cross_account_json.loads("
#: Definitions that, after the block, would replace the package's reader (the last one wins).
REDEFINITIONS = ("def get_spark_df(", "class SparkdbtObj(")
_HEAD = 80  # characters of a block kept to find where it starts in the submitted code


@dataclass(frozen=True)
class RenderedBlock:
    """What the guard keeps of one block the package rendered: its digest, length and start."""

    digest: str
    length: int
    head: str


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rendered(block: str) -> RenderedBlock:
    """The record of ``block``, the get_spark_df block the package rendered for a model."""
    return RenderedBlock(_digest(block), len(block), block[:_HEAD])


def carries_block(code: str, model_code: str, blocks: Iterable[RenderedBlock]) -> bool:
    """True when ``code`` holds one of ``blocks`` exactly, outside ``model_code`` (the model's
    own compiled code, which the user writes), and nothing after it defines get_spark_df or
    SparkdbtObj again."""
    rest = code.replace(model_code, "", 1) if model_code and model_code.strip() else code
    for block in blocks:
        start = rest.find(block.head)
        while start != -1:
            end = start + block.length
            if _digest(rest[start:end]) == block.digest:
                after = rest[end:]
                return not any(d in after for d in REDEFINITIONS)
            start = rest.find(block.head, start + 1)
    return False


NO_READ_PLAN = "dbt_athena_cross_account: model '{model}' opts in with spark_cross_account_catalog: true and reads refs or sources, but its Python code reached dbt-athena's job submission without this package's read plan, so Spark would read the local account: it was not submitted. {why}. Fix: {fix}."
UNKNOWN_WHY = "No project macro named create_table_as or athena__create_table_as was found on the way, so a materialization or another macro renders the code itself"
UNKNOWN_FIX = "build the model's code through adapter.dispatch('create_table_as', 'athena') or dbt_athena_cross_account.athena__create_table_as(...), or remove spark_cross_account_catalog from the model"


def needs_read_plan(parsed_model: Mapping[str, Any]) -> bool:
    """True for a Python model that opts in and reads a ref or source."""
    config = parsed_model.get("config") or {}
    model = str(parsed_model.get("unique_id") or parsed_model.get("alias"))
    get = getattr(config, "get", None)
    flag = get(FLAG) if callable(get) else None
    if not opted_in(model, flag):
        return False
    return bool(parsed_model.get("refs") or parsed_model.get("sources"))


def refusal(
    parsed_model: Mapping[str, Any],
    code: str,
    verdict: Callable[[str], Optional[Verdict]],
    blocks: Iterable[RenderedBlock] = (),
) -> Optional[str]:
    """The error to raise instead of submitting ``code``; None: submit it.

    ``blocks`` are the blocks the package rendered for this model in this invocation.
    ``verdict(package)`` says which macro bypassed the package for models of that package
    (None when it cannot tell); it is called only for a model that is refused.
    """
    # dbt-athena's materializations also submit an empty 'main' statement, which it skips
    if not code.strip() or not needs_read_plan(parsed_model):
        return None
    if carries_block(code, str(parsed_model.get("compiled_code") or ""), blocks):
        return None
    found = verdict(str(parsed_model.get("package_name") or ""))
    why, fix = UNKNOWN_WHY, UNKNOWN_FIX
    if found is not None and found.bypass is not None:
        why, fix = found.reason[0].upper() + found.reason[1:], found.fix
    elif found is not None and found.winner is not None:
        why = found.reason + ", not to dbt_athena_cross_account"
        fix = "add the athena dispatch entry with dbt_athena_cross_account before 'dbt' (the README's Quick start)"
    model = parsed_model.get("unique_id") or parsed_model.get("alias")
    return NO_READ_PLAN.format(model=model, why=why, fix=fix)
