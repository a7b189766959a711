"""Run submitted dbt Python model code on a real Spark Connect session, as dbt-athena's
Spark Connect path does for Athena's Apache Spark 3.5 engine (dbt-labs/dbt-adapters pull
request #1874: ``exec(code, {"spark": <Spark Connect session>})`` in the dbt process).

Runs in the PySpark 4 venv (``make venv-connect``), not under pytest, and imports nothing of
this repository: the tests render the code with dbt in the main venv and pass it here.

    python connect_runner.py JOB.json RESULT.json

``JOB.json``: ``{"local": account, "world": {account: {"grants": [...], "databases": {db:
{table: {"format", "columns", "rows"}}}}}, "runs": [{"name", "code", "spark_properties"}]}``,
the world in the emulator's seed-file shape. ``RESULT.json``: ``{name: {"ok": true,
"rows": [...]} | {"ok": false, "type", "message", "raised_in"}}``.

The Spark Connect server is PySpark 4's local one (``SparkSession.builder.remote("local[1]")``);
its built-in catalog stands in for Glue. ``spark`` is that session behind a thin stand-in
for what Athena's session has and a local server has not:

* the session's Spark properties (what dbt-athena's StartSession sent) answer
  ``spark.conf.get`` for the keys they set; ``spark.conf.set`` goes to the real session;
* the AWS Glue Hive client: with the ``/`` separator, ``spark.table("`<owner>/<db>`.`<t>`")``
  reads the owner's table (a local database per owner account: Spark's built-in catalog
  rejects ``/``), Glue's lower case applied; ``SHOW TBLPROPERTIES`` of such a name likewise;
* Iceberg's GlueCatalog for a catalog registered at run time with ``glue.id``, only when the
  session has Iceberg's classes (a Spark property names an ``org.apache.iceberg.`` class,
  the emulator's rule); without them the name goes to the real server, whose own error
  (``CATALOG_PLUGIN_CLASS_NOT_FOUND``) is what Athena raises.

The stand-in only rewrites names: the DataFrames are the real server's, so they are lazy as
on Athena's 3.5 engine, and a missing table fails where the real server says so. The code's
last line (dbt-athena's ``materialize(spark, df, dbt.this)``, which writes to S3) is replaced
by collecting the model's DataFrame.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import traceback
from typing import Any, Dict, List, Optional, Tuple

MATERIALIZE = "materialize(spark, df, dbt.this)"
SEPARATOR_KEY = "spark.hadoop.aws.glue.catalog.separator"
ICEBERG_CLASS = "org.apache.iceberg."
TYPES = {"int": "INT", "bigint": "BIGINT", "double": "DOUBLE", "string": "STRING"}


def split_identifier(name: str) -> List[str]:
    """Spark's multipart identifier: dots outside backticks split, `` `` `` is a backtick."""
    parts: List[str] = []
    current, quoted, i = "", False, 0
    while i < len(name):
        char = name[i]
        if quoted and char == "`" and name[i + 1 : i + 2] == "`":
            current, i = current + "`", i + 2
            continue
        if char == "`":
            quoted = not quoted
        elif char == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += char
        i += 1
    parts.append(current)
    return parts


def quote(part: str) -> str:
    return "`" + part.replace("`", "``") + "`"


def local_database(account: str, database: str, local: str) -> str:
    """The server's database for an account's Glue database (a safe, reversible name)."""
    safe = re.sub(r"[^a-z0-9_]", lambda m: f"_x{ord(m.group()):02x}", database.lower())
    return safe if account == local else f"acct_{account}__{safe}"


class World:
    """The accounts' Glue databases and tables, created on the Spark Connect server."""

    def __init__(self, spec: Dict[str, Any], local: str) -> None:
        self.local = local
        self.grants = {acct: set(a.get("grants") or []) for acct, a in spec.items()}
        self.formats: Dict[Tuple[str, str, str], str] = {}
        self.spec = spec

    def create(self, spark: Any) -> None:
        for account, body in self.spec.items():
            for database, tables in (body.get("databases") or {}).items():
                db = local_database(account, database, self.local)
                spark.sql(f"CREATE DATABASE IF NOT EXISTS {quote(db)}")
                for table, t in (tables or {}).items():
                    fmt = t.get("format", "hive")
                    self.formats[(account, database.lower(), table.lower())] = fmt
                    name = f"{quote(db)}.{quote(table.lower())}"
                    cols = ", ".join(f"{quote(c)} {TYPES[ty]}" for c, ty in t["columns"].items())
                    props = " TBLPROPERTIES ('table_type'='ICEBERG')" if fmt == "iceberg" else ""
                    spark.sql(f"CREATE TABLE {name} ({cols}) USING parquet{props}")
                    if t.get("rows"):
                        ddl = ", ".join(f"{c} {TYPES[ty]}" for c, ty in t["columns"].items())
                        spark.createDataFrame(t["rows"], ddl).write.insertInto(name)

    def readable_by(self, owner: str) -> bool:
        return owner == self.local or self.local in self.grants.get(owner, set())

    def name(self, account: str, database: str, table: str) -> str:
        db = local_database(account, database, self.local)
        return f"{quote(db)}.{quote(table.lower())}"


