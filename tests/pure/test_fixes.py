"""fixes.py: the one home of every fix text, from Python and from dbt's Jinja."""

from __future__ import annotations

import shlex

import pytest
from dbt_common.clients.jinja import get_environment

from dbt_athena_cross_account import fixes


def test_dispatch_yaml_puts_the_project_then_this_package_then_dbt():
    assert fixes.dispatch_yaml("my_project") == (
        "dispatch:\n"
        "  - macro_namespace: athena\n"
        "    search_order: ['my_project', 'dbt_athena_cross_account', 'dbt']"
    )


@pytest.mark.parametrize(
    ("verb", "build"),
    [
        ("create-data-catalog", fixes.create_data_catalog),
        ("update-data-catalog", fixes.update_data_catalog),
    ],
)
def test_data_catalog_commands_parse_back_to_their_words(verb, build):
    name = "it's a $(catalog)"
    assert shlex.split(build(name, "eu-west-1")) == [
        "aws", "athena", verb, "--region", "eu-west-1", "--name", name,
        "--type", "GLUE", "--parameters", "catalog-id=<12-digit owner account id>",
    ]  # fmt: skip
    assert "--region" not in shlex.split(build(name))


@pytest.mark.parametrize(
    ("name", "cross_account"),
    [
        ("partner_catalog", True),
        (" Partner ", True),
        ("awsdatacatalog", False),
        (" AwsDataCatalog ", False),
        ("s3tablescatalog/my-bucket", False),
        ("S3TablesCatalog/My-Bucket", False),
        ("", False),
    ],
)
def test_local_and_s3_tables_catalogs_are_not_cross_account(name, cross_account):
    assert fixes.is_cross_account_catalog(name) is cross_account


def test_macros_can_call_the_same_functions_through_an_adapter_value():
    """What an adapter method returning ``fixes.for_jinja()`` gives a macro, rendered by
    dbt's own (sandboxed) Jinja environment."""
    template = get_environment().from_string(
        "{{ fixes.dispatch_yaml(project_name) }}|{{ fixes.update_data_catalog('a b') }}|"
        "{{ fixes.is_cross_account_catalog(fixes.local_catalog) }}"
    )
    rendered = template.render({"fixes": fixes.for_jinja(), "project_name": "p"})
    assert rendered == "|".join(
        [fixes.dispatch_yaml("p"), fixes.update_data_catalog("a b"), "False"]
    )
