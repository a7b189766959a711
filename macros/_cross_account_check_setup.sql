{#-
  _cross_account_check_setup: the package's on-run-start check. It runs on every
  dbt run/build even when dispatch never reaches this package, before any model runs,
  and fails fast when a selected Python model that opts in with
  spark_cross_account_catalog: true and reads any ref or source would not get the
  cross-account code (plugin missing, or the athena dispatch entry does not put this
  package first: Spark would read the local account), or has an invalid
  spark_cross_account_fallback, or has a database in another catalog (Spark writes Python
  models into the local account). Renders nothing and calls no AWS API.
-#}
{% macro _cross_account_check_setup() -%}
  {%- if execute -%}
    {%- set selected = selected_resources if selected_resources is defined and selected_resources is not none else none -%}
    {%- set readers = [] -%}
    {%- set opted_in = [] -%}
    {%- for node in graph.nodes.values()
          if node.resource_type == 'model' and node.language == 'python'
          and (selected is none or node.unique_id in selected)
          and dbt_athena_cross_account._cross_account_opted_in(node) -%}
      {%- do opted_in.append(node) -%}
      {%- if node.refs or node.sources -%}
        {%- do readers.append(node.unique_id) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if opted_in -%}
      {%- do dbt_athena_cross_account._cross_account_require_plugin((readers or opted_in | map(attribute='unique_id') | list) | join(', ')) -%}
      {%- for node in opted_in -%}
        {%- do adapter.get_spark_cross_account_read_plan(
              node.unique_id, [], (node.config or {}).get('spark_cross_account_fallback'), node.database) -%}
      {%- endfor -%}
    {%- endif -%}
    {%- if readers and dbt_athena_cross_account._cross_account_dispatch_winner() != 'dbt_athena_cross_account' -%}
      {%- do exceptions.raise_compiler_error(
        "dbt_athena_cross_account: " ~ readers | join(', ') ~ " opt in with spark_cross_account_catalog: true "
        ~ "and read refs or sources, but create_table_as dispatches to package '"
        ~ dbt_athena_cross_account._cross_account_dispatch_winner()
        ~ "', so the cross-account get_spark_df would never be used and Spark would read the local account. "
        ~ "Fix: add this to the dbt_project.yml of project '" ~ project_name ~ "':\n\n"
        ~ adapter.get_spark_cross_account_fixes().dispatch_yaml(project_name) ~ "\n"
      ) -%}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