class Conf:
    """``spark.conf``: the session's Spark properties first, then the real session's."""

    def __init__(self, real: Any, properties: Dict[str, str]) -> None:
        self.real, self.properties = real, dict(properties)

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        if key in self.properties:
            return self.properties[key]
        return self.real.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.properties.pop(key, None)
        self.real.set(key, value)


class AthenaSession:
    """The Spark Connect session as Athena's has it: Glue names rewritten, nothing else."""

    def __init__(self, real: Any, world: World, properties: Dict[str, str]) -> None:
        self._real, self._world = real, world
        self.conf = Conf(real.conf, properties)
        self._classes = any(ICEBERG_CLASS in str(v) for v in properties.values())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def _glue_name(self, name: str) -> str:
        parts = split_identifier(name)
        if len(parts) == 2 and "/" in parts[0] and self.conf.get(SEPARATOR_KEY) == "/":
            owner, database = parts[0].split("/", 1)
            if not self._world.readable_by(owner):
                raise RuntimeError(f"account {owner} grants nothing in this test world")
            return self._world.name(owner, database, parts[1])
        if len(parts) == 3 and self._classes:
            glue_id = self.conf.get(f"spark.sql.catalog.{parts[0]}.glue.id")
            if glue_id:  # Iceberg's GlueCatalog for the owner glue.id names
                key = (glue_id, parts[1].lower(), parts[2].lower())
                if self._world.formats.get(key) != "iceberg":  # not Iceberg: not found
                    return self._world.name(glue_id, parts[1], "no_iceberg_table_" + parts[2])
                return self._world.name(glue_id, parts[1], parts[2])
        return name

    def table(self, name: str) -> Any:
        return self._real.table(self._glue_name(name))

    def sql(self, statement: str, *args: Any, **kwargs: Any) -> Any:
        found = re.fullmatch(r"(?is)\s*SHOW\s+TBLPROPERTIES\s+(.+?)\s*(\(.*\))\s*", statement)
        if found:
            statement = f"SHOW TBLPROPERTIES {self._glue_name(found.group(1))} {found.group(2)}"
        return self._real.sql(statement, *args, **kwargs)


def run_one(real: Any, world: World, run: Dict[str, Any]) -> Dict[str, Any]:
    code = run["code"].rstrip()
    if not code.endswith(MATERIALIZE):
        raise SystemExit(f"{run['name']}: the code does not end with {MATERIALIZE!r}")
    code = code[: -len(MATERIALIZE)] + "rows = [r.asDict() for r in df.collect()]\n"
    spark = AthenaSession(real, world, run.get("spark_properties") or {})
    scope: Dict[str, Any] = {"spark": spark}
    try:
        exec(compile(code, run["name"] + ".py", "exec"), scope)
    except Exception as error:
        frames = traceback.extract_tb(error.__traceback__)
        ours = [f.name for f in frames if f.filename == run["name"] + ".py"]
        return {
            "ok": False,
            "type": type(error).__name__,
            "message": str(error),
            "raised_in": ours[-1] if ours else None,
        }
    return {"ok": True, "rows": scope["rows"]}


def main(job_path: str, result_path: str) -> None:
    from pyspark.sql import SparkSession

    with open(job_path, encoding="utf-8") as handle:
        job = json.load(handle)
    warehouse = tempfile.mkdtemp(prefix="spark-connect-warehouse-")
    real = (
        SparkSession.builder.remote("local[1]")
        .config("spark.sql.warehouse.dir", warehouse)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        # as the emulator's JVM: the first JIT tier only (short session, small data)
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1")
        .getOrCreate()
    )
    try:
        world = World(job["world"], job["local"])
        world.create(real)
        results = {run["name"]: run_one(real, world, run) for run in job["runs"]}
        results["_versions"] = {
            "pyspark": __import__("pyspark").__version__,
            "server": real.version,
        }
    finally:
        real.stop()
    with open(result_path, "w", encoding="utf-8") as handle:
        json.dump(results, handle, default=str)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
