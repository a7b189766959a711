"""Generate the dbt projects the benchmarks run, and run dbt on them.

One project per (variant, N models, opted in or not), written once into a temp dir and
reused by every run of that shape (its partial-parse state stays warm):

* ``product``: this repository as a dbt package plus the ``athena`` dispatch entry, so
  opted-in models call ``adapter.get_spark_cross_account_catalog_map(<referenced>)``.
* ``list_all``: the list-all design, as a root-project ``athena__create_table_as`` (dispatch
  ``['bench', 'dbt']``, no package, so no package self-check): every opted-in model asks for
  the map of *every* GLUE catalog, built from athena:ListDataCatalogs plus one
  athena:GetDataCatalog per catalog and cached per adapter (the plugin's no-argument
  method), and gets the map-based ``get_spark_df`` text that design used
  (``bench/list_all_get_spark_df.sql`` copied into the project).
* ``stock``: stock dbt-athena, no package and no dispatch entry (reads the wrong account).

``list_all`` and ``stock`` models get the ``/`` separator through ``engine_config`` (as stock
sets it for ``spark_cross_account_catalog``) but do not set that flag: the plugin stops any
model that sets it and reaches job submission without the package's read plan.

Every model is a Python table that reads ``source('partner', 'orders')`` from the one
referenced cross-account catalog ``REFERENCED_CATALOG``.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import yaml

from athena_spark_emulator.profile import athena_target  # one profile shape for tests and bench

REPO_ROOT = Path(__file__).resolve().parents[1]

VARIANTS = ("product", "list_all", "stock")
REFERENCED_CATALOG = "partner_catalog"
PARTNER_ACCOUNT = "999999999999"

MODEL = """def model(dbt, spark):
    dbt.config(materialized="table")
    return dbt.source("partner", "orders")
"""

# The list-all design, as a root-project dispatch override: every opted-in Python model
# asks for the map of every GLUE catalog (cached per adapter, i.e. once per run).
LIST_ALL_CREATE_TABLE_AS = """
{% macro athena__create_table_as(temporary, relation, compiled_code, language='sql',
                                 skip_partitioning=false) -%}
  {%- set stock = dbt.athena__create_table_as(temporary, relation, compiled_code, language,
                                              skip_partitioning) -%}
  {%- if language == 'python' and config.get('bench_list_all', false) -%}
    {%- set catalog_map = adapter.get_spark_cross_account_catalog_map() -%}
    {%- set block = cross_account_get_spark_df(catalog_map) | string -%}
    {{- return((stock | string).replace(dbt.athena__py_get_spark_dbt_object() | string, block)) -}}
  {%- endif -%}
  {{- return(stock) -}}
{%- endmacro %}
"""


def _opt_in(variant: str, opted_in: bool) -> Dict[str, object]:
    """How a variant's models opt in. The product: spark_cross_account_catalog. The other two
    are not the package, so they must not say spark_cross_account_catalog: the plugin would
    (rightly) refuse to submit an opted-in model without the package's read plan. They get
    the separator as stock sets it for that flag, and list_all its own switch."""
    if variant == "product":
        return {"+spark_cross_account_catalog": opted_in}
    if not opted_in:
        return {}
    separator = {"SparkProperties": {"spark.hadoop.aws.glue.catalog.separator": "/"}}
    return {
        "+engine_config": separator,
        **({"+bench_list_all": True} if variant == "list_all" else {}),
    }


def write_project(root: Path, variant: str, n_models: int, opted_in: bool = True) -> Path:
    """Write one project (idempotent: an existing one is reused) and return its directory."""
    assert variant in VARIANTS, variant
    name = f"{variant}_n{n_models}" + ("" if opted_in else "_off")
    project = root / name
    if (project / "dbt_project.yml").exists():
        return project
    (project / "models").mkdir(parents=True)
    config: Dict[str, object] = {
        "name": "bench",
        "version": "1.0.0",
        "config-version": 2,
        "profile": "bench",
        "models": {"bench": {"+s3_data_naming": "schema_table", **_opt_in(variant, opted_in)}},
    }
    if variant == "product":
        config["dispatch"] = [
            {
                "macro_namespace": "athena",
                "search_order": ["bench", "dbt_athena_cross_account", "dbt"],
            }
        ]
        (project / "packages.yml").write_text(
            yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]})
        )
    if variant == "list_all":
        config["dispatch"] = [{"macro_namespace": "athena", "search_order": ["bench", "dbt"]}]
        (project / "macros").mkdir()
        (project / "macros" / "athena__create_table_as.sql").write_text(LIST_ALL_CREATE_TABLE_AS)
        get_spark_df = Path(__file__).parent / "list_all_get_spark_df.sql"
        (project / "macros" / get_spark_df.name).write_text(get_spark_df.read_text())
    (project / "dbt_project.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    target = athena_target(schema=f"bench_{name}")
    (project / "profiles.yml").write_text(
        yaml.safe_dump({"bench": {"target": "emulator", "outputs": {"emulator": target}}})
    )
    sources = {
        "version": 2,
        "sources": [
            {
                "name": "partner",
                "database": REFERENCED_CATALOG,
                "schema": "sales",
                "tables": [{"name": "orders"}],
            }
        ],
    }
    (project / "models" / "sources.yml").write_text(yaml.safe_dump(sources))
    for i in range(n_models):
        (project / "models" / f"m_{i:04d}.py").write_text(MODEL)
    if variant == "product":
        dbt_in_process(["deps"], project)
    return project


def _common_args(project: Path) -> List[str]:
    return [
        "--project-dir",
        str(project),
        "--profiles-dir",
        str(project),
        "--log-path",
        str(project / "logs"),
        "--log-level-file",
        "none",
        "--no-write-json",
        "--quiet",
    ]


def dbt_in_process(args: List[str], project: Path) -> float:
    """Run dbt through dbtRunner in this process; raise on failure; return wall seconds."""
    from dbt.cli.main import dbtRunner

    start = time.perf_counter()
    result = dbtRunner().invoke([*args, *_common_args(project)])
    elapsed = time.perf_counter() - start
    if not result.success:
        raise RuntimeError(
            f"dbt {' '.join(args)} failed in {project}: {result.exception or result.result}"
        )
    return elapsed


def dbt_subprocess(
    args: List[str], project: Path, python: Optional[Path] = None
) -> Tuple[float, float]:
    """Run dbt as a user does, in a fresh process; raise on failure.

    Returns (wall seconds, CPU seconds of the child: user + system).
    """
    command = [str(python or sys.executable), "-m", "dbt.cli.main", *args, *_common_args(project)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=project, env=dict(os.environ), capture_output=True, text=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu
