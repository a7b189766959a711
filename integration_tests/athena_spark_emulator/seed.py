"""Seed the emulator from a YAML/JSON file or a dict: data catalogs, accounts, grants, tables.

Format (``integration_tests/fixtures/two_accounts.yml`` is a full example)::

    data_catalogs:                     # Athena data catalogs of the local account
      - name: partner_catalog
        type: GLUE                     # GLUE | LAMBDA | HIVE | FEDERATED
        parameters: {catalog-id: "999999999999"}
    accounts:
      "999999999999":                  # quote account ids: YAML would read a number
        grants: ["123456789012"]       # accounts allowed to read this account's Glue
        databases:
          sales:                       # Glue database of that account
            orders:                    # table: Hive column types, rows in column order
              columns: {order_id: int, customer: string, amount: double}
              rows:
                - [1, "acme", 10.5]

Tables are registered in that account's Glue (moto) and their rows written as JSON
lines under the emulator's local warehouse, at ``location`` if given (an ``s3://`` URI)
or at ``s3://emulator-<account>-<region>/warehouse/<db>/<table>/``. Seeding needs no
Spark. The Python API is the same: ``emulator.register_data_catalog(...)``,
``emulator.catalog.grant(owner, grantee)``, ``emulator.catalog.create_table(...)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Union

if TYPE_CHECKING:
    from athena_spark_emulator.server import Emulator


def load(path: Union[str, Path]) -> Dict[str, Any]:
    text = Path(path).read_text(encoding="utf-8")
    if str(path).endswith(".json"):
        return json.loads(text)
    import yaml

    return yaml.safe_load(text) or {}


def _account(value: Any) -> str:
    account = f"{value:012d}" if isinstance(value, int) else str(value)
    if not (len(account) == 12 and account.isdigit()):
        raise ValueError(f"seed: account id must be 12 digits, got {value!r}")
    return account


def apply(emulator: Emulator, spec: Union[str, Path, Dict[str, Any]]) -> Dict[str, Any]:
    """Apply ``spec`` (a path or a dict) to a started emulator; returns the dict."""
    if not isinstance(spec, dict):
        spec = load(spec)
    unknown = set(spec) - {"data_catalogs", "accounts"}
    if unknown:
        raise ValueError(f"seed: unknown top-level keys {sorted(unknown)}")
    for entry in spec.get("data_catalogs") or []:
        parameters = entry.get("parameters")
        emulator.register_data_catalog(
            entry["name"],
            entry.get("type", "GLUE"),
            {str(k): str(v) for k, v in parameters.items()} if parameters is not None else None,
        )
    for raw_account, account_spec in (spec.get("accounts") or {}).items():
        account = _account(raw_account)
        account_spec = account_spec or {}
        for grantee in account_spec.get("grants") or []:
            emulator.catalog.grant(account, _account(grantee))
        for database, tables in (account_spec.get("databases") or {}).items():
            emulator.catalog.ensure_database(account, str(database))
            for table, table_spec in (tables or {}).items():
                emulator.catalog.create_table(
                    account,
                    str(database),
                    str(table),
                    table_spec["columns"],
                    table_spec.get("rows") or [],
                    location=table_spec.get("location"),
                )
    return spec
