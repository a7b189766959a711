"""``athena-spark-emulator serve --data-dir DIR`` is durable, as users run it: the
installed console script in a process of its own (no Spark), stopped the hard way
(``kill -9``) between two calls and started again on the same directory.

The calls are the ones dbt-athena makes to rebuild a Hive table (S3 PutObject + Glue
CreateTable; DeleteObjects of its location, then Glue DeleteTable; the new table at a new
location). After each kill, every Glue table must point at files that exist, and what
the emulator answered must be there. Plus: a second process on one directory is refused,
naming the holder; a full disk (a file size limit: the kernel refuses the write as a full
disk does) is one clear error naming the directory, and the previous state stays readable.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from athena_spark_emulator.accounts import persistence
from athena_spark_emulator.accounts.persistence import STATE_FILE
from athena_spark_emulator.core.constants import SCHEMA
from athena_spark_emulator.core.errors import EmulatorError
from athena_spark_emulator.profile import profiles_yml
from tests.stack import dbt_cli

CLI = str(Path(sys.executable).parent / "athena-spark-emulator")
BUCKET = "dbt-data"
ROWS = b'{"id": 1}\n{"id": 2}\n'


class Served:
    """One ``serve --data-dir`` process and boto3 clients for it."""

    def __init__(self, data_dir: Path, limit: Optional[int] = None, spark: bool = False) -> None:
        def preexec() -> None:
            os.setsid()
            if limit is not None:  # writes past ``limit`` bytes fail with EFBIG
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        self.process = subprocess.Popen(
            [CLI, "serve", "--data-dir", str(data_dir), *(["--spark"] if spark else [])],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=preexec,
            env=base,
        )
        self.env: Dict[str, str] = {}
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("export "):
                key, _, value = line[len("export ") :].strip().partition("=")
                self.env[key] = value
            if line.startswith("# serving until Ctrl-C"):
                break
        assert "AWS_ENDPOINT_URL" in self.env, self.process.stderr.read()  # type: ignore[union-attr]

    def client(self, service: str) -> Any:
        return boto3.client(
            service,
            endpoint_url=self.env["AWS_ENDPOINT_URL"],
            region_name=self.env["AWS_DEFAULT_REGION"],
            aws_access_key_id=self.env["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=self.env["AWS_SECRET_ACCESS_KEY"],
            config=Config(retries={"max_attempts": 2, "mode": "standard"}),
        )

    def kill(self) -> None:
        """``kill -9``: nothing runs after it."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.communicate(timeout=60)


@pytest.fixture
def served():
    started: List[Served] = []

    def start(data_dir: Path, limit: Optional[int] = None, spark: bool = False) -> Served:
        started.append(Served(data_dir, limit, spark))
        return started[-1]

    yield start
    for one in started:
        if one.process.poll() is None:
            one.kill()


def put_table(emulator: Served, name: str, location: str) -> None:
    """What dbt-athena does to create a Hive table: its files, then its Glue entry."""
    s3, glue = emulator.client("s3"), emulator.client("glue")
    s3.put_object(Bucket=BUCKET, Key=f"{location}part-00000.json", Body=ROWS)
    glue.create_table(
        DatabaseName="sales",
        TableInput={
            "Name": name,
            "TableType": "EXTERNAL_TABLE",
            "StorageDescriptor": {
                "Columns": [{"Name": "id", "Type": "int"}],
                "Location": f"s3://{BUCKET}/{location}",
            },
        },
    )


def drop_files(emulator: Served, location: str) -> None:
    """dbt-athena's clean_up_table: DeleteObjects of the table's location (Glue next)."""
    s3 = emulator.client("s3")
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix=location)["Contents"]]
    s3.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": k} for k in keys]})


def tables_and_their_files(
    emulator: Served, data_dir: Path, database: str = "sales"
) -> Dict[str, List[str]]:
    """{table: the files under its location} (on disk, as Spark reads them; S3 agrees)."""
    glue, s3 = emulator.client("glue"), emulator.client("s3")
    found = {}
    for table in glue.get_tables(DatabaseName=database)["TableList"]:
        location = table["StorageDescriptor"]["Location"][len("s3://") :]
        bucket, _, prefix = location.partition("/")
        on_disk = sorted(
            p.relative_to(data_dir / "s3").as_posix()
            for p in (data_dir / "s3" / bucket / prefix).rglob("*")
            if p.is_file() and not p.name.endswith(".crc")  # Hadoop's checksums: not S3's
        )
        listed = s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
        assert sorted(f"{bucket}/{o['Key']}" for o in listed) == on_disk, table["Name"]
        found[table["Name"]] = on_disk
    return found


