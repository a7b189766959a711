"""The ``athena-spark-emulator`` command and the seed file's JSON Schema, as users run them
(the installed console script in a subprocess), without Spark."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Dict, Optional

import pytest

from athena_spark_emulator.accounts import seed as seed_module
from athena_spark_emulator.accounts.seed import SeedError
from athena_spark_emulator.core.constants import INSTALL_HINT

CLI = str(Path(sys.executable).parent / "athena-spark-emulator")

GOOD_SEED = """\
data_catalogs:
  - {name: Partner_Catalog, type: GLUE, parameters: {catalog-id: "999999999999"}}
accounts:
  "999999999999":
    grants: ["123456789012"]
    databases:
      sales:
        orders:
          columns: {order_id: int, amount: double}
          rows:
            - [101, 250.0]
"""


def cli(*args: str, env: Optional[Dict[str, str]] = None, timeout: int = 300, cwd=None):
    base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return subprocess.run(
        [CLI, *args],
        env={**base, **(env or {})},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def write(tmp_path: Path, text: str, name: str = "seed.yml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (  # a misspelt key: the line and path of that key
            ("columns: {order_id", "colums: {order_id"),
            "seed.yml:9: accounts.999999999999.databases.sales.orders.colums: Additional "
            "properties are not allowed ('colums' was unexpected)",
        ),
        (  # an unquoted account id (YAML reads a number)
            ('"999999999999":', "999999999999:"),
            "seed.yml:4: accounts.999999999999: 999999999999 is not of type 'string' "
            "(account ids are 12-digit strings: quote them in YAML)",
        ),
        (
            ('grants: ["123456789012"]', 'grants: ["12345"]'),
            "seed.yml:5: accounts.999999999999.grants.0: '12345' is not a 12-digit account id",
        ),
        (  # the owner catalog's encryption: a mode Glue does not have
            (
                'grants: ["123456789012"]',
                'grants: ["123456789012"]\n    catalog_encryption: {mode: SSE_KMS, key: k}',
            ),
            "seed.yml:6: accounts.999999999999.catalog_encryption.mode: 'SSE_KMS' is not one of "
            "['DISABLED', 'SSE-KMS', 'SSE-KMS-WITH-SERVICE-ROLE']",
        ),
        (  # ... and a key that is not one of its keys
            (
                'grants: ["123456789012"]',
                'grants: ["123456789012"]\n    catalog_encryption: {mode: SSE-KMS, kms: k}',
            ),
            "seed.yml:6: accounts.999999999999.catalog_encryption.kms: Additional properties "
            "are not allowed ('kms' was unexpected)",
        ),
        (
            ("type: GLUE", "type: GLEU"),
            "seed.yml:2: data_catalogs.0.type: 'GLEU' is not one of",
        ),
        (
            ("- [101, 250.0]", "- [101]"),
            "seed.yml:11: accounts.999999999999.databases.sales.orders.rows.0: row has 1 "
            "value(s) but the table has 2 column(s) (order_id, amount)",
        ),
        (("rows:", "rows: ["), "seed.yml:11: not valid YAML/JSON"),
        (  # a role's trust names something that is no principal
            (
                'grants: ["123456789012"]',
                'roles:\n      dbt-reader: {trusts: ["AthenaSparkExecutionRole"]}',
            ),
            "seed.yml:6: accounts.999999999999.roles.dbt-reader.trusts.0: "
            "'AthenaSparkExecutionRole' is not a 12-digit account id",
        ),
        (
            ('grants: ["123456789012"]', "roles:\n      dbt-reader: {trust: []}"),
            "seed.yml:6: accounts.999999999999.roles.dbt-reader.trust: Additional properties",
        ),
        (  # Glue parameters on an Iceberg table: the line of the parameters key
            (
                "          columns: {order_id",
                "          format: iceberg\n          parameters: {table_type: DELTA}\n"
                "          columns: {order_id",
            ),
            "seed.yml:10: accounts.999999999999.databases.sales.orders.parameters: "
            "parameters apply to hive tables only",
        ),
    ],
)
def test_bad_seed_names_file_line_and_key(tmp_path, change, expected):
    path = write(tmp_path, GOOD_SEED.replace(*change))
    with pytest.raises(SeedError) as bad:
        seed_module.load(path)
    assert str(bad.value).startswith(str(path.parent) + os.sep + expected), str(bad.value)


TYPED_SEED = """\
data_catalogs:
  - {name: owner}
