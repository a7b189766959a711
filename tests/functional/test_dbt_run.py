"""A real `dbt deps` + `dbt run` (dbt-tests-adapter, in-process, and the dbt console script)
against the emulator, with the plugin installed from its wheel and this repository installed
as a dbt package. The emulator captures the code dbt-athena submits to the Calculation API;
nothing runs Spark here (tests/integration runs it)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Dict, Iterator, List

import pytest
import yaml
from dbt.tests.util import run_dbt, run_dbt_and_capture
from dbt_common.exceptions import CompilationError

from tests.conftest import REPO_ROOT, read_plan_in, tables_read
from tests.stack import dbt_cli, ensure_data_catalog

PARTNER_ACCOUNT = "999999999999"
SUPPLIER_ACCOUNT = "777777777777"
DISPATCH = [
    {"macro_namespace": "athena", "search_order": ["test", "dbt_athena_cross_account", "dbt"]}
]

SOURCES_YML = """
version: 2
sources:
  - name: partner
    database: partner_catalog
    schema: sales
    tables: [{name: orders}]
  - name: supplier
    database: supplier_catalog
    schema: sales
    tables: [{name: orders}]
  - name: local
    database: awsdatacatalog
    schema: sales
    tables: [{name: orders}]
  - name: federated
    database: lambda_catalog
    schema: sales
    tables: [{name: orders}]
  - name: s3tables_like
    database: s3t_catalog
    schema: sales
    tables: [{name: orders}]
  - name: partner_iceberg           # the table's meta names its format
    database: partner_catalog
    schema: sales
    tables: [{name: orders, meta: {spark_table_format: iceberg}}]
  - name: supplier_iceberg          # the source's meta names it for every table
    database: supplier_catalog
    schema: sales
    meta: {spark_table_format: ICEBERG}
    tables: [{name: orders}]
  - name: partner_delta
    database: partner_catalog
    schema: sales
    tables: [{name: orders, meta: {spark_table_format: delta}}]
"""

OPTED_IN = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("partner", "orders").join(dbt.source("local", "orders"), "order_id")
"""

NOT_OPTED_IN = """
def model(dbt, spark):
    dbt.config(materialized="table")
    return dbt.source("partner", "orders")
"""

READS_LAMBDA = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("federated", "orders")
"""

READS_LAMBDA_LOCAL = """
def model(dbt, spark):
    dbt.config(
        materialized="table",
        spark_cross_account_catalog=True,
        spark_cross_account_fallback="local",
    )
    return dbt.source("federated", "orders")
"""

TWO_OWNERS = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("partner", "orders").union(dbt.source("supplier", "orders"))
"""

READS_MALFORMED = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("s3tables_like", "orders")
"""

FORMAT_OVERRIDES = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    partner = dbt.source("partner_iceberg", "orders").union(dbt.source("partner", "orders"))
    return partner.union(dbt.source("supplier_iceberg", "orders"))
"""

BAD_FORMAT_OVERRIDE = """
def model(dbt, spark):
    dbt.config(materialized="table", spark_cross_account_catalog=True)
    return dbt.source("partner_delta", "orders")
"""

OPTED_IN_TABLES = {
    '"partner_catalog"."sales"."orders"': "`999999999999/sales`.`orders`",
    '"awsdatacatalog"."sales"."orders"': "`sales`.`orders`",
}


def codes_by_model(calculations) -> Dict[str, str]:
    """Model name -> the table-writing CodeBlock submitted for it."""
    codes: Dict[str, str] = {}
    for calc in calculations:
        for line in calc.code.splitlines():
            if line.strip().startswith('name="') and "." in line:
                codes[line.strip()[len('name="') :].rstrip('",').split(".")[-1]] = calc.code
    return codes


@contextlib.contextmanager
def without_dispatch(project_root) -> Iterator[None]:
    """Temporarily remove the dispatch entry from the test project's dbt_project.yml."""
    path = Path(project_root) / "dbt_project.yml"
    original = path.read_text()
    config = yaml.safe_load(original)
    config.pop("dispatch")
    path.write_text(yaml.safe_dump(config))
    try:
        yield
    finally:
        path.write_text(original)


def run_and_capture_codes(emulator, args: List[str], expect_pass: bool = True):
    before = len(emulator.submissions)
    _, logs = run_dbt_and_capture(args, expect_pass=expect_pass)
    return codes_by_model(emulator.submissions[before:]), logs


@pytest.fixture
def catalogs(emulator):
    ensure_data_catalog(emulator, "partner_catalog", "GLUE", {"catalog-id": PARTNER_ACCOUNT})
    ensure_data_catalog(emulator, "supplier_catalog", "GLUE", {"catalog-id": SUPPLIER_ACCOUNT})
    ensure_data_catalog(
        emulator,
        "lambda_catalog",
        "LAMBDA",
        {"function": "arn:aws:lambda:eu-west-1:123456789012:function:f"},
    )
    ensure_data_catalog(
        emulator, "s3t_catalog", "GLUE", {"catalog-id": "111122223333:s3tablescatalog/bucket"}
    )
    emulator.reset_counters()


