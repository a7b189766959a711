"""The measurements of `make bench`. Each returns plain data; run.py formats it.

All of them run against one local emulator (moto + the Calculation API) in its instant
mode: every Spark calculation completes at once and nothing runs Spark.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple, TypeVar

import project as P

COUNTED = ("ListDataCatalogs", "GetDataCatalog")
T = TypeVar("T")


def register_glue_catalogs(emulator, total: int) -> Dict[str, str]:
    """Make exactly ``total`` GLUE catalogs exist (the referenced one first); return their map."""
    wanted = {P.REFERENCED_CATALOG: P.PARTNER_ACCOUNT}
    wanted.update({f"other_catalog_{i:03d}": f"{100000000000 + i:012d}" for i in range(1, total)})
    athena = emulator.client("athena")
    present = {c["CatalogName"] for c in athena.list_data_catalogs()["DataCatalogsSummary"]}
    for name in present - set(wanted) - {"AwsDataCatalog"}:
        athena.delete_data_catalog(Name=name)
    for name, account in wanted.items():
        if name not in present:
            athena.create_data_catalog(Name=name, Type="GLUE", Parameters={"catalog-id": account})
    return wanted


# ---- 1. API calls per dbt run -----------------------------------------------------------
@dataclass
class Cell:
    n_models: int
    threads: int
    catalogs: int
    variant: str
    list_calls: int
    get_calls: int
    reads_partner_account: bool
    seconds: float

    @property
    def calls(self) -> int:
        return self.list_calls + self.get_calls


def api_calls_grid(
    emulator, root: Path, n_models: Sequence[int], threads: Sequence[int], catalogs: Sequence[int]
) -> List[Cell]:
    """One real in-process ``dbt run`` per cell; calls counted at the emulator."""
    cells = []
    for n_catalogs in catalogs:
        register_glue_catalogs(emulator, n_catalogs)
        for n in n_models:
            for variant in P.VARIANTS:
                project = P.write_project(root, variant, n)
                for t in threads:
                    before = len(emulator.submissions)
                    emulator.reset_counters()
                    seconds = P.dbt_in_process(["run", "--threads", str(t)], project)
                    codes = [c.code for c in emulator.submissions[before:]]
                    assert len(codes) == n, (variant, n, len(codes))
                    cells.append(
                        Cell(
                            n,
                            t,
                            n_catalogs,
                            variant,
                            emulator.calls["ListDataCatalogs"],
                            emulator.calls["GetDataCatalog"],
                            all(P.PARTNER_ACCOUNT in code for code in codes),
                            seconds,
                        )
                    )
                    print(f"  calls {cells[-1]}", flush=True)
    return cells


# ---- 2. render overhead ---------------------------------------------------------------
def interleaved(arms: Dict[str, Callable[[], T]], repeats: int) -> Dict[str, List[T]]:
    """Run the arms round-robin ``repeats`` times; return each arm's timings."""
    times: Dict[str, List[T]] = {name: [] for name in arms}
    for _ in range(repeats):
        for name, arm in arms.items():
            times[name].append(arm())
    return times


def render_overhead(
    root: Path, n_models: int, repeats: int, threads: int = 1
) -> Dict[str, List[float]]:
    """Wall time of ``dbt run``: N opted-in models against the same N not opted in."""
    projects = {
        "opted_in": P.write_project(root, "product", n_models, opted_in=True),
        "not_opted_in": P.write_project(root, "product", n_models, opted_in=False),
    }
    for project in projects.values():  # warm partial parse, outside the timings
        if not (project / "target" / "partial_parse.msgpack").exists():
            P.dbt_in_process(["parse"], project)
    arms = {
        name: (
            lambda project=project: P.dbt_in_process(["run", "--threads", str(threads)], project)
        )
        for name, project in projects.items()
    }
    return interleaved(arms, repeats)


# ---- 3. import cost -------------------------------------------------------------------
# Wall and CPU time of the plugin's import, in a fresh process with dbt-athena loaded.
IMPORT_PROBE = """
import time, dbt.adapters.athena
wall, cpu = time.perf_counter(), time.process_time()
import dbt_athena_cross_account
print(time.perf_counter() - wall, time.process_time() - cpu)
"""


def import_seconds(repeats: int) -> Dict[str, List[float]]:
    """Import time of the plugin with dbt-athena already loaded, each in a fresh process."""
    samples: Dict[str, List[float]] = {"wall": [], "cpu": []}
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", IMPORT_PROBE], check=True, capture_output=True, text=True
        )
        wall, cpu = out.stdout.split()[-2:]
        samples["wall"].append(float(wall))
        samples["cpu"].append(float(cpu))
    return samples