accounts:
  "999999999999":
    databases:
      sales:
        orders:
          format: iceberg
          columns: {order_id: int, amount: 'decimal(10,2)', placed: timestamp, day: date, score: double}
          rows:
            - [1, 10.25, "2024-01-01 10:00:00", 2024-01-01, 1.5]
"""
ORDERS = "accounts.999999999999.databases.sales.orders"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (  # a value that does not fit its column's type: checked, never a silent NULL
            ("- [1, 10.25", '- ["abc", 10.25'),
            f'seed.yml:11: {ORDERS}.rows.0.order_id: "abc" does not fit int: a string; '
            "write a whole number (unquoted)",
        ),
        (
            ('00", 2024-01-01, 1.5]', '00", 2024-01-01, "xyz"]'),
            f'seed.yml:11: {ORDERS}.rows.0.score: "xyz" does not fit double: a string; write a '
            "number (unquoted)",
        ),
        (
            ("10.25", "123456.789"),
            f"seed.yml:11: {ORDERS}.rows.0.amount: 123456.789 does not fit decimal(10,2): 6 "
            "digit(s) before the point and 3 after, decimal(10,2) holds 8 and 2: round or "
            "shorten the value, or make the column decimal(11,3)",
        ),
        (  # unquoted, YAML reads no date: it stays text and the column check names it
            ("2024-01-01, 1.5", "2024-13-45, 1.5"),
            f'seed.yml:11: {ORDERS}.rows.0.day: "2024-13-45" does not fit date: not a calendar '
            "date (month must be in 1..12)",
        ),
        (  # a timestamp that is no timestamp (here: a number)
            ('"2024-01-01 10:00:00"', "20240101"),
            f"seed.yml:11: {ORDERS}.rows.0.placed: 20240101 does not fit timestamp: a number; "
            'write "YYYY-MM-DD HH:MM:SS[.ffffff]", without a time zone',
        ),
        (
            ("{order_id: int", "{order_id: integr"),
            f"seed.yml:9: {ORDERS}.columns.order_id: 'integr' is not a Glue column type: "
            "unknown type 'integr' (did you mean integer?)",
        ),
        (
            ("'decimal(10,2)'", "'decimal(10,2'"),
            f"seed.yml:9: {ORDERS}.columns.amount: 'decimal(10,2' is not a Glue column type: "
            "it ends where ')' is expected",
        ),
        (  # unquoted in a flow mapping, the comma ends the type
            ("'decimal(10,2)'", "decimal(10,2)"),
            f"seed.yml:9: {ORDERS}.columns.2): None is not of type 'string' (in a flow "
            "mapping {...} a comma ends the value: quote a type that has one",
        ),
        (
            ("score: double}", "score: double, score: int}"),
            f"seed.yml:9: {ORDERS}.columns.score: duplicate key 'score' (first at line 9); "
            "YAML would keep only the last: remove or rename one",
        ),
        (
            (
                'score: double}\n          rows:\n            - [1, 10.25, "2024-01-01 10:00:00", 2024-01-01, 1.5]',
                'score: double, Score: double}\n          rows:\n            - [1, 10.25, "2024-01-01 10:00:00", 2024-01-01, 1.5, 2.5]',
            ),
            f"seed.yml:9: {ORDERS}.columns.Score: column 'Score' and 'score' (line 9) are one "
            "column once lower-cased, as Glue and Athena store names: rename or merge one",
        ),
        (
            ("      sales:\n", "      sales:\n        Orders: {columns: {a: int}}\n"),
            "seed.yml:8: accounts.999999999999.databases.sales.orders: table 'orders' and "
            "'Orders' (line 7) are one table once lower-cased",
        ),
        (
            ("  - {name: owner}", "  - {name: p}\n  - {name: P}"),
            "seed.yml:3: data_catalogs.1: data catalog 'P' and 'p' (line 2) are one data "
            "catalog once lower-cased",
        ),
        (
            ("    databases:\n", "    databases:\n      Sales: {}\n"),
            "seed.yml:7: accounts.999999999999.databases.sales: database 'sales' and 'Sales' "
            "(line 6) are one database once lower-cased",
        ),
        (
            ("          rows:", "          rows: []\n          rows:"),
            f"seed.yml:11: {ORDERS}.rows: duplicate key 'rows' (first at line 10)",
        ),
        (
            ("{order_id: int", "{order_id: 'map<int,string>'"),
            f"seed.yml:11: {ORDERS}.rows.0.order_id: 1 does not fit map<int,string>: a number; "
            "write a mapping",
        ),
        (  # Spark's JSON reader takes string map keys only: a hive table cannot hold these
            ("format: iceberg", "format: hive"),
            None,
        ),
    ],
)
def test_seed_values_types_and_names_are_checked_with_file_line_and_key(tmp_path, change, expected):
    path = write(tmp_path, TYPED_SEED.replace(*change))
    if expected is None:  # the good seed stays good on either format
        assert seed_module.load(path).data
        return
    with pytest.raises(SeedError) as bad:
        seed_module.load(path)
    assert str(bad.value).startswith(str(path.parent) + os.sep + expected), str(bad.value)


def test_maps_with_keys_of_any_primitive_type_fit_hive_and_iceberg_tables(tmp_path):
    text = (
        TYPED_SEED.replace("format: iceberg", "format: hive")
        .replace("score: double}", "score: double, tags: 'map<int,string>'}")
        .replace("1.5]", "1.5, {1: a}]")
    )
    assert seed_module.load(write(tmp_path, text)).data
    iceberg = write(tmp_path, text.replace("format: hive", "format: iceberg"), "ice.yml")
    assert seed_module.load(iceberg).data
    with pytest.raises(SeedError, match=r'tags\.x: "x" does not fit int: a string'):
        seed_module.load(write(tmp_path, text.replace("{1: a}", "{x: a}"), "bad.yml"))


def test_every_problem_is_one_line_and_the_python_api_checks_the_same(emulator_free_seed):
    problems = str(emulator_free_seed).splitlines()
    assert len(problems) == 3, problems
    assert [p.split(": ")[1] for p in problems] == [
        f"{ORDERS}.rows.0.order_id",
        f"{ORDERS}.rows.0.score",
        f"{ORDERS}.rows.1.day",
    ]


@pytest.fixture
def emulator_free_seed(tmp_path):
    text = TYPED_SEED.replace("- [1, 10.25", '- ["abc", 10.25').replace("1.5]", '"x"]')
    text += '            - {order_id: 2, day: "2024-02-30"}\n'
    with pytest.raises(SeedError) as bad:
        seed_module.load(write(tmp_path, text))
    return bad.value


def test_seed_json_is_validated_too(tmp_path):
    path = write(
        tmp_path, '{"accounts": {"999999999999": {"databases": {"s": {"t": {}}}}}}', "s.json"
    )
    with pytest.raises(SeedError, match=r"s\.json:1: accounts\.999999999999\.databases\.s\.t: "):
        seed_module.load(path)


def test_the_demo_seed_is_valid_and_the_schema_is_shipped():
    repo = Path(__file__).resolve().parents[2]
    assert seed_module.load(repo / "integration_tests" / "fixtures" / "two_accounts.yml").data
    assert seed_module.schema()["title"] == "athena-spark-emulator seed file"


def test_cli_validate_and_errors_are_one_line_with_status_2(tmp_path):
    good = write(tmp_path, GOOD_SEED)
    ok = cli("validate", str(good))
    assert (ok.returncode, ok.stderr) == (0, ""), ok.stderr
    assert "OK (1 data catalog(s), 1 account(s))" in ok.stdout
    bad = write(tmp_path, GOOD_SEED.replace("columns:", "colums:"), "bad.yml")
    for args in (("validate", str(bad)), ("run", "--seed", str(bad), "--", "true")):
        done = cli(*args)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"athena-spark-emulator: error: {bad}:9: accounts."), done
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    # a value that does not fit its column: validate and run refuse it, no traceback
    typed = write(tmp_path, TYPED_SEED.replace("10.25", '"ten"'), "typed.yml")
    for args in (("validate", str(typed)), ("run", "--seed", str(typed), "--", "true")):
        done = cli(*args)
        assert (done.returncode, done.stdout) == (2, ""), done.stderr
        assert done.stderr == (
            f'athena-spark-emulator: error: {typed}:11: {ORDERS}.rows.0.amount: "ten" does '
            'not fit decimal(10,2): not a number; write digits such as "12.50"\n'
        )


def test_run_without_java_says_what_to_install(tmp_path):
    seed = write(tmp_path, GOOD_SEED)
    done = cli(
        "run",
        "--seed",
        str(seed),
        "--spark",
        "--",
        "true",
        env={"PATH": str(tmp_path), "JAVA_HOME": ""},
    )
    assert done.returncode == 2, done.stderr
    assert "needs Java 17" in done.stderr and "`java` on PATH was not found" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_run_seeds_exports_the_endpoint_and_exits_with_the_commands_status(tmp_path):
    seed = write(tmp_path, GOOD_SEED)
    probe = textwrap.dedent(
        """
        import os, sys, boto3
        assert "AWS_PROFILE" not in os.environ
        athena = boto3.client("athena")  # endpoint, region and keys from the environment
        catalog = athena.get_data_catalog(Name="PARTNER_CATALOG")["DataCatalog"]
        work_group = athena.get_work_group(WorkGroup="spark_wg")["WorkGroup"]
        s3 = boto3.client("s3")
        buckets = sorted(b["Name"] for b in s3.list_buckets()["Buckets"])  # the local account's
        partner = s3.list_objects_v2(Bucket="emulator-999999999999-eu-west-1")["KeyCount"]
        print(catalog["Name"], work_group["Configuration"]["ExecutionRole"], buckets, partner)
        sys.exit(3)
        """
    )
    done = cli(
        "run", "--seed", str(seed), "--", sys.executable, "-c", probe, env={"AWS_PROFILE": "real"}
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout.split() == [
        "partner_catalog",
        "arn:aws:iam::123456789012:role/AthenaSparkExecutionRole",
        "['dbt-data',",
        "'dbt-staging']",
        "1",
    ]
    assert "seeding 1 table(s) from" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "athena-spark-emulator: command exited with 3"


def test_serve_prints_exports_and_a_profile_and_stops_on_ctrl_c(tmp_path):
    serve = subprocess.Popen(
        [CLI, "serve", "--seed", str(write(tmp_path, GOOD_SEED)), "--profile", "shop"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    lines = []
    try:
        for line in serve.stdout:
            lines.append(line)
            if line.startswith("# serving until Ctrl-C"):
                break
        os.killpg(serve.pid, signal.SIGINT)
        _, err = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    text = "".join(lines)
    assert serve.returncode == 0, err
    assert "export AWS_ENDPOINT_URL=http://127.0.0.1:" in text
    assert "export AWS_DEFAULT_REGION=eu-west-1" in text and "unset AWS_PROFILE" in text
    assert "\nshop:\n  target: emulator\n" in text
    assert "spark_work_group: \"{{ env_var('DBT_SPARK_WORK_GROUP', 'spark_wg') }}\"" in text
    assert (
        err.strip().splitlines()[-1]
        == "athena-spark-emulator: stopped: the emulator removed its files"
    )
    assert "Traceback" not in err
    time.sleep(0.1)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("athena-emulator")]


def test_profile_matches_the_integration_tests_profile():
    repo = Path(__file__).resolve().parents[2]
    shipped = (repo / "integration_tests" / "profiles.yml").read_text()
    printed = cli("profile", "integration_tests").stdout
    assert printed in shipped, printed


# ---- the pytest plugin ---------------------------------------------------------------------
def test_package_and_pytest_plugin_import_nothing_heavy():
    code = (
        "import sys, athena_spark_emulator, athena_spark_emulator.pytest_plugin\n"
        "from athena_spark_emulator import LOCAL_ACCOUNT, REGION\n"
        "heavy = ('moto', 'pyspark', 'boto3', 'botocore', 'pandas', 'yaml', 'jsonschema', 'dbt')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr


@pytest.fixture(scope="module")
def python_without_extra(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An environment with the wheel (and pytest) but without the [emulator] extra: a
    pip-less venv linking this one's site-packages except moto and pyspark."""
    import sysconfig

    root = tmp_path_factory.mktemp("venv-no-extra")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    theirs = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if entry.name.lower().startswith(("moto", "pyspark")):
            continue
        if not (theirs / entry.name).exists():
            (theirs / entry.name).symlink_to(entry)
    return python


def test_without_the_extra_pytest_runs_and_the_fixture_names_the_install_line(
    python_without_extra, tmp_path
):
    (tmp_path / "conftest.py").write_text(
        'pytest_plugins = ["athena_spark_emulator.pytest_plugin"]\n'
    )
    (tmp_path / "test_user.py").write_text(
        "def test_plain():\n    assert True\n\ndef test_with_emulator(athena_emulator):\n    pass\n"
    )
    done = subprocess.run(
        [str(python_without_extra), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "1 passed, 1 error" in done.stdout, done.stdout + done.stderr
    assert INSTALL_HINT in done.stdout and "needs 'moto', which is not installed" in done.stdout


def test_the_pytest_plugin_is_not_loaded_unless_a_conftest_enables_it(tmp_path):
    (tmp_path / "test_user.py").write_text("def test_with_emulator(athena_emulator):\n    pass\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_user.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "fixture 'athena_emulator' not found" in done.stdout, done.stdout + done.stderr
