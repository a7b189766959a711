{#-
  _cross_account_check_setup: the package's on-run-start check. It runs on every
  dbt run/build even when dispatch never reaches this package, before any model runs,
  and fails fast when a selected Python model that opts in with
  spark_cross_account_catalog: true and reads any ref or source would not get the
  cross-account code (plugin missing; the athena dispatch entry does not put this
  package first; or a project or package macro named create_table_as or
  athena__create_table_as wins and does not delegate to this package: Spark would read the
  local account; the plugin's overrides.find_bypass decides), or has an invalid
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
    {%- set packages = [] -%}
    {%- for node in opted_in if node.unique_id in readers and node.package_name not in packages -%}
      {%- do packages.append(node.package_name) -%}
    {%- endfor -%}
    {%- set verdicts = adapter.get_spark_cross_account_setup(packages) if readers else {} -%}
    {%- for package in packages if package in verdicts and not verdicts[package].ok -%}
      {%- set verdict = verdicts[package] -%}
      {%- set names = opted_in | selectattr('package_name', 'equalto', package) | map(attribute='unique_id') | select('in', readers) | list -%}
      {%- if verdict.winner -%}
        {%- do exceptions.raise_compiler_error(
          "dbt_athena_cross_account: " ~ names | join(', ') ~ " opt in with spark_cross_account_catalog: true "
          ~ "and read refs or sources, but create_table_as dispatches to package '" ~ verdict.winner
          ~ "', so the cross-account get_spark_df would never be used and Spark would read the local account. "
          ~ "Fix: add this to the dbt_project.yml of project '" ~ project_name ~ "':\n\n"
          ~ adapter.get_spark_cross_account_fixes().dispatch_yaml(project_name) ~ "\n"
        ) -%}
      {%- endif -%}
      {%- do exceptions.raise_compiler_error(
        "dbt_athena_cross_account: " ~ names | join(', ') ~ " opt in with spark_cross_account_catalog: true "
        ~ "and read refs or sources, but " ~ verdict.reason ~ ". Fix: " ~ verdict.fix ~ "."
      ) -%}
    {%- endfor -%}
  {%- endif -%}
{%- endmacro %}
