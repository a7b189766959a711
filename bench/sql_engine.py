"""Figures behind the emulator's Athena SQL engine choice (docs/testing-on-the-emulator.md,
"Test your own project on the emulator"): prints, does not assert.

1. Translation: sqlglot (read="athena") parse + statement kind + Spark rendering of the
   statements dbt-athena sends, median per statement after the first call.
2. Engine: the same statements on the emulator's local Spark session and, when the
   ``duckdb`` package is installed (it is not a dependency), on DuckDB over the same
   parquet files: median per statement, warm.
3. Overhead: one statement through the emulator (StartQueryExecution ->
   GetQueryExecution -> GetQueryResults over HTTP, parse, resolve, temporary views) against
   Spark running the translated statement directly.

    .venv/bin/python bench/sql_engine.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, List

STATEMENTS = [
    "select count(*) as failures, count(*) != 0 as should_warn, count(*) != 0 as should_error "
    "from (select * from t where id is null) dbt_internal_test",
    "select country, count(*) as n, sum(amount) as total from t group by country",
    "select id, cast(amount as varchar) as a, date_parse('2020-01-01', '%Y-%m-%d') ts "
    "from t where amount > 10 order by id limit 100",
]
CTAS = (
    'create table "awsdatacatalog"."analytics"."x" with (table_type=\'hive\', '
    "is_external=true, external_location='s3://b/x/1', format='parquet') as "
    "select id, upper(country) c from t"
)


def median_ms(fn: Callable[[], object], runs: int = 15) -> float:
    fn()  # warm
    times: List[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def translation() -> None:
    from athena_spark_emulator.sql import syntax as athena_sql
    from athena_spark_emulator.sql.translate import to_spark

    def translate_all() -> None:
        for text in [*STATEMENTS, CTAS]:
            tree = athena_sql.parse(text)
            athena_sql.statement_kind(tree)
            query = tree.expression if tree.expression is not None else tree
            to_spark(query, {})

    per = median_ms(translate_all, 50) / (len(STATEMENTS) + 1)
    print(f"translation (parse + kind + Spark SQL), median per statement: {per:.2f} ms")

    # the semantic layer alone: the checks against the table of functions, sqlglot's typing
    # and the rewrites into Spark forms (translate.athena_semantics), on parsed statements
    from athena_spark_emulator.sql.translate import athena_semantics, name_columns

    queries = []
    for text in [*STATEMENTS, CTAS]:
        tree = athena_sql.parse(text)
        queries.append(tree.expression if tree.expression is not None else tree)
    spent: List[float] = []

    def semantics_all() -> None:
        spent.clear()
        for query in queries:
            copy = query.copy()
            name_columns(copy)
            start = time.perf_counter()
            athena_semantics(copy, {})
            spent.append(time.perf_counter() - start)

    runs = []
    for _ in range(50):
        semantics_all()
        runs.append(sum(spent) * 1000 / len(queries))
    layer = statistics.median(runs)
    print(
        f"of which Athena's semantics (checks, typing, rewrites): {layer:.2f} ms "
        f"({layer / per:.0%} of the translation)"
    )


def engines(folder: Path) -> None:
    from athena_spark_emulator.spark.executor import get_spark
    from athena_spark_emulator.sql import syntax as athena_sql
    from athena_spark_emulator.sql.translate import to_spark

    spark = get_spark()
    rows = [(i, ["DE", "FR", "US"][i % 3], float(i % 97)) for i in range(10_000)]
    frame = spark.createDataFrame(rows, "id bigint, country string, amount double")
    frame.write.mode("overwrite").parquet(str(folder / "t"))
    spark.read.parquet(str(folder / "t")).createOrReplaceTempView("t")
    spark_sql = [to_spark(athena_sql.parse(s), {}) for s in STATEMENTS]
    spark_ms = median_ms(lambda: [spark.sql(s).collect() for s in spark_sql]) / len(STATEMENTS)
    print(f"Spark (local[1], warm), median per query statement: {spark_ms:.1f} ms")
    try:
        import duckdb
    except ImportError:
        print("DuckDB: not installed (pip install duckdb to compare)")
        return
    con = duckdb.connect()
    con.execute(f"create view t as select * from read_parquet('{folder}/t/*.parquet')")
    duck_sql = [athena_sql.parse(s).sql(dialect="duckdb") for s in STATEMENTS]
    duck_ms = median_ms(lambda: [con.execute(s).fetchall() for s in duck_sql]) / len(STATEMENTS)
    print(f"DuckDB {duckdb.__version__} (warm), median per query statement: {duck_ms:.1f} ms")


def overhead() -> None:
    from athena_spark_emulator import Emulator
    from athena_spark_emulator.spark.executor import SPARK

    with Emulator(executor="spark") as emu:
        emu.prepare()
        emu.catalog.create_table(
            "123456789012",
            "analytics",
            "t",
            {"id": "bigint", "country": "string", "amount": "double"},
            [(i, ["DE", "FR", "US"][i % 3], float(i % 97)) for i in range(1000)],
        )
        athena = emu.client("athena")
        statement = STATEMENTS[1]

        def through_emulator() -> None:
            started = athena.start_query_execution(
                QueryString=statement,
                QueryExecutionContext={"Database": "analytics"},
                WorkGroup="primary",
            )
            exec_id = started["QueryExecutionId"]
            athena.get_query_execution(QueryExecutionId=exec_id)
            athena.get_query_results(QueryExecutionId=exec_id)

        emulated = median_ms(through_emulator)
        spark = SPARK.session

        def direct() -> None:
            spark.read.schema("id bigint, country string, amount double").json(
                emu.catalog.local_uri("s3://emulator-123456789012-eu-west-1/warehouse/analytics/t/")
            ).createOrReplaceTempView("t_direct")
            spark.sql(statement.replace(" t ", " t_direct ")).collect()

        direct_ms = median_ms(direct)
        print(
            f"one SELECT through the emulator: {emulated:.1f} ms; Spark reading the same "
            f"files and running it directly: {direct_ms:.1f} ms; ratio {emulated / direct_ms:.2f}"
        )


def main() -> None:
    translation()
    with tempfile.TemporaryDirectory() as folder:
        engines(Path(folder))
    overhead()


if __name__ == "__main__":
    main()
