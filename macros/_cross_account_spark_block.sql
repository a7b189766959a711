{#-
  _cross_account_spark_block: the package's replacement for dbt-athena's
  athena__py_get_spark_dbt_object() block, used only for opted-in Python models.
  It asks the plugin for the model's read plan (every ref and source as dbt rendered it
  in this invocation, one athena:GetDataCatalog per catalog per run), logs the plan's
  warnings (spark_cross_account_fallback: local) and emits the Python that follows it.
  A catalog that cannot be read cross-account is a compile error raised by the plugin.
  spark_cross_account_roles (catalog -> the owner's role) makes the plugin read that
  owner's Iceberg tables as the role (the project's mapping and the model's merged,
  adapter.get_spark_cross_account_roles: dbt would replace the one with the other).
-#}
{% macro _cross_account_spark_block() -%}
  {%- do dbt_athena_cross_account._cross_account_require_plugin() -%}
  {%- set plan = adapter.get_spark_cross_account_read_plan(
        model.unique_id,
        dbt_athena_cross_account._cross_account_model_reads(model),
        config.get('spark_cross_account_fallback', none),
        this.database,
        adapter.get_spark_cross_account_roles(model.fqn, config.get('spark_cross_account_roles', none))) -%}
  {%- for warning in plan.warnings -%}
    {%- do exceptions.warn(warning) -%}
  {%- endfor -%}
  {{- dbt_athena_cross_account._cross_account_get_spark_df(plan.tables) -}}
{%- endmacro %}
