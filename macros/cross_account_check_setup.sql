{#-
  cross_account_check_setup: the package's on-run-start check. It runs on every
  dbt run/build even when dispatch never reaches this package, and fails fast when a
  selected, opted-in Python model reads a non-local catalog but the plugin is missing
  or the athena dispatch entry does not put this package first. Renders nothing.
-#}
{% macro cross_account_check_setup() -%}
  {%- if execute -%}
    {%- set selected = selected_resources if selected_resources is defined and selected_resources is not none else none -%}
    {%- set readers = [] -%}
    {%- for node in graph.nodes.values()
          if node.resource_type == 'model' and node.language == 'python'
          and (selected is none or node.unique_id in selected)
          and dbt_athena_cross_account.cross_account_opted_in(node) -%}
      {%- if dbt_athena_cross_account.cross_account_referenced_catalogs(node) -%}
        {%- do readers.append(node.unique_id) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if readers -%}
      {%- do dbt_athena_cross_account.cross_account_require_plugin(readers | join(', ')) -%}
      {%- if dbt_athena_cross_account.cross_account_dispatch_winner() != 'dbt_athena_cross_account' -%}
        {%- do exceptions.raise_compiler_error(
          "dbt_athena_cross_account: " ~ readers | join(', ') ~ " opt in with spark_cross_account_catalog: true "
          ~ "and read cross-account catalogs, but create_table_as dispatches to package '"
          ~ dbt_athena_cross_account.cross_account_dispatch_winner()
          ~ "', so the cross-account get_spark_df would never be used and Spark would read the local account. "
          ~ "Fix: add this to the dbt_project.yml of project '" ~ project_name ~ "':\n\n"
          ~ "dispatch:\n"
          ~ "  - macro_namespace: athena\n"
          ~ "    search_order: ['" ~ project_name ~ "', 'dbt_athena_cross_account', 'dbt']\n"
        ) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