def test_kill_9_at_each_step_of_a_table_rebuild_leaves_every_table_with_its_files(tmp_path, served):
    """Before: the state was written only at a clean stop, so after a kill the table made
    before it was gone (or, from an older state, pointed at deleted files: PATH_NOT_FOUND)."""
    data = tmp_path / "state"
    steps: List[Callable[[Served], None]] = [
        lambda e: (  # the bucket is one the emulator makes for dbt-athena's profile
            e.client("glue").create_database(DatabaseInput={"Name": "sales"}),
            put_table(e, "orders", "tables/orders/v1/"),
        ),
        lambda e: drop_files(e, "tables/orders/v1/"),  # killed before the Glue delete
        lambda e: (  # dbt's next run drops it again: its files, then its Glue entry
            drop_files(e, "tables/orders/v1/"),
            e.client("glue").delete_table(DatabaseName="sales", Name="orders"),
        ),
        lambda e: put_table(e, "orders", "tables/orders/v2/"),
    ]
    expected = [
        {"orders": [f"{BUCKET}/tables/orders/v1/part-00000.json"]},
        {"orders": [f"{BUCKET}/tables/orders/v1/part-00000.json"]},  # kept: Glue points there
        {},
        {"orders": [f"{BUCKET}/tables/orders/v2/part-00000.json"]},
    ]
    emulator = served(data)
    for step, wanted in zip(steps, expected):
        step(emulator)
        emulator.kill()
        emulator = served(data)
        assert tables_and_their_files(emulator, data) == wanted
    # the files deleted while a table pointed at them are gone once none does
    assert not (data / "s3" / BUCKET / "tables" / "orders" / "v1").exists()
    assert not list(data.glob(".deleted/**/*.json"))


@pytest.mark.spark
@pytest.mark.dbt
def test_kill_9_after_a_dbt_run_that_passed_keeps_the_rebuilt_table_and_its_files(tmp_path, served):
    """A Python model built twice (the second run deletes the first build's files and
    writes new ones), then kill -9: the table and the files it points at are there."""
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: durable\nversion: '1.0'\nconfig-version: 2\nprofile: durable\n", "utf-8"
    )
    (project / "profiles.yml").write_text(profiles_yml("durable"), "utf-8")
    (project / "models" / "rebuilt.py").write_text(
        'def model(dbt, spark):\n    dbt.config(materialized="table")\n'
        '    return spark.createDataFrame([(1,), (2,)], ["id"])\n',
        "utf-8",
    )
    data = tmp_path / "state"
    emulator = served(data, spark=True)
    for _ in range(2):  # dbt in a process forked from a warm one (tests/forked_dbt.py)
        done = dbt_cli(["run"], project, project, dict(emulator.env))
        assert done.returncode == 0, done.stdout[-3000:]
    emulator.kill()
    again = served(data)  # no Spark needed to look
    [files] = tables_and_their_files(again, data, SCHEMA).values()
    assert [f for f in files if f.endswith(".parquet")], files


