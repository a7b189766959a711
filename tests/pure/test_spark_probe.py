"""doctor/spark_probe.py and spark_run.py without dbt: grouping models by session
configuration, the calculation's code, reading its result, mapping failures to reasons and
fixes, and a probe whose every session is terminated, on a timeout and on Ctrl-C (a fake
Athena client records the calls)."""

from __future__ import annotations

import io
import json
import threading
import time
from typing import Any, Dict, List

import pytest

from dbt_athena_cross_account.doctor import spark_run
from dbt_athena_cross_account.doctor.rows import Identity
from dbt_athena_cross_account.doctor.spark_probe import (
    MARKER,
    SessionFacts,
    calculation_code,
    group_models,
    name_sessions,
    not_probed_rows,
    parse_output,
    session_lines,
    table_rows,
)
from dbt_athena_cross_account.formats import read_errors

ROLE = "arn:aws:iam::123456789012:role/spark-exec"
IDENTITY = Identity(
    account="123456789012", principal="arn:aws:iam::123456789012:role/dbt", execution_role=ROLE
)
HIVE = {"SparkProperties": {"spark.hadoop.aws.glue.catalog.separator": "/"}}
ICEBERG = {
    "SparkProperties": {
        **HIVE["SparkProperties"],
        "spark.sql.catalog.spark_catalog": "org.apache.iceberg.spark.SparkSessionCatalog",
    }
}


def model(uid: str, engine: Dict[str, Any], *tables: str, local: str = "") -> Dict[str, Any]:
    reads, plan = [], {}
    for name in tables:
        catalog, schema, table = name.split(".")
        key = f'"{catalog}"."{schema}"."{table}"'
        reads.append({"keys": [key], "catalog": catalog, "schema": schema, "table": table})
        plan[key] = {"table": f"`999999999999/{schema}`.`{table}`", "account": "999999999999"}
    if local:
        reads.append({"keys": [local], "catalog": "awsdatacatalog", "schema": "s", "table": "t"})
        plan[local] = {"table": "`s`.`t`", "account": None}
    return {"unique_id": uid, "engine_config": engine, "reads": reads, "plan": plan}


def test_models_with_the_same_session_configuration_share_one_group():
    groups = group_models(
        [
            model("model.p.a", HIVE, "cat.sales.orders", local="local_key"),
            model("model.p.b", ICEBERG, "cat.sales.shipments"),
            model("model.p.c", json.loads(json.dumps(HIVE)), "cat.sales.orders", "cat.hr.staff"),
            model("model.p.local_only", HIVE, local="other"),
        ]
    )
    assert [g.models for g in groups] == [["model.p.a", "model.p.c"], ["model.p.b"]]
    assert [t.subject for t in groups[0].tables.values()] == ["cat.sales.orders", "cat.hr.staff"]
    assert "local_key" not in groups[0].plan  # local reads are not probed
    assert groups[1].label == "session of model.p.b (with Iceberg classes)"


def test_the_calculation_is_the_read_code_with_the_groups_plan_then_the_probe():
    group = group_models([model("model.p.a", HIVE, "cat.sales.orders")])[0]
    code = calculation_code("import json as _cross_account_json\n# READ CODE\n", group)
    assert code.index("# READ CODE") < code.index("_CROSS_ACCOUNT_TABLES = ")
    assert "limit(1)" in code and ".write" not in code and "saveAsTable" not in code
    compile(code, "<probe>", "exec")  # valid Python


def test_the_probe_runs_and_prints_one_result_per_table():
    """The calculation run by plain Python, with a fake spark and get_spark_df."""
    group = group_models([model("model.p.a", HIVE, "cat.sales.orders", "cat.sales.gone")])[0]
    read_code = (
        "import json as _cross_account_json\n"
        "def _cross_account_table(read): return read['table'], 'hive'\n"
        "class _DF:\n"
        "    class schema: fields = [1, 2, 3]\n"
        "    def limit(self, n): return self\n"
        "    def collect(self): return [('row',)]\n"
        "def get_spark_df(key):\n"
        "    if 'gone' in key: raise RuntimeError('dbt_athena_cross_account: gone could not be read')\n"
        "    return _DF()\n"
    )
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stdout", out)
        exec(compile(calculation_code(read_code, group), "<probe>", "exec"), {})
    results = parse_output("noise\n" + out.getvalue())
    assert results == {
        '"cat"."sales"."orders"': {
            "key": '"cat"."sales"."orders"',
            "ok": True,
            "columns": 3,
            "rows": 1,
            "format": "hive",
        },
        '"cat"."sales"."gone"': {
            "key": '"cat"."sales"."gone"',
            "ok": False,
            "type": "RuntimeError",
            "error": "dbt_athena_cross_account: gone could not be read",
        },
    }
    assert parse_output("no marker") is None


