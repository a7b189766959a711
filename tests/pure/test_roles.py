"""spark_cross_account_roles (roles.py) and the read plan it makes, without dbt."""

from __future__ import annotations

import re

import pytest

from dbt_athena_cross_account import roles
from dbt_athena_cross_account.errors import CrossAccountCatalogError
from dbt_athena_cross_account.plan import build_read_plan
from tests.pure.test_plan import Resolver, read

PARTNER_ROLE = "arn:aws:iam::999999999999:role/dbt-reader"
MODEL = "model.shop.orders_joined"


def owner(**kw):
    """A read of the partner's table, whose source names the Iceberg format (as a read
    through a role must)."""
    return read("partner_catalog", table_format="iceberg", **kw)


def plan_of(owner_roles, *reads, region="eu-west-1"):
    return build_read_plan(MODEL, list(reads), Resolver(), region=region, owner_roles=owner_roles)


def conf_of(entry):
    return {key: value for key, value, _ in entry["reads"]["iceberg"]["conf"]}


def test_a_role_reads_the_owners_iceberg_tables_through_a_role_catalog():
    plan = plan_of({"Partner_Catalog ": PARTNER_ROLE}, owner())
    entry = plan.tables['"partner_catalog"."sales"."orders"']
    catalog = entry["table"].split(".")[0].strip("`")
    assert catalog.startswith("dbt_cross_account_iceberg_999999999999_role_")
    assert (entry["format"], entry["detect"], entry["refuse"]) == ("iceberg", None, {})
    assert entry["role"] == {
        "role_arn": PARTNER_ROLE,
        "account": "999999999999",
        "external_id": None,
    }
    prefix = "spark.sql.catalog." + catalog
    conf = conf_of(entry)
    assert conf[prefix] == "org.apache.iceberg.spark.SparkCatalog"
    assert conf[prefix + ".glue.id"] == "999999999999"
    assert conf[prefix + ".client.factory"] == roles.ASSUME_ROLE_FACTORY
    assert conf[prefix + ".client.assume-role.arn"] == PARTNER_ROLE
    assert conf[prefix + ".client.assume-role.region"] == "eu-west-1"
    assert conf[prefix + ".client.assume-role.timeout-sec"] == "3600"
    assert conf[prefix + ".client.assume-role.session-name"] == "dbt-orders_joined"
    assert prefix + ".client.assume-role.external-id" not in conf
    # the role applies to S3FileIO only: never the session's io-impl (HadoopFileIO would
    # read the owner's S3 as the execution role)
    io_impl = next(r for r in entry["reads"]["iceberg"]["conf"] if r[0] == prefix + ".io-impl")
    assert io_impl == [prefix + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO", None]


def test_the_external_id_is_passed_and_gives_another_catalog():
    plain = plan_of({"partner_catalog": PARTNER_ROLE}, owner())
    with_id = plan_of(
        {"partner_catalog": {"role_arn": PARTNER_ROLE, "external_id": "partner-42"}},
        owner(),
    )
    entry = with_id.tables['"partner_catalog"."sales"."orders"']
    assert "partner-42" in conf_of(entry).values()
    assert entry["table"] != plain.tables['"partner_catalog"."sales"."orders"']["table"]


def test_catalogs_without_a_role_read_as_before_and_unread_entries_are_not_checked():
    before = plan_of(None, read("supplier_catalog"))
    after = plan_of(
        {"partner_catalog": PARTNER_ROLE, "never_read": "not an arn"}, read("supplier_catalog")
    )
    assert after.tables == before.tables
    assert "role" not in after.tables['"supplier_catalog"."sales"."orders"']


def test_a_catalog_mapped_to_null_reads_without_a_role():
    plan = plan_of({"partner_catalog": None}, read("partner_catalog"))
    assert "role" not in plan.tables['"partner_catalog"."sales"."orders"']


def test_two_owners_one_through_a_role_one_through_grants():
    plan = plan_of({"partner_catalog": PARTNER_ROLE}, owner(), read("supplier_catalog"))
    assert "role" in plan.tables['"partner_catalog"."sales"."orders"']
    supplier = plan.tables['"supplier_catalog"."sales"."orders"']
    assert supplier["table"] == "`777777777777/sales`.`orders`"
    assert supplier["detect"] is not None


@pytest.mark.parametrize(
    "value, expected",
    [
        ("arn:aws:iam::999999999999:user/dbt", "is not an IAM role ARN"),
        ("999999999999", "is not an IAM role ARN"),
        ("arn:aws:iam::99999:role/x", "is not an IAM role ARN"),
        ("arn:aws:iam::777777777777:role/dbt-reader", "of account 777777777777, but catalog"),
        (42, "neither a role ARN string nor a mapping"),
        ({"arn": PARTNER_ROLE}, "neither a role ARN string nor a mapping"),
        ({"role_arn": PARTNER_ROLE, "external_id": "x"}, "external_id 'x', which STS"),
        # a YAML number: the message says what is wrong, not "neither a role ARN..."
        ({"role_arn": PARTNER_ROLE, "external_id": 123456}, "external_id 123456, a int, but"),
        ({"role_arn": PARTNER_ROLE, "external-id": "ab"}, "with the key(s) 'external-id', which"),
    ],
)
def test_a_bad_role_is_a_compile_error_naming_model_value_and_fix(value, expected):
    with pytest.raises(CrossAccountCatalogError) as caught:
        plan_of({"partner_catalog": value}, owner())
    text = str(caught.value)
    assert expected in text
    assert f"model '{MODEL}'" in text
    assert "Fix: " in text


def test_the_mapping_must_be_a_mapping():
    with pytest.raises(CrossAccountCatalogError, match="is not a mapping from catalog name"):
        plan_of("arn:aws:iam::999999999999:role/dbt-reader", owner())


def test_a_hive_source_under_a_role_is_refused_at_compile_time():
    with pytest.raises(CrossAccountCatalogError) as caught:
        plan_of({"partner_catalog": PARTNER_ROLE}, read("partner_catalog", table_format="hive"))
    text = str(caught.value)
    # the meta says Hive: the table itself was never looked at
    assert "a Hive table of account" not in text
    assert (
        "source('partner_catalog', 'orders') of account 999999999999, whose meta says it is a "
        "Hive table (spark_table_format: hive)"
    ) in text
    assert "correct its meta to spark_table_format: iceberg" in text
    assert "switch every Glue call of the session to the owner's role" in text
    assert (
        "Glue resource policy and bucket policy" in text and "expose the table as Iceberg" in text
    )


@pytest.mark.parametrize("meta", [None, " "])
def test_a_source_that_names_no_format_under_a_role_is_refused_at_compile_time(meta):
    with pytest.raises(CrossAccountCatalogError) as caught:
        plan_of({"partner_catalog": PARTNER_ROLE}, read("partner_catalog", table_format=meta))
    text = str(caught.value)
    assert (
        f"model '{MODEL}' reads source('partner_catalog', 'orders') of account 999999999999 "
        f"through the role {PARTNER_ROLE}"
    ) in text
    assert "the source does not name the table's format" in text
    assert "Nothing was submitted" in text
    assert "Fix: in the source's YAML, set meta: {spark_table_format: iceberg}" in text


def test_the_same_source_without_a_role_is_still_looked_up_in_spark():
    plan = plan_of({"other_catalog": PARTNER_ROLE}, read("partner_catalog"))
    assert plan.tables['"partner_catalog"."sales"."orders"']["detect"] is not None


def test_runtime_errors_name_the_role():
    plan = plan_of(
        {"partner_catalog": {"role_arn": PARTNER_ROLE, "external_id": "ab"}},
        owner(),
    )
    rules = plan.tables['"partner_catalog"."sales"."orders"']["errors"]
    refused = next(
        r for r in rules if "is not authorized to perform: sts:AssumeRole" in r["markers"]
    )
    assert PARTNER_ROLE in refused["message"] and "'ab'" in refused["message"]
    # an STS refusal names software.amazon.awssdk.services.sts too: it must not read as
    # missing classes
    sts_text = "software.amazon.awssdk.services.sts.model.StsException: User: x is not authorized"
    missing = next(r for r in rules if roles.ASSUME_ROLE_FACTORY in r["message"])
    assert not any(m in sts_text for m in missing["markers"])


def test_session_names_fit_sts():
    assert roles.session_name("model.p." + "x" * 100) == "dbt-" + "x" * 60
    assert roles.session_name("model.p.a b/c") == "dbt-a-b-c"


def test_session_names_are_ascii_and_keep_a_versioned_models_name():
    # STS's [\w+=,.@-] is ASCII: accents are dropped, anything else becomes '-'
    assert roles.session_name("model.p.ventes_\u00e9t\u00e9") == "dbt-ventes_ete"
    assert roles.session_name("model.p.\u6ce8\u6587") == "dbt-model"  # nothing ASCII left
    assert roles.session_name("model.p.orders.v1") == "dbt-orders-v1"
    assert roles.session_name("model.p.orders.v2") == "dbt-orders-v2"
    for name in ("model.p.ventes_\u00e9t\u00e9", "model.p.orders.v1"):
        assert re.fullmatch(r"[A-Za-z0-9_+=,.@-]{2,64}", roles.session_name(name))


@pytest.mark.parametrize(
    "value",
    [
        {"role_arn": PARTNER_ROLE, "external_id": "partner-42"},
        {"role_arn": PARTNER_ROLE},
        {"partner_catalog": PARTNER_ROLE, "external_id": "partner-42"},
    ],
)
def test_a_mapping_without_its_catalog_level_is_a_compile_error_showing_the_shape(value):
    with pytest.raises(CrossAccountCatalogError) as caught:
        plan_of(value, owner())
    text = str(caught.value)
    assert f"model '{MODEL}' sets spark_cross_account_roles to a mapping whose keys include" in text
    assert "the keys of spark_cross_account_roles are catalog names" in text
    assert "{partner_catalog: {role_arn: " in text


def test_the_projects_mapping_and_a_folders_are_merged_and_null_turns_a_catalog_off():
    project = {"Partner_Catalog": PARTNER_ROLE, "other": "arn:aws:iam::1:role/x"}
    folder = {"other": None}
    assert roles.effective_roles([project, folder], folder) == {
        "partner_catalog": PARTNER_ROLE,
        "other": None,
    }
    # the model's own value wins over the levels, entry by entry
    own = {"partner_catalog": "arn:aws:iam::999999999999:role/another"}
    assert roles.effective_roles([project], own)["partner_catalog"].endswith("role/another")
    # null for the whole setting turns everything off; a bad value is left for parse_roles
    assert roles.effective_roles([project, None], None) == {}
    assert roles.effective_roles([project], "nope") == "nope"
    models = {
        "+spark_cross_account_roles": {"a": "1"},
        "shop": {
            "+spark_cross_account_roles": project,
            "staging": {"spark_cross_account_roles": folder, "+materialized": "table"},
        },
    }
    assert roles.project_levels(models, ["shop", "staging", "m"]) == [{"a": "1"}, project, folder]
    assert roles.project_levels(models, ["other_package", "m"]) == [{"a": "1"}]


def test_trust_policy_names_the_execution_role_and_external_id():
    policy = roles.trust_policy("arn:aws:iam::123456789012:role/Exec", "partner-42")
    statement = policy["Statement"][0]
    assert statement["Principal"] == {"AWS": "arn:aws:iam::123456789012:role/Exec"}
    assert statement["Condition"] == {"StringEquals": {"sts:ExternalId": "partner-42"}}
