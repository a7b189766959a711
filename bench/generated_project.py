"""Generate a dbt-athena project shaped like a real one, with its emulator seed file.

``write(root, n_sql, n_python)`` writes ``root/generated/`` (dbt_project.yml, profiles.yml,
packages.yml, models, tests) and ``root/generated/seed.yml`` (two partners' GLUE catalogs
and the local raw data, in the format of ``athena-spark-emulator run --seed``):

* staging: SQL models on ``source('raw', 'customers')``, tables and views alternating;
* Python: the first half opted in (``spark_cross_account_catalog: true``) and joining the
  partner's orders and the supplier's products (two owner accounts' catalogs) with a SQL
  staging *table*; the rest not opted in, reading a SQL staging table only (Athena for
  Spark cannot read views made by Athena SQL, so every SQL model a Python model reads is
  ``materialized='table'``);
* intermediate: SQL models on the Python models' tables, views and tables alternating;
* marts: SQL models joining two intermediate models, views and tables alternating;
* data tests: ``not_null`` and ``unique`` on some models, ``accepted_values`` on a
  staging model, one singular test.

Layers are at least one model each, so the smallest (3 SQL models: a staging table, an
intermediate table, a mart view; 1 opted-in Python model) has every kind.

The full bench uses 40 SQL and 10 Python models; the smoke test a small one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import yaml

from athena_spark_emulator.profile import athena_target

REPO_ROOT = Path(__file__).resolve().parents[1]
SCHEMA = "bench_generated"
PARTNER, SUPPLIER = "999999999999", "777777777777"
COUNTRIES = ("DE", "FR", "US", "IT", "ES")
N_CUSTOMERS, N_ORDERS, N_SKUS = 50, 2000, 20


def layers(n_sql: int, n_python: int) -> Tuple[int, int, int]:
    """How many staging, intermediate and mart SQL models ``n_sql`` splits into."""
    assert n_sql >= 3 and n_python >= 1, (n_sql, n_python)
    staging = max(1, n_sql // 4)
    intermediate = max(1, n_sql // 2)
    return staging, intermediate, n_sql - staging - intermediate


def _materialized(i: int) -> str:
    return "table" if i % 2 == 0 else "view"


def staging_sql(i: int) -> str:
    return (
        f"{{{{ config(materialized='{_materialized(i)}') }}}}\n"
        "select\n"
        "    customer_id,\n"
        "    upper(substr(name, 1, 1)) || substr(name, 2) as name,\n"
        "    country\n"
        "from {{ source('raw', 'customers') }}\n"
        f"where customer_id % {i + 2} != 1 or customer_id < 10\n"
    )


def staging_table(i: int, n_staging: int) -> str:
    """The name of a staging *table* (even index) for the i-th Python model."""
    tables = list(range(0, n_staging, 2))
    return f"stg_{tables[i % len(tables)]:02d}"


def python_model(i: int, n_python: int, n_staging: int) -> str:
    stg = staging_table(i, n_staging)
    if i < max(1, n_python // 2):
        return (
            "def model(dbt, spark):\n"
            '    """Two owner accounts\' catalogs joined with a SQL staging table."""\n'
            '    dbt.config(materialized="table", spark_cross_account_catalog=True)\n'
            '    orders = dbt.source("partner", "orders")\n'
            '    products = dbt.source("supplier", "products")\n'
            f'    customers = dbt.ref("{stg}")\n'
            "    return (\n"
            '        orders.join(products, "sku")\n'
            '        .join(customers, "customer_id")\n'
            '        .select("order_id", "customer_id", "country", "category", "amount")\n'
            "    )\n"
        )
    return (
        "def model(dbt, spark):\n"
        '    """A SQL staging table, reshaped (not opted in: reads the local account)."""\n'
        '    dbt.config(materialized="table")\n'
        f'    customers = dbt.ref("{stg}")\n'
        "    return customers.selectExpr(\n"
        '        "customer_id * 1000 + 1 as order_id",\n'
        '        "customer_id",\n'
        '        "country",\n'
        "        \"'local' as category\",\n"
        '        "cast(customer_id as double) as amount",\n'
        "    )\n"
    )


def intermediate_sql(i: int, n_python: int) -> str:
    return (
        f"{{{{ config(materialized='{_materialized(i)}') }}}}\n"
        "select\n"
        "    country,\n"
        "    category,\n"
        "    count(*) as orders,\n"
        "    sum(amount) as revenue,\n"
        "    max(order_id) as last_order_id\n"
        f"from {{{{ ref('py_{i % n_python:02d}') }}}}\n"
        f"where amount >= {i % 3}\n"
        "group by country, category\n"
    )


def mart_sql(i: int, n_intermediate: int) -> str:
    left, right = (2 * i) % n_intermediate, (2 * i + 1) % n_intermediate
    return (
        f"{{{{ config(materialized='{_materialized(i + 1)}') }}}}\n"  # mart_00: a view
        "select\n"
        "    a.country,\n"
        "    a.category,\n"
        "    a.revenue as revenue_a,\n"
        "    coalesce(b.revenue, 0) as revenue_b,\n"
        "    cast(a.revenue + coalesce(b.revenue, 0) as decimal(18, 2)) as revenue\n"
        f"from {{{{ ref('int_{left:02d}') }}}} a\n"
        f"left join {{{{ ref('int_{right:02d}') }}}} b\n"
        "    on a.country = b.country and a.category = b.category\n"
    )