def rule_message(kind: int) -> str:
    return read_errors("source('p', 'orders')", "999999999999", "sales", "orders")[kind]["message"]


def test_a_glue_refusal_gets_the_policies_for_the_execution_role_only():
    group = group_models([model("model.p.a", HIVE, "cat.sales.orders")])[0]
    key = next(iter(group.plan))
    error = rule_message(1) + "\nSpark: AccessDeniedException ..."
    [row] = table_rows(group, {key: {"ok": False, "error": error}}, IDENTITY, "eu-west-1")
    assert row.status == "FAIL" and row.kind == "spark" and row.subject == "cat.sales.orders"
    assert row.reason.startswith(
        f"Spark, as the execution role {ROLE}: source('p', 'orders') could not be read: Glue denied"
    )
    assert "Run `dbt run-operation" not in row.reason and "AccessDeniedException" not in row.reason
    assert "1) owner account 999999999999" in row.fix and ROLE in row.fix
    assert "role/dbt" not in row.fix


def test_missing_iceberg_classes_keep_the_generated_codes_fix():
    group = group_models([model("model.p.a", HIVE, "cat.sales.orders")])[0]
    key = next(iter(group.plan))
    [row] = table_rows(group, {key: {"ok": False, "error": rule_message(0)}}, IDENTITY, "eu-west-1")
    assert "has no Iceberg classes to read it with" in row.reason
    assert row.fix.startswith("set table_type: iceberg on the model")


def test_an_s3_refusal_names_the_execution_role():
    group = group_models([model("model.p.a", HIVE, "cat.sales.orders")])[0]
    key = next(iter(group.plan))
    error = "java.nio.file.AccessDeniedException: s3://b/k: getFileStatus on s3://b/k: (Status Code: 403)"
    [row] = table_rows(group, {key: {"ok": False, "error": error}}, IDENTITY, "eu-west-1")
    assert f"allow the execution role {ROLE} to read the table's files" in row.fix


def test_a_table_read_in_two_sessions_names_the_session_in_its_rows():
    groups = group_models(
        [
            model("model.p.hive", HIVE, "cat.sales.shipments", "cat.sales.orders"),
            model("model.p.ice", ICEBERG, "cat.sales.shipments"),
        ]
    )
    rows = [
        table_rows(
            g,
            {k: {"ok": True, "format": "iceberg", "columns": 1, "rows": 1} for k in g.plan},
            IDENTITY,
            "r",
        )
        for g in groups
    ]
    named = name_sessions(groups, rows)
    assert [
        r.reason.split(" [in the ")[-1] for r in named if r.subject == "cat.sales.shipments"
    ] == [
        "session of model.p.hive (without Iceberg classes)]",
        "session of model.p.ice (with Iceberg classes)]",
    ]
    assert "[in the" not in next(r.reason for r in named if r.subject == "cat.sales.orders")


def test_configurations_beyond_the_cap_are_named_as_not_probed():
    groups = group_models(
        [model(f"model.p.m{i}", {"MaxConcurrentDpus": i}, "cat.sales.orders") for i in range(3)]
    )
    rows = not_probed_rows(groups[2:], len(groups), 2)
    assert [(r.status, r.subject) for r in rows] == [
        ("WARN", "session of model.p.m2 (without Iceberg classes)")
    ]
    assert rows[0].reason == "not probed: 3 session configuration(s) found, spark_max_sessions is 2"
    assert "spark_max_sessions: 3" in rows[0].fix


def test_session_lines_sum_the_dpu_time_and_say_what_was_not_terminated():
    facts = [
        SessionFacts("s1", "a", "TERMINATED", 2.0, 1500),
        SessionFacts("s2", "b", "IDLE", 3.0, 500),
    ]
    lines = session_lines(facts, "wg", 3.2)
    assert lines[0] == (
        "  Spark probe: 2 session(s) started in work group 'wg', 3.2 s wall time, 2.0 DPU-seconds "
        "(Athena's DpuExecutionInMillis); NOT terminated: b"
    )


