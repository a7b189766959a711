"""flags.opted_in (the spark_cross_account_catalog flag is a boolean) and guard.refusal (the
last-step check before dbt-athena submits a Python model's code)."""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.flags import FlagError, opted_in
from dbt_athena_cross_account.guard import READ_PLAN_MARKER, refusal, rendered
from dbt_athena_cross_account.overrides import MacroInfo, Verdict
from tests.conftest import REPO_ROOT


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, False),
        (False, False),
        (True, True),
        ("true", True),
        (" True ", True),
        ("TRUE", True),
        ("false", False),
        ("False", False),
        (" FALSE", False),
    ],
)
def test_booleans_and_the_strings_as_bool_accepts(value, expected):
    assert opted_in("model.p.m", value) is expected


@pytest.mark.parametrize("value", ["maybe", "", "yes", "1", 1, 0, [], "truee"])
def test_anything_else_is_an_error_naming_the_model_and_the_value(value):
    with pytest.raises(FlagError) as info:
        opted_in("model.p.m", value)
    text = str(info.value)
    assert "model 'model.p.m' sets spark_cross_account_catalog: " + repr(value) in text
    assert "| as_bool" in text


def test_the_macro_twin_accepts_the_same_strings():
    macro = (REPO_ROOT / "macros" / "_cross_account_opted_in.sql").read_text(encoding="utf-8")
    assert "(flag | trim | lower) in ['true', 'false']" in macro
    assert "which is not a boolean (true or false)" in macro


MODEL = {
    "unique_id": "model.p.m",
    "alias": "m",
    "package_name": "p",
    "config": {"spark_cross_account_catalog": True},
    "sources": [["partner", "orders"]],
    "refs": [],
}
BYPASS = Verdict(
    False,
    bypass=MacroInfo("create_table_as", "p", "macros/x.sql", ""),
    reason="macro 'create_table_as' of project 'p' (macros/x.sql) builds ...",
    fix="make 'create_table_as' return ...",
)


def never(_package):
    raise AssertionError("the verdict is asked only for a refused model")


@pytest.mark.parametrize(
    "model",
    [
        {**MODEL, "config": {}},
        {**MODEL, "config": {"spark_cross_account_catalog": "false"}},
        {**MODEL, "sources": []},  # reads nothing through dbt
    ],
)
def test_models_that_need_no_read_plan_are_submitted_unchecked(model):
    assert refusal(model, "import pyspark\nstock code", never) is None


USER_CODE = "def model(dbt, spark):\n    return dbt.source('partner', 'orders')\n"
BLOCK = (
    "import json as _cross_account_json\n"
    + READ_PLAN_MARKER
    + '"{}")\ndef get_spark_df(i):\n    pass\n'
)
PLANNED = {**MODEL, "compiled_code": USER_CODE}


def submitted(user_code: str = USER_CODE, block: str = BLOCK) -> str:
    """The shape of dbt-athena's code: the model's code, materialize(), the block, the calls."""
    return f"import pyspark\n{user_code}def materialize(): pass\n{block}\ndbt = SparkdbtObj()\n"


def test_code_with_the_block_rendered_for_the_model_and_the_empty_main_statement_pass():
    assert refusal(PLANNED, submitted(), never, [rendered(BLOCK)]) is None
    assert refusal(PLANNED, "  \n", never, []) is None


def test_the_marker_in_the_model_file_is_not_the_block():
    """A comment in the model holding the marker used to let stock code through."""
    commented = "# " + READ_PLAN_MARKER + "\n" + USER_CODE
    stock = "def get_spark_df(i):\n    return spark.table(i)\n"
    code = submitted(commented, stock)
    model = {**MODEL, "compiled_code": commented}
    assert refusal(model, code, lambda package: None, [rendered(BLOCK)]) is not None
    assert refusal(model, code, lambda package: None, []) is not None


def test_a_copy_of_the_block_in_the_model_file_is_not_the_block():
    copied = '"""' + BLOCK + '"""\n' + USER_CODE
    model = {**MODEL, "compiled_code": copied}
    code = submitted(copied, "def get_spark_df(i):\n    return spark.table(i)\n")
    assert refusal(model, code, lambda package: None, [rendered(BLOCK)]) is not None


def test_another_block_or_one_changed_after_rendering_is_refused():
    other = BLOCK.replace('"{}"', '"{\\"x\\": 1}"')
    assert refusal(PLANNED, submitted(block=other), lambda p: None, [rendered(BLOCK)])
    assert refusal(PLANNED, submitted(block=BLOCK[:-5]), lambda p: None, [rendered(BLOCK)])


def test_a_reader_defined_again_after_the_block_is_refused():
    """Python keeps the last definition: stock code appended after the block reads local."""
    stock = "def get_spark_df(i):\n    return spark.table(i)\n"
    code = submitted(block=BLOCK + stock)
    assert refusal(PLANNED, code, lambda p: None, [rendered(BLOCK)]) is not None


def test_code_without_the_read_plan_is_refused_naming_the_bypass():
    text = refusal(MODEL, "stock code", lambda package: BYPASS)
    assert "model 'model.p.m' opts in" in text and "without this package's read plan" in text
    assert "Macro 'create_table_as' of project 'p' (macros/x.sql)" in text
    assert "Fix: make 'create_table_as' return" in text


def test_when_it_cannot_tell_it_says_so():
    text = refusal(MODEL, "stock code", lambda package: None)
    assert "No project macro named create_table_as or athena__create_table_as was found" in text


def test_the_package_emits_the_marker():
    macro = (REPO_ROOT / "macros" / "_cross_account_get_spark_df.sql").read_text(encoding="utf-8")
    assert READ_PLAN_MARKER in macro
