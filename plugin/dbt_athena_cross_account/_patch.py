"""Register the plugin's methods on AthenaAdapter as ``@available``, and guard its Python
job submission (``guard.py``). Idempotent: dbtRunner may import and install many times."""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

from dbt_athena_cross_account import _adapter
from dbt_athena_cross_account._adapter import MARKER, guarded_submit
from dbt_athena_cross_account.doctor.adapter_method import parse_stub as _doctor_stub
from dbt_athena_cross_account.doctor.adapter_method import run_cross_account_doctor

# name -> (function, parse-time stub). The stubs keep `dbt parse` free of AWS calls.
# The table lives here, where the plugin is put together, so that the adapter core
# (_adapter.py) never imports the doctor, which builds on it.
METHODS: Dict[str, Tuple[Callable[..., Any], Callable[..., Any]]] = {
    "get_spark_cross_account_catalog_map": (
        _adapter.get_spark_cross_account_catalog_map,
        lambda *a, **k: {},
    ),
    "get_spark_cross_account_catalog_info": (
        _adapter.get_spark_cross_account_catalog_info,
        lambda *a, **k: {},
    ),
    "get_spark_cross_account_read_plan": (
        _adapter.get_spark_cross_account_read_plan,
        lambda *a, **k: {"tables": {}, "warnings": []},
    ),
    "get_spark_cross_account_roles": (
        _adapter.get_spark_cross_account_roles,
        lambda *a, **k: k.get("value", a[-1] if len(a) > 1 else None),
    ),
    "write_spark_cross_account_code": (_adapter.write_spark_cross_account_code, lambda *a, **k: ""),
    "record_spark_cross_account_block": (
        _adapter.record_spark_cross_account_block,
        lambda *a, **k: str(k.get("block", a[-1] if a else "")),
    ),
    "get_spark_cross_account_fixes": (_adapter.get_spark_cross_account_fixes, lambda *a, **k: {}),
    "get_spark_cross_account_versions": (
        _adapter.get_spark_cross_account_versions,
        lambda *a, **k: {},
    ),
    "get_spark_cross_account_dispatch_order": (
        _adapter.get_spark_cross_account_dispatch_order,
        lambda *a, **k: [],
    ),
    "get_spark_cross_account_setup": (_adapter.get_spark_cross_account_setup, lambda *a, **k: {}),
    "run_cross_account_doctor": (run_cross_account_doctor, _doctor_stub),
}
for _fn, _ in METHODS.values():
    setattr(_fn, MARKER, True)


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
