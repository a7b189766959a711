{#-
  athena__py_get_spark_dbt_object: the package's replacement for dbt-athena's block of the
  same name, used only for opted-in Python models. It resolves the catalogs this model
  references (one athena:GetDataCatalog per catalog per run, through the plugin), warns
  about referenced catalogs Spark cannot read cross-account, and emits the helpers.
-#}
{% macro athena__py_get_spark_dbt_object() -%}
  {%- do dbt_athena_cross_account.cross_account_require_plugin() -%}
  {%- set catalog_names = dbt_athena_cross_account.cross_account_referenced_catalogs(model) -%}
  {%- set catalog_map = adapter.get_spark_cross_account_catalog_map(catalog_names) if catalog_names else {} -%}
  {%- for name in catalog_names if name not in catalog_map -%}
    {%- set info = adapter.get_spark_cross_account_catalog_info(name) -%}
    {%- do exceptions.warn(
      "dbt_athena_cross_account: model '" ~ model.unique_id ~ "' reads catalog '" ~ name ~ "' with "
      ~ "spark_cross_account_catalog: true, but " ~ info.get('reason', 'it is not a cross-account GLUE catalog')
      ~ ". Falling back to the local two-part name (schema.table), as stock dbt-athena does."
    ) -%}
  {%- endfor -%}
  {{- dbt_athena_cross_account.cross_account_get_spark_df(catalog_map) -}}
{%- endmacro %}
