"""How catalog, schema and table names are normalised and written for Spark. Pure; no dbt.

This is the one place that decides what a name means. The resolver looks catalogs up by
:func:`catalog_key`; the read plan (``plan.py``) builds every Spark table name with
:func:`separator_table_name` / :func:`local_table_name`, and the generated Python only
looks those finished names up. So the name that was resolved and the name that is read
can never disagree (a catalog spelled ``"Partner_Catalog "`` in an ``env_var()`` is the
catalog ``partner_catalog``, both when it is looked up and when it is read).
"""

from __future__ import annotations

from typing import Optional

LOCAL_CATALOG = "awsdatacatalog"
S3_TABLES_PREFIX = "s3tablescatalog"


def catalog_key(name: Optional[str]) -> str:
    """The catalog as Athena knows it: surrounding whitespace dropped, lower case.

    Athena lower-cases identifiers, catalog names included, when it runs a query, so a
    data catalog usable from SQL has a lower-case name; dbt sources may spell it any way.
    """
    return (name or "").strip().lower()


def is_local_catalog(name: Optional[str]) -> bool:
    """True for the account's own Glue catalog (``awsdatacatalog``, any case or padding)."""
    return catalog_key(name) == LOCAL_CATALOG


def is_s3_tables_catalog(name: Optional[str]) -> bool:
    """True for an S3 Tables catalog (``s3tablescatalog`` or ``s3tablescatalog/<bucket>``)."""
    key = catalog_key(name)
    return key == S3_TABLES_PREFIX or key.startswith(S3_TABLES_PREFIX + "/")


def is_cross_account_catalog(name: Optional[str]) -> bool:
    """True for a catalog read through Spark's ``<account>/<db>`` form: not blank, not the
    local ``awsdatacatalog``, not an S3 Tables catalog."""
    return bool(catalog_key(name)) and not is_local_catalog(name) and not is_s3_tables_catalog(name)


def table_part(name: Optional[str]) -> str:
    """A schema or table name as Glue stores it: surrounding whitespace dropped.

    Case is kept: Glue and Spark's Glue client match database and table names
    case-insensitively.
    """
    return (name or "").strip()


def spark_quote(part: str) -> str:
    """One identifier part for Spark's SQL parser: backticks around it, inner ones doubled."""
    return "`" + part.replace("`", "``") + "`"


def separator_table_name(account_id: str, schema: str, table: str) -> str:
    """```<account>/<schema>`.`<table>``: the owner's table through the Glue separator.

    Spark cannot parse ``123456789012/db.tbl`` bare (it reads the account as a number);
    AWS documents the backtick form ```999999999999/mydatabase`.table``.
    """
    return spark_quote(f"{account_id}/{table_part(schema)}") + "." + spark_quote(table_part(table))


def local_table_name(schema: str, table: str) -> str:
    """```<schema>`.`<table>``: a table in the local account's Glue catalog."""
    return spark_quote(table_part(schema)) + "." + spark_quote(table_part(table))


# ---- Iceberg: a per-owner Iceberg catalog (formats.py says when it is used) ---------------
#: Prefix of the Spark catalogs the generated code registers, one per owner account. Users
#: must not name their own catalogs like this (docs/formats-and-iceberg.md reserves it).
ICEBERG_CATALOG_PREFIX = "dbt_cross_account_iceberg_"


def iceberg_catalog_name(account_id: str) -> str:
    """The Spark catalog that reads ``account_id``'s Iceberg tables (``glue.id=<account>``).

    Only letters, digits and ``_``: the name is also a Spark conf key part
    (``spark.sql.catalog.<name>``), where a ``.`` would start a property.
    """
    return ICEBERG_CATALOG_PREFIX + "".join(c for c in str(account_id) if c.isalnum())


def glue_name(name: str) -> str:
    """A database or table name as Glue stores it: no surrounding whitespace, lower case.

    Iceberg's GlueCatalog passes names to Glue as Spark gives them, so they are written the
    way Glue stores them (the Hive Glue client lower-cases them itself).
    """
    return table_part(name).lower()


def iceberg_table_name(
    account_id: str, schema: str, table: str, catalog: Optional[str] = None
) -> str:
    """```<catalog>`.`<schema>`.`<table>``: the owner's Iceberg table through its catalog
    (``catalog``: another catalog of that owner, e.g. one reading through a role)."""
    return ".".join(
        spark_quote(part)
        for part in (
            catalog or iceberg_catalog_name(account_id),
            glue_name(schema),
            glue_name(table),
        )
    )


def table_property_statement(table_name: str, key: str) -> str:
    """``SHOW TBLPROPERTIES <name> ('<key>')`` (Spark 3.0+): one Glue metadata lookup, no
    data read. ``key`` is a constant of this package, never a user's text."""
    if "'" in key or "\\" in key:
        raise ValueError(f"not a plain property key: {key!r}")
    return f"SHOW TBLPROPERTIES {table_name} ('{key}')"
