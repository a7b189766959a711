"""Register the plugin's methods on AthenaAdapter as ``@available``, and guard its Python
job submission (``guard.py``). Idempotent: dbtRunner may import and install many times."""

from __future__ import annotations

from typing import Any

from dbt_athena_cross_account._adapter import MARKER, METHODS, guarded_submit


def install(adapter_cls: Any) -> bool:
    """Add METHODS and the submission guard to ``adapter_cls``; False when already ours.

    A method of the same name that dbt-athena itself defines is replaced: ours is a
    superset (with no argument it returns the map of every GLUE catalog that a dbt-athena
    feature request proposed for this method name).
    """
    submit = adapter_cls.submit_python_job
    if getattr(submit, MARKER, False) and all(
        getattr(adapter_cls.__dict__.get(name), MARKER, False) for name in METHODS
    ):
        return False
    if not getattr(submit, MARKER, False):
        adapter_cls.submit_python_job = guarded_submit(submit)
    for name, (fn, _stub) in METHODS.items():
        setattr(adapter_cls, name, fn)
    adapter_cls._available_ = frozenset(adapter_cls._available_) | set(METHODS)
    adapter_cls._parse_replacements_ = {
        **adapter_cls._parse_replacements_,
        **{name: stub for name, (_fn, stub) in METHODS.items()},
    }
    return True