class TestCrossAccountRun:
    @pytest.fixture(scope="class")
    def packages(self):
        return {"packages": [{"local": str(REPO_ROOT)}]}

    @pytest.fixture(scope="class")
    def models(self):
        return {
            "sources.yml": SOURCES_YML,
            "opted_in.py": OPTED_IN,
            "not_opted_in.py": NOT_OPTED_IN,
            "reads_lambda.py": READS_LAMBDA,
            "reads_lambda_local.py": READS_LAMBDA_LOCAL,
            "reads_malformed.py": READS_MALFORMED,
            "format_overrides.py": FORMAT_OVERRIDES,
            "bad_format_override.py": BAD_FORMAT_OVERRIDE,
        }

    @pytest.fixture(scope="class")
    def project_config_update(self):
        # schema_table naming keeps table locations free of random suffixes, so the
        # generated code of two runs can be compared byte for byte.
        return {"dispatch": DISPATCH, "models": {"+s3_data_naming": "schema_table"}}

    @pytest.fixture(scope="class", autouse=True)
    def _deps(self, project):
        run_dbt(["deps"])

    def test_opted_in_model_reads_the_owner_account(self, project, emulator, catalogs):
        codes, _ = run_and_capture_codes(emulator, ["run", "--select", "opted_in"])
        opted = codes["opted_in"]
        assert tables_read(opted) == OPTED_IN_TABLES
        assert "def get_spark_df(identifier):" in opted
        assert 'identifier.split(".")[1:]' not in opted
        compile(opted, "opted_in.py", "exec")
        assert emulator.calls["GetDataCatalog"] == 1  # one referenced cross-account catalog
        assert emulator.calls["ListDataCatalogs"] == 0
        # the session of the opted-in model carries the separator (stock dbt-athena sets it)
        (calc,) = [c for c in emulator.submissions if c.code == opted][-1:]
        assert calc.spark_properties.get("spark.hadoop.aws.glue.catalog.separator") == "/"

    def test_not_opted_in_model_is_byte_for_byte_stock_and_calls_nothing(
        self, project, emulator, catalogs
    ):
        with_package, _ = run_and_capture_codes(emulator, ["run", "--select", "not_opted_in"])
        assert emulator.calls["GetDataCatalog"] == 0 and emulator.calls["ListDataCatalogs"] == 0
        # Same project without the dispatch entry: dbt-athena's own macros generate the code.
        with without_dispatch(project.project_root):
            stock, _ = run_and_capture_codes(emulator, ["run", "--select", "not_opted_in"])
        assert with_package["not_opted_in"] == stock["not_opted_in"]
        assert "_CROSS_ACCOUNT" not in stock["not_opted_in"]

    def test_lambda_catalog_fails_at_compile_time(self, project, emulator, catalogs):
        codes, logs = run_and_capture_codes(
            emulator, ["run", "--select", "reads_lambda"], expect_pass=False
        )
        logs = " ".join(logs.split())
        assert "model 'model.test.reads_lambda' reads source('federated', 'orders')" in logs
        assert "'lambda_catalog' is a LAMBDA data catalog" in logs
        assert codes == {}

    def test_lambda_catalog_with_fallback_local_warns_and_reads_local(
        self, project, emulator, catalogs
    ):
        codes, logs = run_and_capture_codes(emulator, ["run", "--select", "reads_lambda_local"])
        logs = " ".join(logs.split())
        assert "model 'model.test.reads_lambda_local' reads source('federated', 'orders')" in logs
        assert "spark_cross_account_fallback is 'local'" in logs
        assert tables_read(codes["reads_lambda_local"]) == {
            '"lambda_catalog"."sales"."orders"': "`sales`.`orders`"
        }

    def test_malformed_catalog_id_fails_at_compile_time(self, project, emulator, catalogs):
        codes, logs = run_and_capture_codes(
            emulator, ["run", "--select", "reads_malformed"], expect_pass=False
        )
        assert "s3t_catalog" in logs and "111122223333:s3tablescatalog/bucket" in logs
        assert "update-data-catalog" in logs
        assert codes == {}  # nothing was submitted to Spark

    def test_source_meta_names_the_format_and_skips_the_lookup(self, project, emulator, catalogs):
        codes, _ = run_and_capture_codes(emulator, ["run", "--select", "format_overrides"])
        plan = read_plan_in(codes["format_overrides"])
        assert plan is not None
        formats = {key: (e["format"], e["detect"] is None) for key, e in plan.items()}
        # source('partner', 'orders') renders to the same relation as the overriding
        # source('partner_iceberg', 'orders'): one table, so the override applies to both
        assert formats == {
            '"partner_catalog"."sales"."orders"': ("iceberg", True),
            '"supplier_catalog"."sales"."orders"': ("iceberg", True),  # the source's meta
        }

    def test_an_unknown_format_in_source_meta_is_a_compile_error(self, project, emulator, catalogs):
        codes, logs = run_and_capture_codes(
            emulator, ["run", "--select", "bad_format_override"], expect_pass=False
        )
        logs = " ".join(logs.split())
        assert (
            "reads source('partner_delta', 'orders'), whose meta spark_table_format is 'delta', "
            "which is not one of 'hive', 'iceberg'"
        ) in logs
        assert codes == {}

    def test_access_denied_names_the_action_before_spark_starts(self, project, emulator, catalogs):
        emulator.inject_error(
            "GetDataCatalog",
            "AccessDeniedException",
            "User: arn:aws:sts::123456789012:assumed-role/dbt/x is not authorized to perform: "
            "athena:GetDataCatalog",
        )
        codes, logs = run_and_capture_codes(
            emulator, ["run", "--select", "opted_in"], expect_pass=False
        )
        assert "AccessDenied calling athena:GetDataCatalog for catalog 'partner_catalog'" in logs
        assert "spark_cross_account_catalog: true" in logs
        assert codes == {}
        assert emulator.calls["StartSession"] == 0

    def test_missing_dispatch_entry_is_an_error_with_the_yaml(self, project, emulator, catalogs):
        before = len(emulator.submissions)
        with without_dispatch(project.project_root), pytest.raises(CompilationError) as info:
            run_dbt(["run", "--select", "opted_in"])
        logs = str(info.value)
        codes = codes_by_model(emulator.submissions[before:])
        assert "model.test.opted_in" in logs
        assert "search_order: ['test', 'dbt_athena_cross_account', 'dbt']" in logs
        assert "macro_namespace: athena" in logs
        assert codes == {}

    def test_missing_plugin_is_an_error_with_the_pip_line(
        self, project, emulator, catalogs, python_without_plugin
    ):
        result = dbt_cli(
            ["run", "--select", "opted_in"],
            project.project_root,
            project.profiles_dir,
            emulator.env(),
            python=python_without_plugin,
        )
        assert result.returncode != 0
        assert "pip install dbt-athena-cross-account" in result.stdout
        assert "model.test.opted_in" in result.stdout

    def test_missing_plugin_does_not_touch_models_that_do_not_opt_in(
        self, project, emulator, catalogs, python_without_plugin
    ):
        result = dbt_cli(
            ["run", "--select", "not_opted_in"],
            project.project_root,
            project.profiles_dir,
            emulator.env(),
            python=python_without_plugin,
        )
        assert result.returncode == 0, result.stdout[-3000:]

    def test_console_script_run(self, project, emulator, catalogs):
        before = len(emulator.submissions)
        result = dbt_cli(
            ["run", "--select", "opted_in"],
            project.project_root,
            project.profiles_dir,
            emulator.env(),
        )
        assert result.returncode == 0, result.stdout[-3000:]
        assert tables_read(codes_by_model(emulator.submissions[before:])["opted_in"]) == (
            OPTED_IN_TABLES
        )


