"""session (each Python model's engine_config) and setup (dispatch, plugin): no AWS call."""

from __future__ import annotations

import pytest

from dbt_athena_cross_account.doctor.plugin_setup import check_setup
from dbt_athena_cross_account.doctor.rows import FAIL, PASS, WARN, ModelFacts
from dbt_athena_cross_account.doctor.session import (
    CATALOG_ID_PROPERTY,
    SEPARATOR_PROPERTY,
    check_session,
)
from tests.unit.doctor.helpers import only


def test_catalogid_property_fails_for_any_python_model():
    rows = check_session(
        [
            ModelFacts("model.p.bad", False, {CATALOG_ID_PROPERTY: "999999999999"}),
            ModelFacts("model.p.plain", False, {}),
        ]
    )
    assert [(r.status, r.subject) for r in rows] == [(FAIL, "model.p.bad")]
    assert "read AND write" in rows[0].reason
    assert "remove spark.hadoop.hive.metastore.glue.catalogid" in rows[0].fix


@pytest.mark.parametrize("value", ["", None, ":"])
def test_opted_in_model_overriding_separator_warns(value):
    rows = check_session([ModelFacts("model.p.m", True, {SEPARATOR_PROPERTY: value})])
    assert [(r.status, r.kind) for r in rows] == [(WARN, "session")]
    assert f"remove {SEPARATOR_PROPERTY}" in rows[0].fix


def test_opted_in_model_with_clean_properties_passes():
    rows = check_session([ModelFacts("model.p.m", True, {SEPARATOR_PROPERTY: "/"})])
    assert [(r.status, r.subject) for r in rows] == [(PASS, "model.p.m")]


@pytest.mark.parametrize(("readers", "status"), [(["model.p.m"], FAIL), ([], WARN)])
def test_missing_dispatch_entry(readers, status):
    verdicts = {"p": {"ok": False, "winner": "dbt_athena", "reason": "", "fix": ""}}
    rows = check_setup({"verdicts": verdicts, "readers": readers, "project_name": "p"})
    row = only(rows, "setup", "dispatch")
    assert row.status == status
    assert "create_table_as dispatches to package 'dbt_athena'" in row.reason
    assert "search_order: ['p', 'dbt_athena_cross_account', 'dbt']" in row.fix


def test_a_project_override_that_bypasses_the_package_fails_with_its_fix():
    verdicts = {
        "p": {
            "ok": False,
            "winner": None,
            "reason": "macro 'create_table_as' of project 'p' ...",
            "fix": "make 'create_table_as' return ...",
        }
    }
    rows = check_setup({"verdicts": verdicts, "readers": ["model.p.m"], "project_name": "p"})
    row = only(rows, "setup", "dispatch")
    assert (row.status, row.reason, row.fix) == (
        FAIL,
        verdicts["p"]["reason"],
        verdicts["p"]["fix"],
    )


def test_good_setup_passes():
    rows = check_setup({"plugin": True, "plugin_version": "0.1.0", "verdicts": {"p": {"ok": True}}})
    assert [(r.status, r.subject) for r in rows] == [(PASS, "dispatch"), (PASS, "plugin")]


# Athena's Apache Spark 3.5 engine takes session properties in Classifications (spark-defaults):
# dbt-athena's Spark Connect path (dbt-adapters pull request #1874) sends them there.
SPARK_35_CATALOG_ID = {
    "unique_id": "model.p.spark35",
    "opted_in": True,
    "engine_config": {
        "Classifications": [
            {"Name": "spark-hive-site", "Properties": {"ignored": "x"}},
            {"Name": "spark-defaults", "Properties": {CATALOG_ID_PROPERTY: "999999999999"}},
        ]
    },
}
SPARK_35_SEPARATOR = {
    "unique_id": "model.p.sep35",
    "opted_in": True,
    "engine_config": {
        "SparkProperties": {SEPARATOR_PROPERTY: "/"},
        "Classifications": [{"Name": "spark-defaults", "Properties": {SEPARATOR_PROPERTY: ":"}}],
    },
}


def test_classifications_spark_defaults_are_checked_like_spark_properties():
    from dbt_athena_cross_account.doctor.adapter_method import _models

    rows = check_session(_models([SPARK_35_CATALOG_ID, SPARK_35_SEPARATOR]))
    assert [(r.status, r.subject) for r in rows] == [
        (FAIL, "model.p.spark35"),
        (WARN, "model.p.sep35"),
    ]
    assert f"sets {CATALOG_ID_PROPERTY}=999999999999" in rows[0].reason
    assert "spark-defaults Properties of its Classifications" in rows[1].fix
