"""`dbt build` of a generated project on the emulator with local Spark (part of `make bench`).

1. Generates 40 SQL + 10 Python models (bench/generated_project.py; ``--small``: 3 + 1),
   starts the emulator as ``athena-spark-emulator run --seed seed.yml --spark`` does
   (``cli.start_emulator``, in this process, so its SQL log can be read), and runs the real
   ``dbt build`` in a fresh process: wall time, statements, their kinds, and the time the
   emulator spent on each (``Statistics.EngineExecutionTimeInMillis`` of GetQueryExecution).
2. Replays every ``select`` the build sent, interleaved, (a) through the emulator's API
   (StartQueryExecution, GetQueryExecution, GetQueryResults over HTTP: parse, resolve the
   names in Glue, read the files, run, return the rows) and (b) directly on the emulator's
   Spark session: temporary views over the same files, then the same translated Spark SQL,
   collected (the target: a / b <= 1.5). (b) is also timed without making the views.
3. The translation (sqlglot parse, statement kind, Spark SQL) of every statement the build
   sent: median per statement, warm (target <= 2 ms).

Prints a markdown section and one ``BENCH <name> <value>`` line per figure; ``--markdown
FILE`` also writes the section to FILE (bench/run.py puts it into RESULTS.md). Absolute
times depend on the machine and its load; the ratios are the claims.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generated_project as G
import project as P
from sqlglot import exp

from athena_spark_emulator.aws.queries import sql_session
from athena_spark_emulator.cli import child_env, start_emulator
from athena_spark_emulator.sql import syntax as athena_sql
from athena_spark_emulator.sql import translate as sql_translate
from athena_spark_emulator.sql.statements import Engine, Statement

TARGETS = {"replay_ratio": 1.5, "translation_median_ms": 2.0}


@dataclass
class Executed:
    """One statement of the build, as GetQueryExecution reports it."""

    text: str
    kind: str
    state: str
    database: str
    engine_ms: int


def warm_up(emulator: Any) -> None:
    """One CTAS and one select through the emulator before the build: a fresh Spark
    session's first write can take longer than botocore's 60 s read timeout on a loaded
    box, and dbt-athena's client then sends the CTAS again (``TABLE_ALREADY_EXISTS``)."""
    athena = emulator.client("athena")
    for sql in (
        "create schema if not exists bench_warm_up",
        "create table bench_warm_up.t with (format='parquet') as select * from raw.customers",
        "select count(*) from bench_warm_up.t",
        "drop table bench_warm_up.t",
    ):
        exec_id = athena.start_query_execution(
            QueryString=sql, QueryExecutionContext={"Database": "raw"}, WorkGroup="primary"
        )["QueryExecutionId"]
        state = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]["Status"]
        assert state["State"] == "SUCCEEDED", (sql, state)


def count_rows(emulator: Any, table: str) -> int:
    athena = emulator.client("athena")
    exec_id = athena.start_query_execution(
        QueryString=f"select count(*) from {table}",
        QueryExecutionContext={"Database": G.SCHEMA},
        WorkGroup="primary",
    )["QueryExecutionId"]
    rows = athena.get_query_results(QueryExecutionId=exec_id)["ResultSet"]["Rows"]
    return int(rows[1]["Data"][0]["VarCharValue"])


def executed_statements(emulator: Any, ids: Set[str]) -> List[Executed]:
    """The statements of these query execution ids, in the order they were sent."""
    athena = emulator.client("athena")
    found = []
    for exec_id in [i for i in emulator.backend.sql.millis if i in ids]:
        execution = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]
        text = execution["Query"]
        try:
            kind = athena_sql.statement_kind(athena_sql.parse(text))
        except Exception:  # an unparsable statement is counted, not replayed
            kind = "UNPARSED"
        found.append(
            Executed(
                text,
                kind,
                execution["Status"]["State"],
                (execution.get("QueryExecutionContext") or {}).get("Database") or "default",
                int(execution["Statistics"]["EngineExecutionTimeInMillis"]),
            )
        )
    return found