MANY = 24  # three rounds of 8 threads


class TestOneLookupPerRun:
    """MANY opted-in models, each reading two owner accounts' catalogs: one GetDataCatalog per
    catalog per run, with 1 thread and with 8."""

    @pytest.fixture(scope="class")
    def packages(self):
        return {"packages": [{"local": str(REPO_ROOT)}]}

    @pytest.fixture(scope="class")
    def models(self):
        files = {"sources.yml": SOURCES_YML}
        for i in range(MANY):
            files[f"m{i:02d}.py"] = TWO_OWNERS
        return files

    @pytest.fixture(scope="class")
    def project_config_update(self):
        return {"dispatch": DISPATCH}

    @pytest.mark.parametrize("threads", [1, 8])
    def test_calls(self, project, emulator, catalogs, threads):
        run_dbt(["deps"])
        emulator.reset_counters()
        results = run_dbt(["run", "--threads", str(threads)])
        assert len([r for r in results if r.node.resource_type == "model"]) == MANY
        print(
            f"threads={threads}: GetDataCatalog={emulator.calls['GetDataCatalog']} "
            f"ListDataCatalogs={emulator.calls['ListDataCatalogs']} "
            f"StartCalculationExecution={emulator.calls['StartCalculationExecution']}"
        )
        assert emulator.calls["GetDataCatalog"] == 2
        assert emulator.calls["ListDataCatalogs"] == 0