def python_without_plugin(root: Path) -> Path:
    """A pip-less venv linking every entry of this one's site-packages except the plugin
    (the same trick as tests/conftest.py's ``python_without_plugin`` fixture)."""
    venv = root / "venv-noplugin"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
            if not entry.name.lower().startswith("dbt_athena_cross_account"):
                (Path(purelib) / entry.name).symlink_to(entry)
    probe = subprocess.run(
        [str(python), "-c", "import dbt_athena_cross_account"], capture_output=True
    )
    assert probe.returncode != 0, "the plugin is importable in the environment without it"
    return python


def parse_cost(root: Path, n_models: int, repeats: int) -> Dict[str, List[Tuple[float, float]]]:
    """``dbt parse --no-partial-parse`` in fresh processes, with and without the plugin:
    (wall, CPU) seconds per run."""
    project = P.write_project(root, "product", n_models)
    without = python_without_plugin(root)
    arms = {
        "with_plugin": lambda: P.dbt_subprocess(["parse", "--no-partial-parse"], project),
        "without_plugin": lambda: P.dbt_subprocess(
            ["parse", "--no-partial-parse"], project, python=without
        ),
    }
    return interleaved(arms, repeats)


# ---- 4. many catalogs with latency ------------------------------------------------------
def probe_with_latency(
    emulator, actions: Sequence[str], latency: float, probe: str, *args: str, stdin: str = ""
) -> Dict:
    """Run ``probe`` in a fresh Python process while the emulator delays ``actions`` by
    ``latency`` seconds (counters reset first); return the JSON of its last output line."""
    emulator.reset_counters()
    emulator.latency.update({action: latency for action in actions})
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe, *args],
            input=stdin,
            check=True,
            capture_output=True,
            text=True,
        )
    finally:
        for action in actions:
            emulator.latency.pop(action, None)
    return json.loads(done.stdout.splitlines()[-1])


# The resolver runs in its own process, as dbt does against a remote AWS: in this process
# it would share the GIL with the emulator's request threads, which penalises concurrency.
LATENCY_PROBE = """
import json, sys, time
from dbt.adapters.athena.config import get_boto3_config
from dbt.adapters.athena.utils import get_catalog_id
import boto3
from dbt_athena_cross_account.resolver import MAX_IN_FLIGHT, CatalogResolver

region, repeats = sys.argv[1], int(sys.argv[2])
# as the adapter builds its client: dbt-athena's retry config, so retries are kept
client = boto3.client("athena", region_name=region, config=get_boto3_config(num_retries=3))
out = {"serial": [], "shipped": [], "maps": []}
for _ in range(repeats):
    for arm, in_flight in (("serial", 1), ("shipped", MAX_IN_FLIGHT)):
        resolver = CatalogResolver(lambda: client, catalog_id_of=get_catalog_id,
                                   max_in_flight=in_flight)
        start = time.perf_counter()
        out["maps"].append(resolver.catalog_map())
        out[arm].append(time.perf_counter() - start)
print(json.dumps(out))
"""


def latency_map(
    emulator, n_catalogs: int, latency: float, repeats: int
) -> Tuple[Dict[str, List[float]], Dict[str, str]]:
    """The no-argument map, serial (max_in_flight=1) against the shipped resolver,
    interleaved; every run must give the same map and make 1 List + N Get calls."""
    expected = register_glue_catalogs(emulator, n_catalogs)
    region = P.athena_target()["region_name"]
    out = probe_with_latency(emulator, COUNTED, latency, LATENCY_PROBE, str(region), str(repeats))
    assert all(result == expected for result in out["maps"]), "a map differs from the catalogs"
    runs = 2 * repeats
    assert emulator.calls["ListDataCatalogs"] == runs, dict(emulator.calls)
    assert emulator.calls["GetDataCatalog"] == runs * n_catalogs, dict(emulator.calls)
    return {"serial": out["serial"], "shipped": out["shipped"]}, expected


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


# ---- 5. the doctor on many tables with latency ------------------------------------------
# The doctor runs in its own process, as it does against a remote AWS, with clients built
# as the adapter builds them (dbt-athena's retry config, botocore's default pool of 10).
# The emulator adds the latency to Athena, Glue and STS calls; it does not see S3 requests
# (moto serves S3 outside the action hook it counts and delays), so the probe delays and
# counts those itself, just before each is sent.
DOCTOR_PROBE = """
import collections, json, sys, time
import boto3
from dbt.adapters.athena.config import get_boto3_config
from dbt_athena_cross_account.doctor.rows import counts
from dbt_athena_cross_account.doctor.run import run_doctor

region, latency, repeats = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
tables = json.loads(sys.stdin.read())
config = get_boto3_config(num_retries=3)
services = ("athena", "glue", "s3", "sts")
clients = {n: boto3.client(n, region_name=region, config=config) for n in services}
s3_calls = collections.Counter()

def s3_latency(event_name, **_kwargs):
    s3_calls[event_name.rsplit(".", 1)[-1]] += 1
    time.sleep(latency)

clients["s3"].meta.events.register("before-send.s3", s3_latency)
out = {"seconds": [], "statuses": [], "s3_calls": []}
for _ in range(repeats):
    s3_calls.clear()
    start = time.perf_counter()
    _, rows = run_doctor(**clients, region=region, tables=tables, work_group="spark_wg")
    out["seconds"].append(time.perf_counter() - start)
    out["statuses"].append(counts(rows))
    out["s3_calls"].append(dict(s3_calls))
print(json.dumps(out))
"""
DOCTOR_DELAYED = (
    "GetCallerIdentity",
    "GetWorkGroup",
    "GetDataCatalog",
    "GetDatabase",
    "GetTable",
    "GetPartitions",
)
PARTITIONED_EVERY = 10  # every 10th table is partitioned, with 2 partitions


