"""One home for each fix text the plugin prints, and for the catalog filter they rely on.

A fix is something a user runs or pastes: a shell command, a YAML block. Each is built
here once, so a change (a new flag, a quoting rule) happens in one place. Every value
that goes into a shell command is quoted with :func:`shlex.quote`: a catalog named
``partner $(touch owned) x`` prints as ``'partner $(touch owned) x'``, which a shell
reads as one word and never runs.

Python API::

    fixes.dispatch_yaml("my_project")                 # the `dispatch:` block for dbt_project.yml
    fixes.create_data_catalog("partner", "eu-west-1") # aws athena create-data-catalog ...
    fixes.update_data_catalog("partner")              # ... update-data-catalog (no --region)
    fixes.shell_command("aws", "glue", "get-tables", "--database-name", name)
    fixes.is_cross_account_catalog("awsdatacatalog")  # False: local; S3 Tables catalogs too

Jinja: :func:`for_jinja` returns the same functions and constants in a dict, for an
adapter method to hand to macros, e.g. ``adapter.<method>().dispatch_yaml(project_name)``.

Not here: the ``pip install`` line for a missing plugin. It is shown only when this module
cannot be imported (the plugin is not installed), so its one home is the macro
``_cross_account_install_plugin_fix`` (``macros/_cross_account_install_plugin_fix.sql``).
"""

from __future__ import annotations

import shlex
from typing import Any, Dict, Optional

from dbt_athena_cross_account.names import LOCAL_CATALOG, S3_TABLES_PREFIX, is_cross_account_catalog

__all__ = ["LOCAL_CATALOG", "is_cross_account_catalog"]  # the filter lives in names.py

PACKAGE = "dbt_athena_cross_account"
S3_TABLES_CATALOG_PREFIX = S3_TABLES_PREFIX + "/"
OWNER_ACCOUNT_PLACEHOLDER = "<12-digit owner account id>"

DISPATCH_YAML = """dispatch:
  - macro_namespace: athena
    search_order: ['{project}', '{package}', 'dbt']"""


def shell_command(*words: str) -> str:
    """One shell command line; every word quoted where a shell would otherwise split it."""
    return " ".join(shlex.quote(str(word)) for word in words)


def dispatch_yaml(project: str) -> str:
    """The ``dispatch:`` block that puts this package before dbt-athena for ``project``."""
    return DISPATCH_YAML.format(project=project, package=PACKAGE)


def _data_catalog_command(verb: str, name: str, region: Optional[str]) -> str:
    where = ["--region", region] if region else []
    return shell_command(
        "aws",
        "athena",
        verb,
        *where,
        "--name",
        name,
        "--type",
        "GLUE",
        "--parameters",
        f"catalog-id={OWNER_ACCOUNT_PLACEHOLDER}",
    )


def create_data_catalog(name: str, region: Optional[str] = None) -> str:
    """Register the owner's Glue catalog as an Athena GLUE data catalog called ``name``."""
    return _data_catalog_command("create-data-catalog", name, region)


def update_data_catalog(name: str, region: Optional[str] = None) -> str:
    """Give the existing data catalog ``name`` a plain 12-digit catalog-id."""
    return _data_catalog_command("update-data-catalog", name, region)


def for_jinja() -> Dict[str, Any]:
    """The functions and constants above, for an adapter method to expose to macros."""
    return {
        "package": PACKAGE,
        "local_catalog": LOCAL_CATALOG,
        "s3_tables_catalog_prefix": S3_TABLES_CATALOG_PREFIX,
        "dispatch_yaml": dispatch_yaml,
        "create_data_catalog": create_data_catalog,
        "update_data_catalog": update_data_catalog,
        "shell_command": shell_command,
        "is_cross_account_catalog": is_cross_account_catalog,
    }
