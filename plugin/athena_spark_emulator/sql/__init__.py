"""The emulator's Athena SQL, in one place.

A statement sent with ``StartQueryExecution`` goes through these modules in order:

* ``syntax.py``: parsed with sqlglot's ``athena`` dialect; its kind (the handler key), the
  tables it names, a CREATE's properties. Pure.
* ``statements.py``: the handler for its kind (``@handles(kind)``, in the one table
  ``handlers.HANDLERS``) runs it on the emulator's Glue catalog, files and Spark.
* ``translate.py``: a query rendered as Spark SQL with Athena's semantics, by the entries
  of the one function table (``functions/table.py``), which ``functions/`` fills: one module
  per page of Trino's function documentation (``functions/regexp.py`` for ``regexp.md``),
  and ``query_shapes.py`` the query constructs a plain SELECT does not have. Pure.
* ``results.py``: the rows and column types as ``GetQueryResults`` gives them. Pure.

The moto hooks around ``StartQueryExecution``, ``GetQueryExecution`` and
``GetQueryResults`` that do all of this are the AWS front's (``aws/queries.py``).
"""

from __future__ import annotations

# They register their handlers in statements.py's tables (HANDLERS, COMMANDS) when imported;
# importing them here, not at the end of statements.py, keeps the imports free of circles.
# The functions package (one module per Trino function page) and query_shapes add their
# entries to the function table and the UDFs (udfs.UDFS) the same way.
from athena_spark_emulator.sql import (  # noqa: F401
    ddl_statements,
    dml_statements,
    functions,
    partition_statements,
    query_shapes,
    schema_statements,
)