def seed_doctor_tables(emulator, n_tables: int, n_databases: int) -> List[str]:
    """``n_tables`` tables over ``n_databases`` databases, one bucket per database, laid out
    as Spark writes them (``_SUCCESS`` next to the data file); returns their names."""
    athena, glue, s3 = (emulator.client(name) for name in ("athena", "glue", "s3"))
    if not athena.get_data_catalog(Name=P.REFERENCED_CATALOG).get("DataCatalog"):
        athena.create_data_catalog(
            Name=P.REFERENCED_CATALOG, Type="GLUE", Parameters={"catalog-id": P.PARTNER_ACCOUNT}
        )
    region = P.athena_target()["region_name"]
    names = []
    for i in range(n_tables):
        database, bucket = f"doctor_db_{i % n_databases:02d}", f"doctor-bench-{i % n_databases:02d}"
        if i < n_databases:
            glue.create_database(DatabaseInput={"Name": database})
            s3.create_bucket(
                Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": region}
            )
        table, prefix = f"t_{i:03d}", f"{database}/t_{i:03d}/"
        partitioned = i % PARTITIONED_EVERY == 0
        keys = ["dt=1/", "dt=2/"] if partitioned else [""]
        for key in keys:
            s3.put_object(Bucket=bucket, Key=f"{prefix}{key}_SUCCESS", Body=b"")
            s3.put_object(Bucket=bucket, Key=f"{prefix}{key}part-00000.parquet", Body=b"PAR1")
        storage = {"Location": f"s3://{bucket}/{prefix}"}
        table_input = {"Name": table, "StorageDescriptor": storage}
        if partitioned:
            table_input["PartitionKeys"] = [{"Name": "dt", "Type": "string"}]
        glue.create_table(DatabaseName=database, TableInput=table_input)
        for key in keys if partitioned else []:
            glue.create_partition(
                DatabaseName=database,
                TableName=table,
                PartitionInput={
                    "Values": [key[3:-1]],
                    "StorageDescriptor": {"Location": f"s3://{bucket}/{prefix}{key}"},
                },
            )
        names.append(f"{P.REFERENCED_CATALOG}.{database}.{table}")
    return names


@dataclass
class DoctorRun:
    seconds: List[float]  # with the latency
    floor: List[float]  # the same runs with no added latency: the machine's own cost
    calls: Dict[str, int]  # per run
    statuses: Dict[str, int]


def _doctor_probe(emulator, tables: List[str], latency: float) -> Dict:
    region = str(P.athena_target()["region_name"])
    out = probe_with_latency(
        emulator, DOCTOR_DELAYED, latency, DOCTOR_PROBE, region, str(latency), "1",
        stdin=json.dumps(tables),
    )  # fmt: skip
    out["calls"] = {**{a: n for a, n in emulator.calls.items() if n}, **out["s3_calls"][0]}
    return out


def doctor_at_scale(
    emulator, n_tables: int, n_databases: int, latency: float, repeats: int
) -> DoctorRun:
    """The doctor on ``n_tables`` tables with ``latency`` seconds per AWS call, interleaved
    with the same run without added latency (on this machine the local emulator's CPU is
    part of every call); every run must make the same calls with the same outcome."""
    tables = seed_doctor_tables(emulator, n_tables, n_databases)
    runs = interleaved(
        {
            "latency": lambda: _doctor_probe(emulator, tables, latency),
            "floor": lambda: _doctor_probe(emulator, tables, 0.0),
        },
        repeats,
    )
    every = runs["latency"] + runs["floor"]
    assert all(r["calls"] == every[0]["calls"] for r in every), [r["calls"] for r in every]
    assert all(r["statuses"] == every[0]["statuses"] for r in every), every
    return DoctorRun(
        [r["seconds"][0] for r in runs["latency"]],
        [r["seconds"][0] for r in runs["floor"]],
        every[0]["calls"],
        every[0]["statuses"][0],
    )
