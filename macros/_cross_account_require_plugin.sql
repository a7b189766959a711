{#-
  _cross_account_require_plugin: compile error, with the install lines, when the
  dbt-athena-cross-account Python plugin is not installed next to dbt (or is older than
  this package: its read-plan method is missing).
-#}
{% macro _cross_account_require_plugin(node_name=none) -%}
  {%- if adapter.get_spark_cross_account_read_plan is not defined or adapter.get_spark_cross_account_setup is not defined or adapter.record_spark_cross_account_block is not defined or adapter.get_spark_cross_account_roles is not defined -%}
    {%- do exceptions.raise_compiler_error(
      "dbt_athena_cross_account: " ~ ("model '" ~ (node_name or model.unique_id) ~ "' opts in with spark_cross_account_catalog: true, but ")
      ~ "the dbt-athena-cross-account Python plugin is not installed in the environment that runs dbt, or is older than this package "
      ~ "(adapter.get_spark_cross_account_read_plan is missing). Fix: "
      ~ dbt_athena_cross_account._cross_account_install_plugin_fix(
          upgrade=adapter.get_spark_cross_account_catalog_map is defined)
      ~ ", then run dbt again."
    ) -%}
  {%- endif -%}
{%- endmacro %}