class FakeAthena:
    """Sessions start IDLE; a calculation never ends unless ``finish`` is set."""

    def __init__(self, finish: bool = True) -> None:
        self.calls: List[str] = []
        self.finish = finish
        self.lock = threading.Lock()
        self.n = 0

    def _call(self, name: str) -> None:
        with self.lock:
            self.calls.append(name)

    def start_session(self, **kwargs: Any) -> Dict[str, Any]:
        self._call("StartSession")
        with self.lock:
            self.n += 1
            return {"SessionId": f"s{self.n}"}

    def get_session_status(self, **kwargs: Any) -> Dict[str, Any]:
        return {"Status": {"State": "IDLE"}}

    def start_calculation_execution(self, **kwargs: Any) -> Dict[str, Any]:
        self._call("StartCalculationExecution")
        return {"CalculationExecutionId": "c-" + kwargs["SessionId"]}

    def get_calculation_execution(self, **kwargs: Any) -> Dict[str, Any]:
        state = "COMPLETED" if self.finish else "RUNNING"
        return {"Status": {"State": state}, "Result": {"StdOutS3Uri": "s3://results/out.txt"}}

    def terminate_session(self, **kwargs: Any) -> Dict[str, Any]:
        self._call("TerminateSession:" + kwargs["SessionId"])
        return {"State": "TERMINATED"}

    def get_session(self, **kwargs: Any) -> Dict[str, Any]:
        return {"Status": {"State": "TERMINATED"}, "Statistics": {"DpuExecutionInMillis": 1200}}


class FakeS3:
    def __init__(self, body: str) -> None:
        self.body = body

    def get_object(self, **kwargs: Any) -> Dict[str, Any]:
        return {"Body": io.BytesIO(self.body.encode())}


def two_groups():
    return group_models(
        [
            model("model.p.a", HIVE, "cat.sales.orders"),
            model("model.p.b", ICEBERG, "cat.sales.shipments"),
        ]
    )


def test_a_finished_probe_terminates_each_session_and_reads_its_dpu_time():
    groups = two_groups()
    keys = [next(iter(g.plan)) for g in groups]
    out = MARKER + json.dumps(
        [{"key": k, "ok": True, "columns": 2, "rows": 1, "format": "hive"} for k in keys]
    )
    athena = FakeAthena()
    probe = spark_run.Probe(athena, FakeS3(out), "wg", timeout=5, sleep=lambda s: None)
    rows = spark_run.probe_groups(probe, groups, "", IDENTITY, "eu-west-1")
    assert [r.status for r in rows] == ["PASS", "PASS"]
    assert sorted(c for c in athena.calls if c.startswith("Terminate")) == [
        "TerminateSession:s1",
        "TerminateSession:s2",
    ]
    assert sorted(f.dpu_millis for f in probe.facts) == [1200, 1200]


def test_a_calculation_that_never_ends_fails_at_the_timeout_and_its_session_is_terminated():
    athena = FakeAthena(finish=False)
    probe = spark_run.Probe(athena, FakeS3(""), "wg", timeout=0.2)
    [row] = spark_run.probe_groups(probe, two_groups()[:1], "", IDENTITY, "eu-west-1")
    assert (row.status, row.reason) == (
        "FAIL",
        "the probe session did not finish within 0.2 s (spark_timeout) and was terminated",
    )
    assert athena.calls[-1] == "TerminateSession:s1"


