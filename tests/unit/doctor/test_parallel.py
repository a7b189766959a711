"""Many tables: bounded parallelism, and one call per distinct catalog, database, table,
location and bucket, nothing repeated."""

from __future__ import annotations

import collections
import time

from dbt_athena_cross_account.doctor import calls as calls_module
from dbt_athena_cross_account.doctor.rows import PASS
from tests.doctor_support import WORLD
from tests.doctor_support.world import scale_tables
from tests.unit.doctor.helpers import run

LATENCY = 0.05


def test_many_tables_run_in_parallel_with_one_call_per_distinct_thing(aws):
    tables = scale_tables()
    scale = WORLD["scale"]
    aws.set_latency(LATENCY)
    try:
        aws.clear_log()
        started = time.perf_counter()
        _, rows = run(aws, tables=tables)
        elapsed = time.perf_counter() - started
    finally:
        aws.set_latency(0)
    assert {r.status for r in rows} == {PASS}, [r for r in rows if r.status != PASS]
    calls = collections.Counter(aws.actions())
    assert calls == {
        "GetCallerIdentity": 1,
        "GetWorkGroup": 1,
        "GetDataCatalog": 1,
        "GetDataCatalogEncryptionSettings": 1,  # once per owner account, not per table
        "GetDatabase": scale["databases"],
        "GetTable": len(tables),
        "ListObjectsV2": len(tables),
        "GetObject": len(tables),
        "GetBucketEncryption": len(scale["buckets"]),
    }
    # several calls at once; per service never more than the bound or the client's pool
    assert aws.most_in_flight() >= 8
    bound = min(calls_module.MAX_IN_FLIGHT, calls_module.pool_size(aws.client("s3")))
    for service in ("glue", "s3"):
        assert 2 <= aws.most_in_flight(service) <= bound, service
    serial = sum(calls.values()) * LATENCY
    assert elapsed < serial / 2, (elapsed, serial)
