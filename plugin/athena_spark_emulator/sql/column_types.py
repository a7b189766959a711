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

from typing import Any, Dict

from athena_spark_emulator.sql.results import _SIMPLE_TYPES, _text_struct

#: Spark column metadata: the column's Athena type (``timestamp(6)``, ``array(real)``).
TYPE_KEY = "athena_column_type"


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


def typed(frame: Any, precision: int) -> Any:
    """``frame`` with each column's Athena type in its metadata (:data:`TYPE_KEY`); a
    column that has one already (a view's column over a table) keeps it."""
    for field in frame.schema.fields:
        if TYPE_KEY not in field.metadata:
            metadata = {**field.metadata, TYPE_KEY: athena_type(field.dataType, precision)}
            frame = frame.withMetadata(field.name, metadata)
    return frame


def columns_of(schema: Any) -> Dict[str, str]:
    """``{column: Athena type}`` of a Spark schema: the type in a column's metadata, else
    the one its Spark type gives (timestamps ``timestamp(3)``)."""
    return {f.name: f.metadata.get(TYPE_KEY) or athena_type(f.dataType) for f in schema.fields}
