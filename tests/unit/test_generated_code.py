"""The Python that opted-in models run: the read plan the plugin builds (plan.py, names.py),
rendered into code by the package's macro with dbt's own Jinja, executed, and checked
against Spark's real SQL parser (PySpark 3.5, the session's parser)."""

from __future__ import annotations

import ast
import functools
import json
from typing import Dict, Iterable, List, Mapping

import pytest
from dbt.adapters.athena.relation import AthenaRelation
from dbt_common.clients.jinja import get_template
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.names import separator_table_name
from dbt_athena_cross_account.plan import FALLBACK_LOCAL, Read, build_read_plan
from dbt_athena_cross_account.resolver import Resolution, catalog_key, classify, default_catalog_id
from tests.conftest import REPO_ROOT

MACRO = (REPO_ROOT / "macros" / "_cross_account_get_spark_df.sql").read_text()
ACCOUNT = "999999999999"

# Names with dots, quotes, backticks, hyphens, spaces, slashes and non-ASCII letters.
ANY_NAME = st.text(
    alphabet=st.sampled_from(list("abcXYZ019_.-` '\"/\\é漢🙂"))
    | st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=12,
)
# What a relation can carry: no '"' (rejected at compile time), not blank.
NAME = ANY_NAME.filter(lambda s: '"' not in s and s.strip())


@functools.lru_cache(maxsize=1)
def _macro_module():
    return get_template(MACRO, {}).make_module({})


def render(tables: Mapping[str, object]) -> str:
    return str(_macro_module().dbt_macro___cross_account_get_spark_df(tables))


class FakeFrame:
    def __init__(self, name: str, rows: int = 3, failure: Exception | None = None) -> None:
        self.name, self.rows, self.failure = name, rows, failure

    @property
    def schema(self) -> str:
        """Spark Connect analyses a DataFrame here: a lazy failure raises now."""
        if self.failure is not None:
            raise self.failure
        return "struct<>"

    def limit(self, n: int) -> FakeFrame:
        return FakeFrame(self.name, min(self.rows, n))


class FakeConf:
    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)
        self.sets: List[tuple] = []

    def get(self, key: str, default: object = None) -> object:
        return self.values.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.sets.append((key, value))
        self.values[key] = value


class FakeRows:
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def collect(self) -> list:
        if isinstance(answer := self.answer, Exception):
            raise answer
        if isinstance(answer, tuple):  # a row of another shape
            return [answer]
        return [("table_type", answer)]


class FakeSpark:
    """``table()`` records names (or raises ``failures[name]``); ``sql()`` answers the
    SHOW TBLPROPERTIES lookup from ``table_types`` (a value, or an exception to raise)."""

    def __init__(
        self,
        table_types: Mapping[str, object] = (),  # type: ignore[assignment]
        conf: Mapping[str, str] = (),  # type: ignore[assignment]
        failures: Mapping[str, Exception] = (),  # type: ignore[assignment]
        lazy: bool = False,  # failures raise when the frame is analysed, as on Spark Connect
    ) -> None:
        self.lazy = lazy
        self.names: List[str] = []
        self.statements: List[str] = []
        self.table_types = dict(table_types)
        self.conf = FakeConf(dict(conf))
        self.failures = dict(failures)

    def table(self, name: str) -> FakeFrame:
        self.names.append(name)
        if name in self.failures and not self.lazy:
            raise self.failures[name]
        return FakeFrame(name, failure=self.failures.get(name))

    def sql(self, statement: str) -> FakeRows:
        self.statements.append(statement)
        for name, answer in self.table_types.items():
            if statement.startswith(f"SHOW TBLPROPERTIES {name} "):
                return FakeRows(answer)
        return FakeRows("Table x does not have property: table_type")


