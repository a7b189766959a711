"""The Python that opted-in models run, rendered from the package's macro with dbt's own Jinja
and checked against Spark's real SQL parser (PySpark 3.5, the session's parser)."""

from __future__ import annotations

import ast
import functools
import json
from typing import Dict, List

import pytest
from dbt.adapters.athena.relation import AthenaRelation
from dbt_common.clients.jinja import get_template
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO_ROOT

MACRO = (REPO_ROOT / "macros" / "cross_account_get_spark_df.sql").read_text()
ACCOUNT = "999999999999"

# Names with dots, quotes, backticks, hyphens, spaces, slashes and non-ASCII letters.
NAME = st.text(
    alphabet=st.sampled_from(list("abcXYZ019_.-` '\"/\\é漢🙂"))
    | st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
    min_size=1,
    max_size=12,
)


@functools.lru_cache(maxsize=1)
def _macro_module():
    return get_template(MACRO, {}).make_module({})


def render(catalog_map: Dict[str, str]) -> str:
    return str(_macro_module().dbt_macro__cross_account_get_spark_df(catalog_map))


class FakeSpark:
    def __init__(self) -> None:
        self.names: List[str] = []

    def table(self, name: str) -> str:
        self.names.append(name)
        return name


def load(code: str) -> Dict[str, object]:
    """Execute the generated block with the names dbt-athena's generated module provides."""
    spark = FakeSpark()

    class dbtObj:
        def __init__(self, load_df_function):
            self.load_df_function = load_df_function

    namespace: Dict[str, object] = {"spark": spark, "dbtObj": dbtObj, "source": None, "ref": None}
    exec(compile(code, "<generated>", "exec"), namespace)
    namespace["_fake_spark"] = spark
    return namespace


def dbt_quoted(*parts: str) -> str:
    """A relation string with each part double-quoted, "" for a quote inside a part."""
    return ".".join('"' + p.replace('"', '""') + '"' for p in parts)


@pytest.fixture(scope="module")
def parse():
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .appName("dbt-athena-cross-account-parser")
        .config("spark.ui.enabled", "false")
        .getOrCreate()
    )
    parser = spark._jsparkSession.sessionState().sqlParser()

    def _parse(name: str) -> List[str]:
        parts = parser.parseMultipartIdentifier(name)  # a Scala Seq[String]
        return [parts.apply(i) for i in range(parts.size())]

    return _parse


@pytest.mark.spark
def test_the_seed_form_does_not_parse_but_ours_does(parse):
    from pyspark.errors.exceptions.captured import ParseException

    with pytest.raises(ParseException):
        parse(f"{ACCOUNT}/sales.orders")
    ns = load(render({"partner_catalog": ACCOUNT}))
    name = ns["get_spark_df"](dbt_quoted("partner_catalog", "sales", "orders"))
    assert name == f"`{ACCOUNT}/sales`.`orders`"
    assert parse(name) == [f"{ACCOUNT}/sales", "orders"]


@pytest.mark.spark
@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(catalog=NAME, schema=NAME, table=NAME, mapped=st.booleans(), upper=st.booleans())
def test_any_names_parse_to_exactly_the_intended_parts(
    parse, catalog, schema, table, mapped, upper
):
    catalog_map = {catalog: ACCOUNT} if mapped and catalog.lower() != "awsdatacatalog" else {}
    code = render(catalog_map)
    compile(code, "<generated>", "exec")
    ns = load(code)
    referenced = catalog.upper() if upper else catalog  # matched case-insensitively
    name = ns["get_spark_df"](dbt_quoted(referenced, schema, table))
    if catalog_map and referenced.lower() == catalog.lower():
        assert parse(name) == [f"{ACCOUNT}/{schema}", table]
    else:
        assert parse(name) == [schema, table]


@pytest.mark.spark
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(schema=NAME, table=NAME)
def test_two_part_identifiers_pass_through_quoted(parse, schema, table):
    ns = load(render({}))
    assert parse(ns["get_spark_df"](dbt_quoted(schema, table))) == [schema, table]


@given(catalog_map=st.dictionaries(NAME, st.from_regex(r"\A[0-9]{12}\Z"), max_size=5))
@settings(max_examples=200, deadline=None)
def test_generated_module_compiles_and_carries_the_map_as_data(catalog_map):
    code = render(catalog_map)
    compile(code, "<generated>", "exec")
    assert load(code)["_CROSS_ACCOUNT_CATALOGS"] == catalog_map


@given(schema=NAME.filter(lambda s: '"' not in s), table=NAME.filter(lambda s: '"' not in s))
@settings(max_examples=100, deadline=None)
def test_relation_strings_as_dbt_athena_renders_them(schema, table):
    """dbt-athena renders "catalog"."schema"."table" without escaping; parts without a quote
    (the only ones such a string can carry) split back exactly."""
    relation = AthenaRelation.create(database="Partner_Catalog", schema=schema, identifier=table)
    ns = load(render({"partner_catalog": ACCOUNT}))
    assert ns["_cross_account_split"](relation.render()) == ["Partner_Catalog", schema, table]
    assert ns["_fake_spark"].names == []


def test_injection_attempts_stay_data():
    hostile = 'x"}\nimport os\nos.system("touch /tmp/pwned")\n#'
    code = render({hostile: ACCOUNT})
    ns = load(code)
    assert ns["_CROSS_ACCOUNT_CATALOGS"] == {hostile: ACCOUNT}
    assert "import os" not in [line.strip() for line in code.splitlines()]
    (line,) = [line for line in code.splitlines() if line.startswith("_CROSS_ACCOUNT_CATALOGS = ")]
    call = ast.parse(line).body[0].value
    assert isinstance(call, ast.Call) and len(call.args) == 1
    assert json.loads(ast.literal_eval(call.args[0])) == {hostile: ACCOUNT}
