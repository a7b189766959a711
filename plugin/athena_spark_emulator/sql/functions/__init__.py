"""Athena's functions, one module per page of Trino's function documentation
(``docs/src/main/sphinx/functions/<page>.md`` in trinodb/trino): ``math.py`` holds the
entries of ``math.md``, ``regexp.py`` those of ``regexp.md``, and so on (``lambda_.py`` for
``lambda.md``; ``select.py`` for the constructs of a query, ``sql/select.md``). Each module
registers its page's entries in the one function table (table.py); its documented examples
are ``tests/conformance/examples/<page>.yml``. A page too long for one module is split
into ``<page>_<part>.py`` modules (conversion_types, datetime_zoned, datetime_time, datetime_tstz, datetime_format,
json_cast, json_path, json_table), each named in its page module's docstring.

Shared typing helpers are in ``sql/spark_forms.py``, the UDFs' registry in ``sql/udfs.py``.
Casts and ``format`` live in conversion.py, ``typeof`` in conversion_types.py; the pages
whose values need their own case register it there (conversion.py's docstring lists them).
Importing this package registers every entry; no module here imports anything of ``sql/``
but spark_forms, udfs, java_hash and this package's own modules
(tests/pure/test_import_graph.py).
"""

from athena_spark_emulator.sql.functions import (  # noqa: F401
    aggregate,
    array,
    binary,
    bitwise,
    comparison,
    conditional,
    conversion,
    conversion_types,
    datetime,
    datetime_format,
    datetime_time,
    datetime_tstz,
    datetime_zoned,
    decimal,
    geospatial,
    ipaddress,
    json,
    json_cast,
    json_path,
    json_table,
    lambda_,
    logical,
    map,
    math,
    ml,
    regexp,
    row,
    select,
    setdigest,
    string,
    table,
    url,
    uuid,
    window,
)