def test_a_second_emulator_on_the_same_directory_is_refused_naming_the_first(tmp_path, served):
    data = tmp_path / "state"
    first = served(data)
    base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    second = subprocess.run(
        [CLI, "serve", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        timeout=120,
        env=base,
    )
    assert second.returncode == 2, second.stderr
    assert (
        f"athena-spark-emulator: error: --data-dir {data} is in use by another athena-spark-emulator "
        f"(process {first.process.pid}, started "
    ) in second.stderr
    assert "Stop that one, or use another --data-dir" in second.stderr
    assert "Traceback" not in second.stderr
    first.client("glue").create_database(DatabaseInput={"Name": "sales"})  # the first goes on


def test_a_full_disk_is_one_clear_error_and_the_previous_state_stays_readable(tmp_path, served):
    """Before: the state was written in place at exit and cut at the limit (JSONDecodeError on
    every later start), and the request that could not be kept was answered as done."""
    data = tmp_path / "state"
    emulator = served(data, limit=256 * 1024)
    glue = emulator.client("glue")
    glue.create_database(DatabaseInput={"Name": "sales"})
    with pytest.raises(ClientError) as refused:
        glue.create_table(
            DatabaseName="sales",
            TableInput={"Name": "big", "Parameters": {"note": "x" * 300_000}},
        )
    message = refused.value.response["Error"]["Message"]
    assert refused.value.response["Error"]["Code"] == "InternalFailure"
    assert message.startswith(
        f"athena-spark-emulator could not save its state in --data-dir {data} "
        "([Errno 27] File too large), so the change this request made is not kept there; "
        f"{data}/{STATE_FILE} still holds the state saved before it."
    ), message
    # refused until a save succeeds: nothing else is answered as done meanwhile
    with pytest.raises(ClientError, match="could not save its state"):
        glue.create_database(DatabaseInput={"Name": "small"})
    state = json.loads((data / STATE_FILE).read_text())  # whole: the previous state
    assert state["glue"]["123456789012"]["sales"] == {}  # no table 'big'

    assert not [p for p in data.iterdir() if p.name.endswith(".tmp")]
    emulator.kill()
    again = served(data)
    glue = again.client("glue")
    names = [d["Name"] for d in glue.get_databases()["DatabaseList"]]
    assert "sales" in names and "small" not in names
    assert glue.get_tables(DatabaseName="sales")["TableList"] == []


def test_a_read_only_directory_is_refused_at_start_naming_it(tmp_path, monkeypatch):
    """Fault injected into the writer (as root, permissions do not stop a write)."""
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any) -> int:
        if str(path).startswith(str(tmp_path)) and flags & (os.O_RDWR | os.O_WRONLY):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *args)

    (tmp_path / "state").mkdir()
    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(EmulatorError) as refused:
        persistence.Store(tmp_path / "state").open()
    assert str(refused.value) == (
        f"--data-dir {tmp_path / 'state'} cannot be used: [Errno 30] Read-only file system. "
        "The emulator keeps its state there and must write it: use a writable directory"
    )


def test_a_file_that_cannot_be_removed_is_a_clear_error_not_a_traceback(tmp_path, monkeypatch):
    """DeleteObjects on a directory that turned read-only: the request's answer names it."""
    from athena_spark_emulator.accounts.catalog import Catalog

    store = persistence.Store(tmp_path)
    store.catalog = Catalog(tmp_path)
    path = tmp_path / "s3" / BUCKET / "a" / "part-0.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(ROWS)

    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(Path, "unlink", refuse)
    store.remove(BUCKET, "a/part-0.json")
    monkeypatch.setattr(persistence.Store, "_write_objects", lambda self: None)
    monkeypatch.setattr("athena_spark_emulator.accounts.persistence.snapshot", lambda catalog: {})
    store._saved_text = "{}"
    failure = store.checkpoint()
    assert failure is not None and failure.startswith(
        f"athena-spark-emulator could not save its state in --data-dir {tmp_path} "
        "([Errno 30] Read-only file system)"
    ), failure
    assert store.checkpoint() is None  # the next request, that one removed nothing


def test_a_state_file_that_is_not_one_is_named_at_start(tmp_path):
    (tmp_path / STATE_FILE).write_text('{"version": 1, "glue": {', "utf-8")
    with pytest.raises(EmulatorError, match=r"is not a state this emulator wrote \(Expecting"):
        persistence.Store(tmp_path).load(None)  # type: ignore[arg-type]


def test_the_accounts_roles_are_kept_with_who_may_assume_them(tmp_path):
    """A seed's roles (``accounts.<id>.roles``) survive a restart on the same directory:
    without them every read through a role would be refused after it."""
    from athena_spark_emulator.accounts.catalog import Catalog

    before = Catalog(tmp_path / "a")
    reader = before.roles.add("321321321321", "dbt-reader", ["arn:aws:iam::123:role/X"], "id-1")
    other = before.roles.add("321321321321", "path/other", ["111111111111"])
    (tmp_path / "state").mkdir()
    persistence.save(before, tmp_path / "state")
    after = Catalog(tmp_path / "b")
    assert persistence.load(after, tmp_path / "state")
    assert after.roles.all() == [reader, other]
    assert after.roles.get(reader.arn) == reader
