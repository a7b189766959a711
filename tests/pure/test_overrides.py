"""overrides.find_bypass: which macro dbt really calls for an opted-in Python model, as
dbt's macro namespace and adapter.dispatch resolve names (pure; no dbt)."""

from __future__ import annotations

from typing import List, Optional

import pytest

from dbt_athena_cross_account.overrides import MacroInfo, Macros, find_bypass, macro_infos

ROOT = "hunt"
ORDER = [ROOT, "dbt_athena_cross_account", "dbt"]
SIG = "temporary, relation, compiled_code, language='sql', skip_partitioning=false"
ARGS = "temporary, relation, compiled_code, language, skip_partitioning"
STOCK = [
    MacroInfo(
        "create_table_as",
        "dbt_athena",
        "create_table_as.sql",
        "{{ adapter.dispatch('create_table_as', 'athena')(" + ARGS + ") }}",
    ),
    MacroInfo("athena__create_table_as", "dbt_athena", "create_table_as.sql", "create table ..."),
    MacroInfo(
        "create_table_as", "dbt", "create.sql", "{{ adapter.dispatch('create_table_as', 'dbt')() }}"
    ),
    MacroInfo("default__create_table_as", "dbt", "create.sql", "create table ..."),
    MacroInfo(
        "athena__create_table_as",
        "dbt_athena_cross_account",
        "macros/athena__create_table_as.sql",
        "{%- set stock = dbt.athena__create_table_as(" + ARGS + ") -%}",
    ),
]


def project_macro(name: str, body: str, package: str = ROOT) -> MacroInfo:
    return MacroInfo(
        name, package, "macros/team.sql", f"{{% macro {name}({SIG}) -%}}{body}{{%- endmacro %}}"
    )


def verdict(*extra: MacroInfo, order: Optional[List[str]] = ORDER, package: str = ROOT):
    macros = Macros([*STOCK, *extra], ROOT, ["dbt_athena", "dbt"])
    return find_bypass(macros, order, package)


def test_the_readme_setup_reaches_the_package():
    assert verdict().ok


def test_without_a_dispatch_entry_dbt_athena_wins():
    found = verdict(order=None)
    assert not found.ok and found.winner == "dbt_athena" and found.bypass is None
    assert found.reason == "create_table_as dispatches to package 'dbt_athena'"


@pytest.mark.parametrize(
    "name", ["create_table_as", "athena__create_table_as", "default__create_table_as"]
)
def test_a_root_macro_that_renders_the_stock_macro_bypasses(name):
    found = verdict(project_macro(name, "{{ return(dbt.athena__create_table_as(" + ARGS + ")) }}"))
    assert not found.ok and found.bypass is not None and found.bypass.name == name
    assert f"macro '{name}' of project 'hunt' (macros/team.sql)" in found.reason
    assert "renders dbt-athena's macro itself" in found.reason
    assert found.fix.startswith(
        f"make '{name}' return dbt_athena_cross_account.athena__create_table_as("
    )


@pytest.mark.parametrize("name", ["create_table_as", "athena__create_table_as"])
@pytest.mark.parametrize("order", [ORDER, None])
def test_a_root_macro_that_delegates_to_the_package_is_accepted(name, order):
    body = "{{ return(dbt_athena_cross_account . athena__create_table_as(" + ARGS + ")) }}"
    assert verdict(project_macro(name, body), order=order).ok


def test_a_root_create_table_as_through_dispatch_follows_the_dispatch_entry():
    through = project_macro(
        "create_table_as",
        "{{ adapter.dispatch(\"create_table_as\", macro_namespace='athena')(" + ARGS + ") }}",
    )
    assert verdict(through).ok
    assert verdict(through, order=None).winner == "dbt_athena"


def test_a_bare_call_follows_the_bare_name():
    bare = project_macro("create_table_as", "{{ return(athena__create_table_as(" + ARGS + ")) }}")
    assert verdict(bare).bypass.name == "create_table_as"  # dbt-athena's, by bare name
    wrapper = project_macro(
        "athena__create_table_as",
        "{{ return(dbt_athena_cross_account.athena__create_table_as(" + ARGS + ")) }}",
    )
    assert verdict(bare, wrapper).ok


def test_a_mention_in_a_comment_is_not_a_call():
    body = (
        "{# was: dbt_athena_cross_account.athena__create_table_as(...) #}{{ return(dbt.athena__create_table_as("
        + ARGS
        + ")) }}"
    )
    assert not verdict(project_macro("create_table_as", body)).ok


def test_another_package_first_in_the_search_order_bypasses():
    other = project_macro(
        "athena__create_table_as", "{{ return('create table x') }}", package="team_pkg"
    )
    found = verdict(other, order=[ROOT, "team_pkg", "dbt_athena_cross_account", "dbt"])
    assert found.bypass is other and "of package 'team_pkg'" in found.reason
    assert "does not call dbt_athena_cross_account.athena__create_table_as" in found.reason
    assert verdict(other).ok  # not in the search order: never reached


def test_a_model_of_a_package_uses_that_package_s_override_first():
    other = project_macro(
        "create_table_as",
        "{{ return(dbt.athena__create_table_as(" + ARGS + ")) }}",
        package="team_pkg",
    )
    assert verdict(other).ok  # root models do not see it
    assert verdict(other, package="team_pkg").bypass is other


def test_macro_infos_keeps_only_the_create_table_as_family():
    class M:
        def __init__(self, name, package="p"):
            self.name, self.package_name, self.original_file_path, self.macro_sql = (
                name,
                package,
                "f",
                "s",
            )

    found = macro_infos(
        {
            str(i): M(n)
            for i, n in enumerate(
                [
                    "create_table_as",
                    "ref",
                    "athena__create_table_as",
                    "default__create_table_as",
                    "x__create_table_as",
                ]
            )
        }
    )
    assert sorted(m.name for m in found) == [
        "athena__create_table_as",
        "create_table_as",
        "default__create_table_as",
    ]
