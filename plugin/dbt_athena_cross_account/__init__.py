"""dbt-athena-cross-account: cross-account Glue catalogs for dbt Python models on Athena Spark.

dbt-core imports every top-level ``dbt_*`` module on each command that has a project
(``dbt.plugins.manager``). Importing this module registers the plugin's ``@available``
methods on dbt-athena's ``AthenaAdapter``. Without dbt-athena it does nothing.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["__version__", "installed"]


def installed() -> bool:
    """Register the adapter methods if dbt-athena is importable; True when they are in place."""
    try:
        from dbt.adapters.athena.impl import AthenaAdapter
    except ImportError:
        return False
    from dbt_athena_cross_account._patch import install

    install(AthenaAdapter)
    return True


installed()