def load(code: str, spark: FakeSpark | None = None) -> Dict[str, object]:
    """Execute the generated block with the names dbt-athena's generated module provides."""
    spark = spark or FakeSpark()

    class dbtObj:
        def __init__(self, load_df_function):
            self.load_df_function = load_df_function

    namespace: Dict[str, object] = {"spark": spark, "dbtObj": dbtObj, "source": None, "ref": None}
    exec(compile(code, "<generated>", "exec"), namespace)
    namespace["_fake_spark"] = spark
    return namespace


def resolver_for(accounts: Mapping[str, str]):
    """A resolve() over fixed answers: the names in ``accounts`` are GLUE catalogs."""

    def resolve(names: Iterable[str]) -> Dict[str, Resolution]:
        out = {}
        for name in names:
            account = accounts.get(catalog_key(name))
            answer = {"Type": "GLUE", "Parameters": {"catalog-id": account}} if account else None
            out[catalog_key(name)] = classify(name, answer, default_catalog_id)
        return out

    return resolve


def read_of(catalog: str, schema: str, table: str, **kwargs: object) -> Read:
    """A source as dbt-athena renders it: the relation string is the key."""
    relation = AthenaRelation.create(database=catalog, schema=schema, identifier=table)
    return Read(
        label="source('s', 't')",
        keys=(str(relation.render()),),
        catalog=catalog,
        schema=schema,
        table=table,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
def parse():
    # The process's one SparkSession, as the emulator configures it: a session built here
    # first would be the one getOrCreate() hands the emulator later (without its settings).
    from athena_spark_emulator.spark.executor import get_spark

    spark = get_spark()
    parser = spark._jsparkSession.sessionState().sqlParser()

    def _parse(name: str) -> List[str]:
        parts = parser.parseMultipartIdentifier(name)  # a Scala Seq[String]
        return [parts.apply(i) for i in range(parts.size())]

    global _PARSER
    _PARSER = parser
    return _parse


_PARSER = None


def parse_statement(sql: str) -> tuple:
    """(plan class, table name parts, property key) of a SHOW TBLPROPERTIES statement."""
    plan = _PARSER.parsePlan(sql)  # type: ignore[union-attr]
    parts = plan.table().multipartIdentifier()
    key = plan.propertyKey().get() if plan.propertyKey().isDefined() else None
    return plan.getClass().getSimpleName(), [parts.apply(i) for i in range(parts.size())], key


@pytest.mark.spark
def test_the_feature_request_form_does_not_parse_but_ours_does(parse):
    from pyspark.errors.exceptions.captured import ParseException

    with pytest.raises(ParseException):
        parse(f"{ACCOUNT}/sales.orders")
    read = read_of("partner_catalog", "sales", "orders")
    plan = build_read_plan("m", [read], resolver_for({"partner_catalog": ACCOUNT}))
    ns = load(render(plan.tables))
    frame = ns["get_spark_df"](read.keys[0])
    assert frame.name == f"`{ACCOUNT}/sales`.`orders`"
    assert parse(frame.name) == [f"{ACCOUNT}/sales", "orders"]


@pytest.mark.spark
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(catalog=NAME, schema=NAME, table=NAME, mapped=st.booleans(), upper=st.booleans())
def test_any_names_parse_to_exactly_the_intended_parts(
    parse, catalog, schema, table, mapped, upper
):
    """Whatever the names, the table Spark parses is the one the plan resolved: the owner's
    through the separator, or (fallback local / awsdatacatalog) the local one."""
    local = catalog_key(catalog) == "awsdatacatalog"
    accounts = {catalog_key(catalog): ACCOUNT} if mapped and not local else {}
    referenced = catalog.upper() if upper else catalog  # matched case-insensitively
    read = read_of(referenced, schema, table)
    plan = build_read_plan("m", [read], resolver_for(accounts), fallback=FALLBACK_LOCAL)
    code = render(plan.tables)
    compile(code, "<generated>", "exec")
    name = load(code)["get_spark_df"](read.keys[0]).name
    if accounts and catalog_key(referenced) == catalog_key(catalog):
        assert parse(name) == [f"{ACCOUNT}/{schema.strip()}", table.strip()]
    else:
        assert parse(name) == [schema.strip(), table.strip()]


@pytest.mark.spark
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(account=st.from_regex(r"\A[0-9]{12}\Z"), schema=NAME, table=NAME)
def test_separator_names_parse_for_any_account(parse, account, schema, table):
    assert parse(separator_table_name(account, schema, table)) == [
        f"{account}/{schema.strip()}",
        table.strip(),
    ]


@given(
    tables=st.dictionaries(
        ANY_NAME,
        st.fixed_dictionaries(
            {
                "table": ANY_NAME,
                "account": st.none() | st.from_regex(r"\A[0-9]{12}\Z"),
                "empty": st.booleans(),
            }
        ),
        max_size=5,
    )
)
@settings(max_examples=200, deadline=None)
def test_generated_module_compiles_and_carries_the_plan_as_data(tables):
    code = render(tables)
    compile(code, "<generated>", "exec")
    assert load(code)["_CROSS_ACCOUNT_TABLES"] == tables


def test_padded_mixed_case_catalog_from_env_var_is_read_from_the_owner():
    """The catalog spelled '" Partner_Catalog "' (an env_var with stray whitespace) is looked
    up as partner_catalog, and the relation string dbt renders for it reads the owner's table."""
    read = read_of(" Partner_Catalog ", "sales", "orders")
    looked_up: List[str] = []
    resolve = resolver_for({"partner_catalog": ACCOUNT})

    def spy(names: Iterable[str]) -> Dict[str, Resolution]:
        looked_up.extend(names)
        return resolve(looked_up)

    plan = build_read_plan("m", [read], spy)
    assert looked_up == ["Partner_Catalog"]
    ns = load(render(plan.tables))
    assert ns["get_spark_df"](read.keys[0]).name == f"`{ACCOUNT}/sales`.`orders`"
    assert plan.warnings == []


def test_empty_reads_keep_the_schema_and_no_rows():
    read = read_of("partner_catalog", "sales", "orders", empty=True)
    plan = build_read_plan("m", [read], resolver_for({"partner_catalog": ACCOUNT}))
    frame = load(render(plan.tables))["get_spark_df"](read.keys[0])
    assert (frame.name, frame.rows) == (f"`{ACCOUNT}/sales`.`orders`", 0)


def test_an_identifier_outside_the_plan_is_an_error_naming_it():
    ns = load(render({}))
    with pytest.raises(KeyError) as info:
        ns["get_spark_df"]('"partner_catalog"."sales"."orders"')
    assert "is not a ref or source of this model" in str(info.value)
    assert ns["_fake_spark"].names == []


@pytest.mark.parametrize("part", ["catalog", "schema", "table"])
def test_a_double_quote_in_a_name_is_a_compile_error_naming_it(part):
    names = {"catalog": "partner_catalog", "schema": "sales", "table": "orders"}
    names[part] = 'cat"x'
    with pytest.raises(CrossAccountCatalogError) as info:
        build_read_plan("model.p.m", [read_of(**names)], resolver_for({"partner_catalog": ACCOUNT}))
    message = str(info.value)
    assert f"whose {part} name 'cat\"x' contains a double quote" in message
    assert "model 'model.p.m' reads source('s', 't')" in message


def test_injection_attempts_stay_data():
    hostile = 'x"}\nimport os\nos.system("touch /tmp/pwned")\n#'
    tables = {hostile: {"table": hostile, "account": None, "empty": False}}
    code = render(tables)
    ns = load(code)
    assert ns["_CROSS_ACCOUNT_TABLES"] == tables
    assert "import os" not in [line.strip() for line in code.splitlines()]
    (line,) = [line for line in code.splitlines() if line.startswith("_CROSS_ACCOUNT_TABLES = ")]
    call = ast.parse(line).body[0].value
    assert isinstance(call, ast.Call) and len(call.args) == 1
    assert json.loads(ast.literal_eval(call.args[0])) == tables


# ---- table formats: one lookup, then the reader the format needs --------------------------
SEPARATOR_NAME = f"`{ACCOUNT}/sales`.`orders`"
ICEBERG_NAME = f"`dbt_cross_account_iceberg_{ACCOUNT}`.`sales`.`orders`"
ICEBERG_CONF = f"spark.sql.catalog.dbt_cross_account_iceberg_{ACCOUNT}"


def planned(table_format: str | None = None, region: str | None = "eu-west-1") -> tuple:
    read = read_of("partner_catalog", "sales", "orders", table_format=table_format)
    plan = build_read_plan("m", [read], resolver_for({"partner_catalog": ACCOUNT}), region=region)
    return read.keys[0], render(plan.tables)


@pytest.mark.parametrize(
    "answer, name",
    [
        ("ICEBERG", ICEBERG_NAME),
        ("iceberg ", ICEBERG_NAME),
        ("Table x does not have property: table_type", SEPARATOR_NAME),
        ("EXTERNAL_TABLE", SEPARATOR_NAME),
        # Spark < 3.2, or spark.sql.legacy.keepCommandOutputSchema: the value column only
        (("ICEBERG",), ICEBERG_NAME),
        # the Glue Hive client refuses a table without Hive storage, as Iceberg registers it
        (
            Exception(
                "AnalysisException: org.apache.hadoop.hive.ql.metadata.HiveException: Unable to "
                "fetch table orders. StorageDescriptor#InputFormat cannot be null for table: orders"
            ),
            ICEBERG_NAME,
        ),
    ],
)
def test_one_metadata_lookup_picks_the_reader(answer, name):
    key, code = planned()
    spark = FakeSpark(table_types={SEPARATOR_NAME: answer})
    ns = load(code, spark)
    assert ns["get_spark_df"](key).name == name
    assert ns["get_spark_df"](key).name == name  # read twice, looked up once
    assert spark.statements == [f"SHOW TBLPROPERTIES {SEPARATOR_NAME} ('table_type')"]
    registered = dict(spark.conf.sets)
    if name == ICEBERG_NAME:
        assert registered[ICEBERG_CONF] == "org.apache.iceberg.spark.SparkCatalog"
        assert registered[ICEBERG_CONF + ".glue.id"] == ACCOUNT
        assert len(spark.conf.sets) == len(registered)  # registered once
    else:
        assert registered == {}


def test_the_source_override_reads_without_a_lookup():
    key, code = planned(table_format="iceberg")
    spark = FakeSpark()
    assert load(code, spark)["get_spark_df"](key).name == ICEBERG_NAME
    assert spark.statements == []


def test_the_owner_catalog_keeps_the_session_catalogs_io_impl_and_region():
    key, code = planned(table_format="iceberg")
    session = {
        "spark.sql.catalog.spark_catalog.io-impl": "org.example.FileIO",
        "spark.sql.catalog.spark_catalog.client.region": "eu-central-1",
    }
    spark = FakeSpark(conf=session)
    load(code, spark)["get_spark_df"](key)
    registered = dict(spark.conf.sets)
    assert registered[ICEBERG_CONF + ".io-impl"] == "org.example.FileIO"
    assert registered[ICEBERG_CONF + ".client.region"] == "eu-central-1"
    spark = FakeSpark()
    load(code, spark)["get_spark_df"](key)
    registered = dict(spark.conf.sets)
    assert registered[ICEBERG_CONF + ".io-impl"] == "org.apache.iceberg.aws.s3.S3FileIO"
    assert registered[ICEBERG_CONF + ".client.region"] == "eu-west-1"


def test_a_catalog_registered_earlier_in_the_session_is_not_set_again():
    key, code = planned(table_format="iceberg")
    first = FakeSpark()
    load(code, first)["get_spark_df"](key)
    again = FakeSpark(conf=dict(first.conf.values))
    load(code, again)["get_spark_df"](key)
    assert again.conf.sets == []


DENIED = Exception(
    "software.amazon.awssdk.services.glue.model.AccessDeniedException: User: x is not "
    "authorized to perform: glue:GetTable on resource: arn:aws:glue:eu-west-1:999999999999:table"
)
NOT_FOUND = Exception("[TABLE_OR_VIEW_NOT_FOUND] The table or view cannot be found.")
DENIED_WORDS = "Glue denied the work group's execution role access"
NO_CLASSES = Exception(
    "org.apache.spark.SparkException: Cannot find catalog plugin class for catalog "
    "'dbt_cross_account_iceberg_999999999999': org.apache.iceberg.spark.SparkCatalog."
)


@pytest.mark.parametrize(
    "table_format, failures, lookup, words",
    [
        ("hive", {SEPARATOR_NAME: DENIED}, None, DENIED_WORDS),
        (None, {}, DENIED, DENIED_WORDS),
        ("iceberg", {ICEBERG_NAME: DENIED}, None, DENIED_WORDS),
        ("hive", {SEPARATOR_NAME: NOT_FOUND}, None, "has no table 'orders' in database 'sales'"),
        ("iceberg", {ICEBERG_NAME: NOT_FOUND}, None, "no Iceberg table 'orders'"),
        ("iceberg", {ICEBERG_NAME: NO_CLASSES}, None, "set table_type: iceberg on the model"),
    ],
)
@pytest.mark.parametrize("engine", ["classic", "connect"])
def test_errors_raised_inside_spark_say_where_and_what_to_do(
    table_format, failures, lookup, words, engine
):
    """Classic Spark raises in spark.table(); Spark Connect when the frame is analysed."""
    key, code = planned(table_format=table_format)
    lookups = {SEPARATOR_NAME: lookup} if lookup else {}
    spark = FakeSpark(failures=failures, table_types=lookups, lazy=engine == "connect")
    with pytest.raises(RuntimeError) as info:
        load(code, spark)["get_spark_df"](key)
    message = str(info.value)
    assert type(info.value).__name__ == "CrossAccountReadError"
    assert words in message
    assert f"account {ACCOUNT}" in message and "'sales'" in message and "'orders'" in message
    assert info.value.__cause__ is not None  # the original stays in the traceback
    if "denied" in words or "no table" in words:
        assert "dbt run-operation cross_account_doctor" in message


def test_an_error_no_rule_knows_is_raised_unchanged():
    key, code = planned(table_format="hive")
    boom = ValueError("something else")
    with pytest.raises(ValueError) as info:
        load(code, FakeSpark(failures={SEPARATOR_NAME: boom}))["get_spark_df"](key)
    assert info.value is boom


@pytest.mark.spark
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(account=st.from_regex(r"\A[0-9]{12}\Z"), schema=NAME, table=NAME)
def test_every_name_the_code_can_emit_parses_to_the_intended_parts(parse, account, schema, table):
    """The format lookup, the Iceberg table name and the Iceberg catalog's conf keys, for any
    names: Spark's parser reads exactly the parts the plan meant."""
    read = read_of("partner_catalog", schema, table)
    plan = build_read_plan("m", [read], resolver_for({"partner_catalog": account}), region="r")
    (entry,) = plan.tables.values()
    statement = parse_statement(entry["detect"]["sql"])
    assert statement == (
        "ShowTableProperties",
        [f"{account}/{schema.strip()}", table.strip()],
        "table_type",
    )
    iceberg = entry["reads"]["iceberg"]
    catalog, *rest = parse(iceberg["table"])
    assert rest == [schema.strip().lower(), table.strip().lower()]
    assert catalog == f"dbt_cross_account_iceberg_{account}"
    assert [parse(f"`x`.{catalog}")[1]] == [catalog]  # a plain identifier, unquoted too
    for key, _, _ in iceberg["conf"]:
        assert key.startswith(f"spark.sql.catalog.{catalog}")
    assert parse(entry["reads"]["hive"]["table"]) == [f"{account}/{schema.strip()}", table.strip()]
