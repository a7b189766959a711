"""Query shapes and array/map functions of sql/query_shapes.py: the pure helpers (UDFs and
the Spark SQL the translation writes). The end-to-end path (Spark answering) is the
conformance corpus's."""

from __future__ import annotations

import pytest

pytest.importorskip("sqlglot")

from athena_spark_emulator.sql import query_shapes, syntax
from athena_spark_emulator.sql.functions import array
from athena_spark_emulator.sql.syntax import Untranslatable
from athena_spark_emulator.sql.translate import to_spark
from athena_spark_emulator.sql.udfs import AthenaError


def spark_sql(statement: str) -> str:
    return to_spark(syntax.parse(statement), {})


def test_combinations_in_trinos_order():
    assert array.combination_indices(3, 2) == [[0, 1], [0, 2], [1, 2]]
    assert array.combination_indices(4, 2) == [
        [0, 1],
        [0, 2],
        [1, 2],
        [0, 3],
        [1, 3],
        [2, 3],
    ]
    assert array.combination_indices(4, 3)[:2] == [[0, 1, 2], [0, 1, 3]]
    assert array.combination_indices(2, 3) == []
    assert array.combination_indices(2, 0) == [[]]
    assert array.combination_indices(None, 2) is None


def test_combinations_fail_as_trino():
    with pytest.raises(AthenaError, match="must not be negative: -1"):
        array.combination_indices(3, -1)
    with pytest.raises(AthenaError, match="must not exceed 5: 6"):
        array.combination_indices(9, 6)
    with pytest.raises(AthenaError, match="combinations exceed max size"):
        array.combination_indices(200, 5)


def test_vector_functions():
    assert array.dot_product([1, 2], [3, 4]) == 11.0
    assert array.euclidean_distance([0, 0], [3, 4]) == 5.0
    assert array.dot_product(None, [1]) is None
    with pytest.raises(AthenaError, match="same length"):
        array.dot_product([1], [1, 2])
    with pytest.raises(AthenaError, match="must not be null"):
        array.euclidean_distance([1, None], [1, 2])


def test_grouping_is_spark_grouping_id():
    sql = spark_sql("SELECT a, grouping(a, b) FROM t GROUP BY ROLLUP (a, b)")
    assert "GROUPING_ID(A, B)" in sql.upper()
    assert "ROLLUP" in sql.upper()


def test_a_values_statement_is_a_select():
    sql = spark_sql("VALUES (1, 'a'), (2, 'b')")
    assert sql.startswith("SELECT * FROM VALUES") and sql.endswith("AS _values(_col0, _col1)")


def test_digit_separators():
    assert "10000000" in spark_sql("SELECT 10_000_000, '1_0'")
    assert "'1_0'" in spark_sql("SELECT 10_000_000, '1_0'")


def test_quantified_comparison_of_a_column_is_refused():
    with pytest.raises(Untranslatable, match="quantified comparison of a column"):
        spark_sql("SELECT x = ANY (VALUES 1) FROM t")


def test_in_subquery_outside_where_is_refused():
    with pytest.raises(Untranslatable, match="outside a WHERE"):
        spark_sql("SELECT x IN (SELECT 1) FROM t")
    assert "IN (SELECT" in spark_sql("SELECT x FROM t WHERE x IN (SELECT 1) AND x > 0")


def test_unnest_of_several_arrays_with_ordinality():
    sql = spark_sql("SELECT * FROM UNNEST(ARRAY[1], ARRAY['a', 'b']) WITH ORDINALITY AS t(x, y, n)")
    assert "INLINE(TRANSFORM(ARRAY_REPEAT(0, GREATEST(SIZE(" in sql.upper()
    assert "AS t(x, y, n)" in sql


def test_unnest_of_one_row_field_is_refused():
    with pytest.raises(Untranslatable, match="rows of one field"):
        spark_sql("SELECT * FROM UNNEST(ARRAY[CAST(ROW(1) AS ROW(a integer))]) AS t(x)")


def test_corresponding_needs_named_columns():
    with pytest.raises(Untranslatable, match="column names the emulator cannot tell"):
        spark_sql("SELECT 1 UNION CORRESPONDING SELECT 2")


def test_inline_functions_are_expanded():
    sql = spark_sql(
        "WITH FUNCTION twice(x bigint) RETURNS bigint RETURN x * 2 SELECT twice(n) FROM t"
    )
    assert "CAST((CAST(n AS BIGINT) * 2) AS BIGINT)" in sql
    with pytest.raises(Untranslatable, match="an argument of another type"):
        spark_sql("WITH FUNCTION twice(x bigint) RETURNS bigint RETURN x * 2 SELECT twice('1')")


def test_lambda_parameters_are_typed_for_division():
    assert " DIV " in spark_sql("SELECT transform(ARRAY[7, 9], x -> x / 2)").upper()


def test_typeof_of_literal_containers():
    assert "'map(varchar(3), integer)'" in spark_sql(
        "SELECT typeof(MAP(ARRAY['foo', 'bar'], ARRAY[1, 2]))"
    )
    # the elements' common super type (TypeCoercion): integer and double meet at double
    assert "'array(double)'" in spark_sql("SELECT typeof(ARRAY[1, 2e0])")
    with pytest.raises(Untranslatable, match="cannot tell this value's Athena type"):
        spark_sql("SELECT typeof(ARRAY[1, ROW(2)])")


def test_row_subscript_by_position():
    assert "`field1`" in spark_sql("SELECT ROW(1, 2.0)[2]")
    with pytest.raises(Untranslatable, match="out of the row's fields"):
        spark_sql("SELECT ROW(1, 2.0)[3]")


def test_recursive_with_is_unrolled_to_trinos_depth():
    sql = spark_sql(
        "WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 4) "
        "SELECT sum(n) FROM t"
    )
    assert "t__level10" in sql and "t__level11" in sql
    assert "ATHENA_RECURSION_DEPTH_EXCEEDED(10)" in sql.upper()
    with pytest.raises(AthenaError, match=r"Recursion depth limit exceeded \(10\)"):
        query_shapes.recursion_depth_exceeded(10)
