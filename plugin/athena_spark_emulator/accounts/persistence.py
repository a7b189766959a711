"""State a user can keep: ``athena-spark-emulator run --data-dir DIR``.

Without it an emulator starts from an empty AWS and removes everything when it stops. With
it, ``DIR`` holds, between invocations:

* ``DIR/s3/<bucket>/<key>``: every S3 object (the tables' files, uploaded seeds, Iceberg
  metadata, query results). It is also the warehouse directory Spark reads and writes, so
  a table's files are at its Glue location under ``DIR/s3/``;
* ``DIR/emulator-state.json``: every account's Glue databases and tables, the Athena data
  catalogs, the owners' grants, the accounts' IAM roles (who may assume each), and which
  account owns each bucket;
* ``DIR/.lock``: held (``flock``) by the one emulator using ``DIR``; it names that process;
* ``DIR/.deleted/<bucket>/<key>``: files of S3 objects deleted while a Glue table of the
  saved state still pointed at them (see below).

:class:`Store` keeps them durable while the emulator runs, not only when it stops:

* **What the emulator answers is on disk first.** After every request, before its answer
  is sent (``server.py``), :meth:`Store.checkpoint` writes the S3 objects that changed and,
  when Glue, the data catalogs, the grants or the buckets changed, the state file:
  atomically (a temporary file, fsync, rename, fsync of the directory), so the file on disk
  is always a whole state, the previous one or the new one.
* **A table's old files go only once no table points at them.** An S3 object deleted while
  a table of the saved state still has its location over it is moved to ``DIR/.deleted/``
  (S3 no longer lists it) and removed at the first checkpoint that saves a state in which
  no table points there, or whose table's location holds files again. On start, such a
  file whose table still points at an empty location is put back; the others are removed.
  So a crash at any moment (``kill -9`` included) leaves a directory whose every Glue table
  points at its files.
* **One emulator per directory.** :meth:`Store.open` takes ``DIR/.lock``; a second process
  is refused at start, naming the holder.
* **A full or read-only disk is one clear error naming DIR**: the request that could not
  be saved is answered with it (and later changes are refused until a save succeeds); the
  state file keeps the previous state.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from athena_spark_emulator.accounts.catalog import Catalog, glue_backend, table_input_of
from athena_spark_emulator.core.constants import LOCAL_ACCOUNT, REGION
from athena_spark_emulator.core.errors import EmulatorError

STATE_FILE = "emulator-state.json"
LOCK_FILE = ".lock"
DELETED_DIR = ".deleted"
VERSION = 1

NOT_SAVED = (
    "athena-spark-emulator could not save its state in --data-dir {dir} ({error}), so the "
    "change this request made is not kept there; {dir}/{state} still holds the state saved "
    "before it. Fix: free space on that disk or make {dir} writable, then repeat the request "
    "(changes are refused until a save succeeds)"
)
IN_USE = (
    "--data-dir {dir} is in use by another athena-spark-emulator ({holder}); two emulators "
    "on one directory would write over each other's state. Stop that one, or use another "
    "--data-dir"
)
UNUSABLE = (
    "--data-dir {dir} cannot be used: {error}. The emulator keeps its state there and must "
    "write it: use a writable directory"
)
BAD_STATE = (
    "--data-dir {dir}: {path} is not a state this emulator wrote ({error}). Move it away to "
    "start from an empty state (the files in {dir}/s3/ are kept)"
)


def _accounts() -> List[str]:
    from moto.glue.models import glue_backends
    from moto.s3.models import s3_backends

    return sorted({str(a) for a in list(glue_backends.keys()) + list(s3_backends.keys())})


PARTITIONS = "__partitions__"  # a table's Glue partitions, kept beside its TableInput


def _partition_input(partition: Dict[str, Any]) -> Dict[str, Any]:
    keys = ("StorageDescriptor", "Parameters")
    return {k: partition[k] for k in keys if partition.get(k) is not None}


def _glue_state() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for account in _accounts():
        databases = {}
        for name, database in glue_backend(account).databases.items():
            tables = {}
            for table_name, table in database.tables.items():
                tables[table_name] = {"Name": table_name, **table_input_of(table.as_dict())}
                if table.partitions:  # Glue's partitions of a Hive table, in order
                    tables[table_name][PARTITIONS] = [
                        {"Values": p.values, **_partition_input(p.as_dict())}
                        for p in table.partitions.values()
                    ]
            databases[name] = tables
        if databases:
            out[account] = databases
    return out


def _data_catalogs() -> List[Dict[str, Any]]:
    from moto.athena.models import athena_backends

    found = []
    for name, entry in athena_backends[LOCAL_ACCOUNT][REGION].data_catalogs.items():
        found.append(
            {
                "name": name,
                "type": entry.type,
                "description": entry.description,
                "parameters": entry.parameters,
            }
        )
    return found


def _s3_buckets() -> Dict[str, str]:
    from moto.s3.models import s3_backends

    return {bucket: str(owner[1]) for bucket, owner in s3_backends.bucket_accounts.items()}


def snapshot(catalog: Catalog) -> Dict[str, Any]:
    """The emulator's AWS state but the S3 objects' bytes (what the state file holds)."""
    return {
        "version": VERSION,
        "glue": _glue_state(),
        "data_catalogs": _data_catalogs(),
        "grants": {o: sorted(g) for o, g in list(catalog.grants.items())},
        "roles": [
            {"arn": r.arn, "trusts": list(r.trusts), "external_id": r.external_id}
            for r in catalog.roles.all()
        ],
        "buckets": _s3_buckets(),
    }


def write_atomically(path: Path, data: bytes) -> None:
    """``path`` holds ``data`` or what it held before, never a part: a temporary file in the
    same directory, fsync, rename over ``path``, fsync of the directory."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system lets a directory be fsynced
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def table_locations(state: Dict[str, Any]) -> Set[str]:
    """``bucket/prefix/`` of every Glue table location in ``state`` (S3 ones)."""
    found = set()
    for databases in (state.get("glue") or {}).values():
        for tables in databases.values():
            for table in tables.values():
                location = str((table.get("StorageDescriptor") or {}).get("Location") or "")
                for scheme in ("s3://", "s3a://", "s3n://"):
                    if location.startswith(scheme):
                        found.add(location[len(scheme) :].strip("/") + "/")
    return found


