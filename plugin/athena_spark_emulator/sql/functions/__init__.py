"""Athena's functions, one module per page of Trino's function documentation
(``docs/src/main/sphinx/functions/<page>.md``), each registering that page's entries in the
one function table. Importing the package registers them all."""

from athena_spark_emulator.sql.functions import (  # noqa: F401
    binary,
    conversion,
    datetime_zoned,
    json,
)
