"""The Athena type of each column a statement reads, for the translation's typing.

Athena types a table's columns from Glue: a Hive table's ``timestamp`` is ``timestamp(3)``,
an Iceberg table's ``timestamp(6)``, ``float`` is ``real``, ``string`` ``varchar`` and
``binary`` ``varbinary``, nested types included. Spark's names for the same columns mean
something else to sqlglot (Spark's ``timestamp`` is a zoned timestamp there), so the
temporary view that stands for a table carries its columns' Athena types as column metadata
(:data:`TYPE_KEY`), which Spark keeps through ``select *`` and plain column references: a
view or a CTE over the table then has the same types. Pure apart from the Spark types it
reads (no session).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional

from athena_spark_emulator.accounts import glue_types
from athena_spark_emulator.sql.results import _SIMPLE_TYPES, _text_struct

#: Spark column metadata: the column's Athena type (``timestamp(6)``, ``array(real)``).
TYPE_KEY = "athena_column_type"
#: a varchar(n) or char(n) in a type's text
_LENGTHS = re.compile(r"\b(?:varchar|char)\(\d+\)")


def athena_type(spark_type: Any, precision: int = 3) -> str:
    """The Athena type of a column whose Spark type is ``spark_type``; its timestamps (at
    any depth) are ``timestamp(precision)``."""
    name = type(spark_type).__name__
    text = _text_struct(spark_type)  # the structs that stand for zoned and time values
    if text == "timestamp with time zone":
        return f"timestamp({precision}) with time zone"
    if text:
        return text
    if name in ("TimestampType", "TimestampNTZType"):
        return f"timestamp({precision})"
    if name == "DecimalType":
        return f"decimal({spark_type.precision},{spark_type.scale})"
    if name in ("CharType", "VarcharType"):
        return f"{'char' if name == 'CharType' else 'varchar'}({spark_type.length})"
    if name == "ArrayType":
        return f"array({athena_type(spark_type.elementType, precision)})"
    if name == "MapType":
        key = athena_type(spark_type.keyType, precision)
        return f"map({key}, {athena_type(spark_type.valueType, precision)})"
    if name == "StructType":
        fields = ", ".join(
            f'"{f.name}" {athena_type(f.dataType, precision)}' for f in spark_type.fields
        )
        return f"row({fields})"
    return _SIMPLE_TYPES.get(name, spark_type.simpleString())


def typed(frame: Any, precision: int, glue: Optional[Mapping[str, str]] = None) -> Any:
    """``frame`` with each column's Athena type in its metadata (:data:`TYPE_KEY`); a
    column that has one already (a view's column over a table) keeps it. ``glue``: a Hive
    table's Glue columns ({name: Glue type}), whose ``varchar(n)`` and ``char(n)`` (Spark
    reads them as strings) are the columns' Athena types, as Athena reads them
    (``HiveTypeTranslator``'s types the other way round; accounts/glue_types.athena_type)."""
    declared = {k.lower(): v for k, v in (glue or {}).items()}
    for field in frame.schema.fields:
        if TYPE_KEY not in field.metadata:
            kind = athena_type(field.dataType, precision)
            metadata = {**field.metadata, TYPE_KEY: _declared(declared, field.name, kind)}
            frame = frame.withMetadata(field.name, metadata)
    return frame


def _declared(glue: Mapping[str, str], name: str, spark_kind: str) -> str:
    """The Athena type of a Hive table's column ``name`` from its Glue type, where it is
    the one Spark reads but for the lengths of its varchar(n) and char(n); else
    ``spark_kind``."""
    text = glue.get(name.lower())
    if text is None or not _LENGTHS.search(text.lower()):
        return spark_kind
    try:
        kind = glue_types.athena_type(glue_types.parse(text), 3)
    except glue_types.GlueTypeError:
        return spark_kind
    return kind if _unsized(kind) == _unsized(spark_kind) else spark_kind


def _unsized(athena: str) -> str:
    """An Athena type's text with its varchar(n) and char(n) as varchar, without quotes."""
    return _LENGTHS.sub("varchar", athena.replace('"', "").replace(" ", "").lower())


def columns_of(schema: Any) -> Dict[str, str]:
    """``{column: Athena type}`` of a Spark schema: the type in a column's metadata, else
    the one its Spark type gives (timestamps ``timestamp(3)``)."""
    return {f.name: f.metadata.get(TYPE_KEY) or athena_type(f.dataType) for f in schema.fields}


# ---- Glue (Hive) types <-> Athena types ---------------------------------------------------

_HIVE_NAMES = {
    "boolean": "boolean",
    "tinyint": "tinyint",
    "smallint": "smallint",
    "integer": "int",
    "bigint": "bigint",
    "real": "float",
    "double": "double",
    "varbinary": "binary",
    "date": "date",
}
MAX_VARCHAR_LENGTH = 65535  # Hive's HiveVarchar.MAX_VARCHAR_LENGTH
MAX_CHAR_LENGTH = 255  # Hive's HiveChar.MAX_CHAR_LENGTH
_HEAD = re.compile(r"\s*([a-z][a-z0-9_ ]*?)\s*(?:\((.*)\))?\s*(with time zone)?\s*", re.S)
_FIELD = re.compile(r'\s*(?:"((?:[^"]|"")*)"|([a-z_][a-z0-9_]*))\s+(\S.*)', re.S | re.I)


def _arguments(text: str) -> List[str]:
    """A type's top-level arguments: ``varchar(1), array(real)`` is two."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def hive_type(athena: str) -> Optional[str]:
    """The Glue (Hive) column type Athena's Hive CTAS writes for a column of Athena type
    ``athena`` (Trino's ``io.trino.plugin.hive.util.HiveTypeTranslator.toTypeInfo``):
    integer is ``int``, real ``float``, varbinary ``binary``, unbounded varchar ``string``,
    ``varchar(n)`` (n <= 65535) and ``char(n)`` (n <= 255) themselves, any ``timestamp(p)``
    ``timestamp``, ``decimal(p,s)`` itself, ``array(T)`` ``array<T>``, ``map(K, V)``
    ``map<K,V>``, ``row(name T, ...)`` ``struct<name:T,...>``. None where Trino fails with
    NOT_SUPPORTED ("Unsupported Hive type"): the zoned types, time, interval, json,
    ipaddress, uuid, a longer varchar or char, an anonymous row field."""
    found = _HEAD.fullmatch(athena.lower())
    if found is None:
        return None
    name, args, zoned = found.group(1), found.group(2), found.group(3)
    if zoned:
        return None
    if name in _HIVE_NAMES and args is None:
        return _HIVE_NAMES[name]
    if name in ("varchar", "char"):
        limit = MAX_VARCHAR_LENGTH if name == "varchar" else MAX_CHAR_LENGTH
        if args is None:
            return "string" if name == "varchar" else "char(1)"
        return f"{name}({int(args)})" if args.strip().isdigit() and int(args) <= limit else None
    if name == "timestamp":
        return "timestamp"
    if name == "decimal":
        digits = [a.strip() for a in _arguments(args or "38,0")]
        return f"decimal({','.join(digits)})" if all(d.isdigit() for d in digits) else None
    return _hive_nested(name, _arguments(args) if args else [])


def _hive_nested(name: str, args: List[str]) -> Optional[str]:
    if name == "array" and len(args) == 1:
        element = hive_type(args[0])
        return None if element is None else f"array<{element}>"
    if name == "map" and len(args) == 2:
        key, value = hive_type(args[0]), hive_type(args[1])
        return None if key is None or value is None else f"map<{key},{value}>"
    if name != "row" or not args:
        return None
    fields = []
    for arg in args:
        named = _FIELD.fullmatch(arg)
        inner = hive_type(named.group(3)) if named else None
        if named is None or inner is None:
            return None  # an anonymous field, or one Hive cannot hold
        field_name = named.group(1).replace('""', '"') if named.group(1) else named.group(2)
        fields.append(f"{field_name}:{inner}")
    return f"struct<{','.join(fields)}>"


def as_string(hive: str) -> str:
    """A Glue type with its ``varchar(n)`` and ``char(n)`` as ``string``, as Spark holds
    them (and as it writes them to the table's files)."""
    return _LENGTHS.sub("string", hive.replace(" ", "").lower())


def glue_type(athena: str, spark_type: Any) -> str:
    """The Glue type of a written column of Athena type ``athena`` whose values Spark holds
    as ``spark_type``: :func:`hive_type`, where it is Spark's own type but for the lengths
    of varchar(n) and char(n) (which Spark holds as strings); else Spark's type (the
    files' type: the translation did not give the column a type that Spark holds)."""
    spark = spark_type.simpleString()
    hive = hive_type(athena)
    if hive is not None and as_string(hive) == as_string(spark):
        return hive
    return spark