def through_emulator(emulator: Any, statement: Executed) -> Tuple[float, int]:
    """(client wall ms, the emulator's EngineExecutionTimeInMillis) of one statement."""
    athena = emulator.client("athena")
    start = time.perf_counter()
    exec_id = athena.start_query_execution(
        QueryString=statement.text,
        QueryExecutionContext={"Database": statement.database},
        WorkGroup="primary",
    )["QueryExecutionId"]
    execution = athena.get_query_execution(QueryExecutionId=exec_id)["QueryExecution"]
    assert execution["Status"]["State"] == "SUCCEEDED", execution["Status"]
    pages = athena.get_paginator("get_query_results").paginate(QueryExecutionId=exec_id)
    for _ in pages:
        pass
    wall = (time.perf_counter() - start) * 1000
    return wall, int(execution["Statistics"]["EngineExecutionTimeInMillis"])


def direct(emulator: Any, statement: Executed) -> Tuple[float, float]:
    """(ms of spark.sql(translated).collect() alone, ms including making the temporary views
    over the files it reads) on the emulator's Spark session."""

    def on_spark(parent: Any) -> Tuple[float, float]:
        tree = athena_sql.parse(statement.text)
        spark = sql_session(parent)  # the session the emulator runs SQL statements in
        engine = Engine(emulator.catalog, spark)
        try:
            start = time.perf_counter()
            views = {
                id(table): engine.temp_view(table, Statement(statement.text, tree, "SELECT",
                                                             statement.database))
                for table in athena_sql.tables_read(tree)
            }  # fmt: skip
            spark_sql = sql_translate.to_spark(tree, views, engine._schemas)
            ready = time.perf_counter()
            spark.sql(spark_sql).collect()
            end = time.perf_counter()
        finally:
            engine.close()
        return (end - ready) * 1000, (end - start) * 1000

    with emulator.backend.bound():  # the executor works for the emulator bound to the thread
        result: Tuple[float, float] = emulator.executor.run_with_spark(on_spark)
    return result


def translation_ms(texts: List[str], clock: Callable[[], float], repeats: int = 5) -> List[float]:
    """Per distinct statement: median ms (of ``clock``) of parse + kind + Spark SQL of its
    query part."""

    def translate(text: str) -> None:
        tree = athena_sql.parse(text)
        athena_sql.statement_kind(tree)
        query = tree if isinstance(tree, exp.Query) else tree.args.get("expression")
        if isinstance(query, exp.Query):  # a select, or a CTAS / insert / view's query
            sql_translate.to_spark(query, {})

    translate(texts[0])  # sqlglot's first call builds its tables
    return [median_ms(lambda t=text: translate(t), repeats, clock) for text in texts]


def median_ms(fn: Callable[[], object], repeats: int, clock: Callable[[], float]) -> float:
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append((clock() - start) * 1000)
    return statistics.median(times)


def expected_py_00_rows() -> int:
    """Rows of py_00: the partner's orders whose customer stg_00 keeps (see its filter)."""
    seed = G.seed_document()
    kept = {
        c[0]
        for c in seed["accounts"]["123456789012"]["databases"]["raw"]["customers"]["rows"]
        if c[0] % 2 != 1 or c[0] < 10
    }
    orders = seed["accounts"][G.PARTNER]["databases"]["sales"]["orders"]["rows"]
    return sum(1 for o in orders if o[1] in kept)


