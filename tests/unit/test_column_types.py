"""The Athena type a temporary view's column carries into the translation (column_types.py),
from Spark's type of the column: what Athena reads a Glue column as."""

from __future__ import annotations

import pytest
from pyspark.sql import types as T

from athena_spark_emulator.sql.column_types import athena_type

ZONED = T.StructType([T.StructField("athena_tstz", T.StringType())])


@pytest.mark.parametrize(
    "spark, precision, athena",
    [
        (T.TimestampType(), 3, "timestamp(3)"),
        (T.TimestampType(), 6, "timestamp(6)"),
        (T.FloatType(), 3, "real"),
        (T.StringType(), 3, "varchar"),
        (T.BinaryType(), 3, "varbinary"),
        (T.IntegerType(), 3, "integer"),
        (T.DecimalType(18, 2), 3, "decimal(18,2)"),
        (T.ArrayType(T.TimestampType()), 6, "array(timestamp(6))"),
        (T.MapType(T.StringType(), T.FloatType()), 3, "map(varchar, real)"),
        (T.StructType([T.StructField("a", T.LongType()), T.StructField("b b", T.DateType())]), 3,
         'row("a" bigint, "b b" date)'),
        (ZONED, 3, "timestamp(3) with time zone"),
    ],
)  # fmt: skip
def test_athena_type_of_a_spark_column(spark: T.DataType, precision: int, athena: str) -> None:
    assert athena_type(spark, precision) == athena