def test_ctrl_c_terminates_every_session_started_and_goes_on(monkeypatch):
    athena = FakeAthena(finish=False)
    probe = spark_run.Probe(athena, FakeS3(""), "wg", timeout=60)
    real_wait = spark_run.wait
    waits = []

    def interrupted(*args: Any, **kwargs: Any):
        waits.append(1)
        if len(waits) == 3:  # both sessions started by now (poll every 0.5 s)
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(spark_run, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        spark_run.probe_groups(probe, two_groups(), "", IDENTITY, "eu-west-1")
    terminated = sorted(c for c in athena.calls if c.startswith("Terminate"))
    assert terminated == ["TerminateSession:s1", "TerminateSession:s2"], athena.calls


class NoCalculationApi(FakeAthena):
    """A session that starts but refuses calculations, as an Apache Spark 3.5 work group."""

    def start_calculation_execution(self, **kwargs: Any) -> Dict[str, Any]:
        self._call("StartCalculationExecution")
        raise RuntimeError("InvalidRequestException: calculations are not supported")


def test_a_refused_calculation_says_which_call_and_names_the_spark_3_5_engine():
    athena = NoCalculationApi()
    probe = spark_run.Probe(athena, FakeS3(""), "wg35", timeout=5, sleep=lambda s: None)
    [row] = spark_run.probe_groups(probe, two_groups()[:1], "", IDENTITY, "eu-west-1")
    assert row.status == "FAIL"
    assert row.reason.startswith(
        "StartCalculationExecution in the probe session s1 was refused "
        "(InvalidRequestException: calculations are not supported), so nothing was read. "
        "If work group 'wg35' runs Athena's Apache Spark 3.5 engine, it has no Calculation API"
    ), row.reason
    assert row.fix.startswith("run the probe in the Spark work group your Python models run in")
    assert athena.calls[-1] == "TerminateSession:s1"


# ---- SIGTERM / SIGHUP, an unreachable endpoint, a report that never claims too much
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_terminates_every_session_then_goes_on_to_the_process(signame):
    """Python's default for SIGTERM ends the process with no finally run: both sessions were
    left IDLE. A handler of the test's stands in for the process's default."""
    import os
    import signal

    signum = getattr(signal, signame)
    athena = FakeAthena(finish=False)
    probe = spark_run.Probe(athena, FakeS3(""), "wg", timeout=60)
    received: List[int] = []
    previous = signal.signal(signum, lambda s, f: received.append(s))

    def send_once_both_started() -> None:
        deadline = time.monotonic() + 20
        while len(probe.started) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signum)

    sender = threading.Thread(target=send_once_both_started)
    sender.start()
    try:
        with pytest.raises(SystemExit) as ended:
            spark_run.probe_groups(probe, two_groups(), "", IDENTITY, "eu-west-1")
    finally:
        sender.join()
        restored = signal.signal(signum, previous)
    assert ended.value.code == 128 + signum
    terminated = sorted(c for c in athena.calls if c.startswith("Terminate"))
    assert terminated == ["TerminateSession:s1", "TerminateSession:s2"], athena.calls
    assert received == [signum]  # the signal went on to the process's own handler
    assert restored is not previous  # ours was put back before the signal went on


class Unreachable(FakeAthena):
    """The endpoint went away after the sessions started (the emulator stopped)."""

    def __init__(self) -> None:
        super().__init__(finish=False)
        self.down = False

    def _check(self) -> None:
        if self.down:
            from botocore.exceptions import EndpointConnectionError

            raise EndpointConnectionError(endpoint_url="http://127.0.0.1:1/")

    def get_session_status(self, **kwargs: Any) -> Dict[str, Any]:
        self._check()
        return super().get_session_status(**kwargs)

    def get_calculation_execution(self, **kwargs: Any) -> Dict[str, Any]:
        self.down = True
        self._check()
        return {}

    def terminate_session(self, **kwargs: Any) -> Dict[str, Any]:
        self._check()
        return super().terminate_session(**kwargs)

    def get_session(self, **kwargs: Any) -> Dict[str, Any]:
        self._check()
        return super().get_session(**kwargs)


def test_an_unreachable_endpoint_is_reported_as_one_and_its_sessions_as_not_terminated():
    athena = Unreachable()
    probe = spark_run.Probe(athena, FakeS3(""), "wg", timeout=5, sleep=lambda s: None)
    [row] = spark_run.probe_groups(probe, two_groups()[:1], "", IDENTITY, "eu-west-1")
    assert row.reason.startswith(
        'the probe could not reach Athena (Could not connect to the endpoint URL: "http://127.0.0.1:1/")'
    ), row.reason
    assert "athena:StartSession" not in row.fix and "endpoint is reachable" in row.fix, row.fix
    lines = session_lines(probe.facts, "wg", 1.0)
    assert lines[0].endswith("NOT terminated: s1"), lines
    assert "TERMINATED" not in lines[1].replace("NOT TERMINATED", ""), lines
    assert lines[1].startswith("    s1: ") and "NOT TERMINATED (TerminateSession failed" in lines[1]


def test_a_termination_accepted_but_not_read_back_is_not_called_terminated():
    facts = [
        SessionFacts("a", "s1", "TERMINATED", 1.0, 10),
        SessionFacts("b", "s2", "TERMINATE REQUESTED (GetSession failed: denied)", 1.0, None),
    ]
    lines = session_lines(facts, "wg", 1.0)
    assert lines[0].endswith("termination requested, not confirmed: s2"), lines
    assert "all terminated" not in lines[0]