def progress(message: str, started: float) -> None:
    print(f"  {message} (at {time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)


@dataclass
class Replay:
    emulator_ms: List[float]  # per select: median client wall ms through the API
    engine_ms: List[float]  # per select: median EngineExecutionTimeInMillis
    direct_ms: List[float]  # per select: median ms of spark.sql(...).collect()
    direct_views_ms: List[float]  # the same, including making the temporary views


def replay(emulator: Any, selects: List[Executed], repeats: int, warm: bool) -> Replay:
    out = Replay([], [], [], [])
    for statement in selects:
        if warm:  # both paths once
            through_emulator(emulator, statement)
            direct(emulator, statement)
        api, engine, sql_only, with_views = [], [], [], []
        for _ in range(repeats):  # interleaved, so that drift hits both arms alike
            wall, millis = through_emulator(emulator, statement)
            api.append(wall)
            engine.append(millis)
            plain, views = direct(emulator, statement)
            sql_only.append(plain)
            with_views.append(views)
        out.emulator_ms.append(statistics.median(api))
        out.engine_ms.append(statistics.median(engine))
        out.direct_ms.append(statistics.median(sql_only))
        out.direct_views_ms.append(statistics.median(with_views))
    return out


def measure(root: Path, small: bool, repeats: int) -> Tuple[List[str], Dict[str, float]]:
    """Generate, build and replay; (markdown lines, BENCH figures)."""
    n_sql, n_python = (3, 1) if small else (40, 10)
    project = G.write(root, n_sql, n_python)
    started = time.perf_counter()
    emulator = start_emulator(str(project / "seed.yml"), spark=True)
    try:
        os.environ.update(child_env(emulator))
        os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "false"
        P.dbt_subprocess(["deps"], project)
        warm_up(emulator)
        before = set(emulator.backend.sql.millis)
        progress(f"dbt build of {n_sql} SQL + {n_python} Python models", started)
        wall, cpu = P.dbt_subprocess(["build"], project)  # raises if the build is not green
        built = set(emulator.backend.sql.millis) - before
        py_rows = len(emulator.rows(G.SCHEMA, "py_00"))
        assert py_rows == expected_py_00_rows(), (py_rows, expected_py_00_rows())
        mart_rows = count_rows(emulator, "mart_00")  # a view: counted through Athena SQL
        assert mart_rows > 0, "mart_00 is empty"
        executed = executed_statements(emulator, built)
        selects = [s for s in executed if s.kind == "SELECT" and s.state == "SUCCEEDED"]
        assert selects, "the build sent no select"
        progress(f"build done in {wall:.0f} s; replaying {len(selects)} selects", started)
        if small:  # the smoke test: the code path, not the figure
            selects = selects[:3]
        replayed = replay(emulator, selects, repeats, warm=not small)
        progress("translation cost", started)
        texts = list(dict.fromkeys(s.text for s in executed))
        # CPU time of this thread (the target), and wall time, which other load inflates
        translations = translation_ms(texts, time.thread_time)
        translations_wall = translation_ms(texts, time.perf_counter)
    finally:
        emulator.stop()
    return report(
        n_sql, n_python, wall, cpu, executed, replayed, (translations, translations_wall),
        py_rows, mart_rows, time.perf_counter() - started, repeats,
    )  # fmt: skip


def report(
    n_sql: int,
    n_python: int,
    wall: float,
    cpu: float,
    executed: List[Executed],
    replayed: Replay,
    translation_clocks: Tuple[List[float], List[float]],
    py_rows: int,
    mart_rows: int,
    total: float,
    repeats: int,
) -> Tuple[List[str], Dict[str, float]]:
    kinds: Dict[str, List[int]] = {}
    for s in executed:
        kinds.setdefault(s.kind, []).append(s.engine_ms)
    failed = sum(1 for s in executed if s.state != "SUCCEEDED")
    translations, translations_wall = translation_clocks
    ratio = sum(replayed.emulator_ms) / sum(replayed.direct_views_ms)
    ratio_sql_only = sum(replayed.emulator_ms) / sum(replayed.direct_ms)
    engine_ratio = sum(replayed.engine_ms) / sum(replayed.direct_views_ms)
    per_select = statistics.median(
        e / d for e, d in zip(replayed.emulator_ms, replayed.direct_views_ms)
    )
    translation = statistics.median(translations)
    translation_wall = statistics.median(translations_wall)
    n = len(replayed.emulator_ms)
    met = "yes" if ratio <= TARGETS["replay_ratio"] else "**no**"
    met_t = "yes" if translation <= TARGETS["translation_median_ms"] else "**no**"
    lines = [
        "## 6. `dbt build` of a generated project on the emulator with Spark",
        "",
        f"{n_sql} SQL models (views and tables) and {n_python} Python models "
        f"({max(1, n_python // 2)} opted in, reading two owner accounts' GLUE catalogs and a SQL "
        "staging table), data tests, generated by bench/generated_project.py; the real "
        "`dbt build` in a fresh process on `athena-spark-emulator run --spark`'s emulator "
        f"(1 dbt thread): **{wall:.1f} s** wall ({cpu:.1f} s CPU in dbt), {len(executed)} Athena "
        f"SQL statements ({failed} failed), py_00 {py_rows} rows, mart_00 {mart_rows} rows. "
        f"This section took {total:.0f} s.",
        "",
        "| statement kind | count | emulator ms, median (EngineExecutionTimeInMillis) | total s |",
        "|---|---:|---:|---:|",
        *(
            f"| {kind} | {len(ms)} | {statistics.median(ms):.0f} | {sum(ms) / 1000:.1f} |"
            for kind, ms in sorted(kinds.items(), key=lambda kv: -sum(kv[1]))
        ),
        "",
        "| figure | measured | target | met |",
        "|---|---:|---:|:---:|",
        f"| the build's {n} selects, replayed: through the emulator's API / Spark reading the "
        f"same files and running the translated SQL directly (sums of medians of {repeats}: "
        f"{sum(replayed.emulator_ms):.0f} ms / {sum(replayed.direct_views_ms):.0f} ms) "
        f"| {ratio:.2f} | <= 1.5 | {met} |",
        f"| translation (parse + kind + Spark SQL), median over the build's {len(translations)} "
        f"distinct statements (ms, CPU time) | {translation:.2f} | <= 2 | {met_t} |",
        "",
        "Direct: temporary views over the files the emulator reads (the reader the emulator "
        "uses, `spark.read...load(<Glue location>)`; a Glue view as its translated query), "
        "then `spark.sql(<the emulator's translated SQL>).collect()`, on the emulator's Spark "
        "session, holding its lock, interleaved with the emulator arm. The emulator arm adds "
        "HTTP (StartQueryExecution, GetQueryExecution, GetQueryResults), parsing, Glue "
        "lookups, access checks and result rows. Other cuts of the same replay: the "
        f"emulator's own time (EngineExecutionTimeInMillis) / direct: {engine_ratio:.2f}; "
        f"median of the per-select ratios: {per_select:.2f}; through the API / "
        "`spark.sql(...).collect()` alone with the temporary views made beforehand (so "
        "without Spark's file listing and parquet schema reading): "
        f"{ratio_sql_only:.2f}. Translation: max {max(translations):.2f} ms CPU; median "
        f"{translation_wall:.2f} ms wall (load average {os.getloadavg()[0]:.1f}).",
        "",
    ]
    bench = {
        "build_wall_s": wall,
        "build_dbt_cpu_s": cpu,
        "build_statements": float(len(executed)),
        "build_statements_failed": float(failed),
        "build_selects_replayed": float(n),
        "build_sql_seconds": sum(s.engine_ms for s in executed) / 1000,
        "replay_ratio": ratio,
        "replay_ratio_meets_target": float(ratio <= TARGETS["replay_ratio"]),
        "replay_engine_ratio": engine_ratio,
        "replay_ratio_sql_only": ratio_sql_only,
        "replay_ratio_median_per_select": per_select,
        "translation_median_ms": translation,
        "translation_max_ms": max(translations),
        "translation_median_wall_ms": translation_wall,
        "translation_meets_target": float(translation <= TARGETS["translation_median_ms"]),
        "py_00_rows": float(py_rows),
        "mart_00_rows": float(mart_rows),
        "generated_section_s": total,
    }
    return lines, bench


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="3 SQL + 1 Python model")
    parser.add_argument("--workdir", type=Path, default=None, help="where the project goes")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the section")
    parser.add_argument("--repeats", type=int, default=None, help="replays per select")
    args = parser.parse_args()
    repeats = args.repeats or (1 if args.small else 3)
    with tempfile.TemporaryDirectory(prefix="dbt-athena-xacct-generated-") as scratch:
        lines, bench = measure(args.workdir or Path(scratch), args.small, repeats)
    text = "\n".join(lines)
    print(text)
    for name, value in bench.items():
        print(f"BENCH {name} {value:g}")
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