def schema_yml(n_staging: int) -> Dict[str, Any]:
    """Generic tests; a small project (one staging model) gets three, to stay quick."""
    models: List[Dict[str, Any]] = [
        {"name": "py_00", "columns": [{"name": "order_id", "data_tests": ["not_null", "unique"]}]},
        {"name": "mart_00", "columns": [{"name": "revenue", "data_tests": ["not_null"]}]},
    ]
    if n_staging > 1:
        models += [
            {
                "name": "stg_00",
                "columns": [
                    {"name": "customer_id", "data_tests": ["not_null", "unique"]},
                    {"name": "country", "data_tests": [{"accepted_values": {"values": COUNTRIES}}]},
                ],
            },
            {"name": "stg_01", "columns": [{"name": "customer_id", "data_tests": ["unique"]}]},
            {"name": "int_00", "columns": [{"name": "country", "data_tests": ["not_null"]}]},
        ]
    return {"version": 2, "models": models}


SINGULAR_TEST = (
    "-- Revenue is never negative in the first intermediate model.\n"
    "select * from {{ ref('int_00') }} where revenue < 0\n"
)


def sources_yml() -> Dict[str, Any]:
    return {
        "version": 2,
        "sources": [
            {"name": "partner", "database": "partner_catalog", "schema": "sales",
             "tables": [{"name": "orders"}]},
            {"name": "supplier", "database": "supplier_catalog", "schema": "catalog",
             "tables": [{"name": "products"}]},
            {"name": "raw", "database": "awsdatacatalog", "schema": "raw",
             "tables": [{"name": "customers"}]},
        ],
    }  # fmt: skip


def seed_document() -> Dict[str, Any]:
    """The emulator seed: two GLUE catalogs (two owner accounts that grant ours) and the
    local account's raw customers."""
    orders = [
        [1000 + n, n % N_CUSTOMERS + 1, f"SKU-{n % N_SKUS}", float(n % 97) + 0.5]
        for n in range(N_ORDERS)
    ]
    products = [
        [f"SKU-{n}", f"product {n}", ("tools", "toys", "food")[n % 3]] for n in range(N_SKUS)
    ]
    customers = [
        [n, f"customer{n}", COUNTRIES[n % len(COUNTRIES)]] for n in range(1, N_CUSTOMERS + 1)
    ]
    return {
        "data_catalogs": [
            {"name": "partner_catalog", "type": "GLUE", "parameters": {"catalog-id": PARTNER}},
            {"name": "supplier_catalog", "type": "GLUE", "parameters": {"catalog-id": SUPPLIER}},
        ],
        "accounts": {
            PARTNER: {
                "grants": ["123456789012"],
                "databases": {"sales": {"orders": {
                    "columns": {"order_id": "int", "customer_id": "int", "sku": "string",
                                "amount": "double"},
                    "rows": orders,
                }}},
            },
            SUPPLIER: {
                "grants": ["123456789012"],
                "databases": {"catalog": {"products": {
                    "columns": {"sku": "string", "product": "string", "category": "string"},
                    "rows": products,
                }}},
            },
            "123456789012": {
                "databases": {"raw": {"customers": {
                    "columns": {"customer_id": "int", "name": "string", "country": "string"},
                    "rows": customers,
                }}},
            },
        },
    }  # fmt: skip


def write(root: Path, n_sql: int = 40, n_python: int = 10, threads: int = 1) -> Path:
    """Write the project (and its seed.yml) under ``root``; return its directory.

    One thread by default: the emulator runs a statement inside StartQueryExecution, one at
    a time on its Spark session, so with more threads a statement that waits for the
    session longer than botocore's 60 s read timeout is sent again by dbt-athena and fails
    (``TABLE_ALREADY_EXISTS`` for a CTAS), as it did on this 2-core box under load."""
    n_staging, n_intermediate, n_marts = layers(n_sql, n_python)
    project = root / "generated"
    models = project / "models"
    for folder in ("staging", "python", "intermediate", "marts"):
        (models / folder).mkdir(parents=True, exist_ok=True)
    (project / "tests").mkdir(exist_ok=True)
    config = {
        "name": "generated",
        "version": "1.0.0",
        "config-version": 2,
        "profile": "generated",
        "dispatch": [
            {
                "macro_namespace": "athena",
                "search_order": ["generated", "dbt_athena_cross_account", "dbt"],
            }
        ],
    }
    files: Dict[Path, str] = {
        project / "dbt_project.yml": yaml.safe_dump(config, sort_keys=False),
        project / "packages.yml": yaml.safe_dump({"packages": [{"local": str(REPO_ROOT)}]}),
        project / "profiles.yml": yaml.safe_dump(
            {
                "generated": {
                    "target": "emulator",
                    "outputs": {"emulator": athena_target(schema=SCHEMA, threads=threads)},
                }
            }
        ),
        project / "seed.yml": yaml.safe_dump(seed_document(), sort_keys=False),
        models / "sources.yml": yaml.safe_dump(sources_yml(), sort_keys=False),
        models / "schema.yml": yaml.safe_dump(schema_yml(n_staging), sort_keys=False),
        project / "tests" / "assert_revenue_not_negative.sql": SINGULAR_TEST,
    }
    for i in range(n_staging):
        files[models / "staging" / f"stg_{i:02d}.sql"] = staging_sql(i)
    for i in range(n_python):
        files[models / "python" / f"py_{i:02d}.py"] = python_model(i, n_python, n_staging)
    for i in range(n_intermediate):
        files[models / "intermediate" / f"int_{i:02d}.sql"] = intermediate_sql(i, n_python)
    for i in range(n_marts):
        files[models / "marts" / f"mart_{i:02d}.sql"] = mart_sql(i, n_intermediate)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return project