def _covering(locations: Iterable[str], bucket_key: str) -> Optional[str]:
    return next((loc for loc in locations if bucket_key.startswith(loc)), None)


def _has_files(directory: Path) -> bool:
    return directory.is_dir() and any(
        p.is_file() and not p.name.endswith(".crc") for p in directory.rglob("*")
    )


class Store:
    """The durable ``--data-dir`` of one emulator (see the module's docstring)."""

    def __init__(self, data_dir: Path) -> None:
        self.dir = Path(data_dir)
        self.state_path = self.dir / STATE_FILE
        self.deleted = self.dir / DELETED_DIR
        self.catalog: Optional[Catalog] = None
        self.lock = threading.RLock()
        self._lock_fd: Optional[int] = None
        self._saved_text: Optional[str] = None
        self._saved_locations: Set[str] = set()
        self._written: Dict[Tuple[str, str], Any] = {}  # (bucket, key) -> moto's key object
        self.failure: Optional[str] = None  # why the last save failed (None: saved)
        self._request = threading.local()  # a file this request could not remove

    # -- the lock ----------------------------------------------------------------------
    def open(self) -> Store:
        """Create ``DIR`` and take its lock; :class:`EmulatorError` when another process
        holds it, or when ``DIR`` cannot be written."""
        import fcntl

        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise EmulatorError(UNUSABLE.format(dir=self.dir, error=_os_error(exc))) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise EmulatorError(
                    IN_USE.format(dir=self.dir, holder=holder or "its process id is unknown")
                ) from None
            raise EmulatorError(UNUSABLE.format(dir=self.dir, error=_os_error(exc))) from None
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        holder = f"process {os.getpid()}, started {started}: {' '.join(sys.argv)[:300]}"
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, holder.encode("utf-8"), 0)
            os.fsync(fd)
        except OSError as exc:
            os.close(fd)
            raise EmulatorError(UNUSABLE.format(dir=self.dir, error=_os_error(exc))) from None
        self._lock_fd = fd
        return self

    def close(self) -> None:
        """Release the lock (the last checkpoint is the caller's)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor releases the flock
            self._lock_fd = None

    # -- start: put the saved state back -------------------------------------------------
    def load(self, catalog: Catalog) -> bool:
        """Put the saved state back into the emulator's moto backends (False when ``DIR``
        holds none yet), after settling the files deleted while a table pointed at them."""
        self.catalog = catalog
        state: Dict[str, Any] = {}
        if self.state_path.is_file():
            try:
                state = json.loads(self.state_path.read_text("utf-8"))
                if not isinstance(state, dict):
                    raise ValueError("not a JSON object")
            except (OSError, ValueError) as exc:
                raise EmulatorError(
                    BAD_STATE.format(dir=self.dir, path=self.state_path, error=exc)
                ) from None
        self._settle_deleted(table_locations(state), restore=True)
        if not state:
            return False
        _load_s3(self.dir / "s3", state.get("buckets") or {})
        _load_glue(catalog, state.get("glue") or {})
        _load_data_catalogs(state.get("data_catalogs") or [])
        for owner, grantees in (state.get("grants") or {}).items():
            for grantee in grantees:
                catalog.grant(owner, grantee)
        for role in state.get("roles") or []:
            account, _, name = role["arn"].split(":", 4)[4].partition(":role/")
            catalog.roles.add(account, name, role.get("trusts") or [], role.get("external_id"))
        self._saved_locations = table_locations(state)
        return True

    # -- while running -----------------------------------------------------------------
    def checkpoint(self) -> Optional[str]:
        """Write what changed since the last checkpoint (S3 objects, then the state file);
        None when saved, else the error to answer (also kept in :attr:`failure`)."""
        if self.catalog is None:
            return None
        failed_here = getattr(self._request, "failure", None)
        self._request.failure = None
        with self.lock:
            try:
                self._save()
            except OSError as exc:
                self.failure = NOT_SAVED.format(
                    dir=self.dir, error=_os_error(exc), state=STATE_FILE
                )
                print(f"athena-spark-emulator: {self.failure}", file=sys.stderr, flush=True)
                return self.failure
            self.failure = None
            if failed_here:
                print(f"athena-spark-emulator: {failed_here}", file=sys.stderr, flush=True)
            return failed_here

    def _save(self) -> None:
        assert self.catalog is not None
        for attempt in range(5):  # another thread may change moto's dicts while they are read
            try:
                self._write_objects()
                state = snapshot(self.catalog)
                break
            except RuntimeError:
                if attempt == 4:
                    raise
        text = json.dumps(state, indent=1, default=str)
        if text != self._saved_text:
            write_atomically(self.state_path, text.encode("utf-8"))
            self._saved_text = text
            self._saved_locations = table_locations(state)
        self._settle_deleted(self._saved_locations, restore=False)

    def remove(self, bucket: str, key: str) -> None:
        """An S3 object was deleted: move its file to ``DIR/.deleted/`` when a table of the
        saved state points over it, else remove it (then the directories left empty)."""
        assert self.catalog is not None
        path = self.catalog.local_path(f"s3://{bucket}/{key}")
        with self.lock:
            self._written.pop((bucket, key), None)
            try:
                if path.is_file() and _covering(self._saved_locations, f"{bucket}/{key}"):
                    kept = self.deleted / bucket / key
                    kept.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(path, kept)
                self.catalog.remove_local(bucket, key)
            except OSError as exc:
                self._request.failure = NOT_SAVED.format(
                    dir=self.dir, error=_os_error(exc), state=STATE_FILE
                )

    def _write_objects(self) -> None:
        """Write every S3 object whose file is missing or differs (fsync'd, renamed in)."""
        from moto.s3.models import s3_backends

        assert self.catalog is not None
        for bucket, owner in list(s3_backends.bucket_accounts.items()):
            backend = s3_backends[str(owner[1])][owner[0]]
            try:
                keys = list(backend.get_bucket(bucket).keys.items())
            except Exception:  # deleted meanwhile
                continue
            for key, obj in keys:
                if key.endswith("/") or self._written.get((bucket, key)) is obj:
                    continue
                path = self.dir / "s3" / bucket / key
                data = obj.value
                if not (
                    path.is_file()
                    and path.stat().st_size == len(data)
                    and path.read_bytes() == data
                ):
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_atomically(path, data)
                self._written[(bucket, key)] = obj

    def _settle_deleted(self, locations: Set[str], restore: bool) -> None:
        """Files in ``DIR/.deleted/``: kept while a table of the saved state points at an
        empty location over them (``restore``: put back there), removed otherwise."""
        if not self.deleted.is_dir():
            return
        s3_root = self.dir / "s3"
        for kept in sorted(p for p in self.deleted.rglob("*") if p.is_file()):
            bucket_key = kept.relative_to(self.deleted).as_posix()
            location = _covering(locations, bucket_key)
            if location is not None and not _has_files(s3_root / location):
                if restore:
                    target = s3_root / bucket_key
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(kept, target)
                continue
            kept.unlink()
        for directory in sorted(self.deleted.rglob("*"), reverse=True):
            if directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()


def _os_error(exc: OSError) -> str:
    return f"[Errno {exc.errno}] {exc.strerror}" if exc.strerror else str(exc)


def save(catalog: Catalog, data_dir: Path) -> None:
    """Write the emulator's AWS state into ``data_dir`` once (S3 objects as files)."""
    store = Store(data_dir)
    store.catalog = catalog
    failure = store.checkpoint()
    if failure:
        raise EmulatorError(failure)


def load(catalog: Catalog, data_dir: Path) -> bool:
    """Put a saved state back (False when ``data_dir`` holds none yet)."""
    return Store(data_dir).load(catalog)


def _load_s3(root: Path, buckets: Dict[str, str]) -> None:
    from moto.s3.models import s3_backends

    for bucket_dir in sorted(root.iterdir()) if root.is_dir() else []:
        backend = s3_backends[buckets.get(bucket_dir.name, LOCAL_ACCOUNT)]["aws"]
        if bucket_dir.name not in s3_backends.bucket_accounts:
            backend.create_bucket(bucket_dir.name, REGION)
        for file in bucket_dir.rglob("*"):
            if file.is_file() and not file.name.endswith(".crc"):
                key = file.relative_to(bucket_dir).as_posix()
                backend.put_object(
                    bucket_dir.name, key, file.read_bytes(), disable_notification=True
                )


def _load_glue(catalog: Catalog, glue: Dict[str, Any]) -> None:
    for account, databases in glue.items():
        backend = glue_backend(account)
        for name, tables in databases.items():
            catalog.ensure_database(account, name)
            for table_name, table_input in tables.items():
                backend.databases[name].tables.pop(table_name, None)
                partitions = table_input.pop(PARTITIONS, [])
                backend.create_table(name, table_name, table_input)
                for partition in partitions:
                    backend.create_partition(name, table_name, partition)


def _load_data_catalogs(entries: List[Dict[str, Any]]) -> None:
    from moto.athena.models import athena_backends

    athena = athena_backends[LOCAL_ACCOUNT][REGION]
    for entry in entries:
        athena.data_catalogs.pop(entry["name"], None)
        athena.create_data_catalog(
            entry["name"],
            entry["type"],
            entry.get("description") or "",
            entry.get("parameters"),  # type: ignore[arg-type]  # moto's annotation is wrong
            [],
        )
