{#-
  _cross_account_roles_without_opt_in: stops a Python model that does not opt in with
  spark_cross_account_catalog but maps, in spark_cross_account_roles (the project's mapping
  and its own, merged), a catalog it reads: without the opt-in the role is never used and
  Spark reads the local account's table of the same name. Decided from the graph and the
  config, with no AWS call; a model that reads no catalog of its mapping is left as stock.
-#}
{% macro _cross_account_roles_without_opt_in(node) -%}
  {%- set value = (node.config or {}).get('spark_cross_account_roles') -%}
  {%- if value is none -%}{{- return(none) -}}{%- endif -%}
  {%- if adapter.get_spark_cross_account_roles is defined -%}
    {%- set value = adapter.get_spark_cross_account_roles(node.fqn, value) -%}
  {%- endif -%}
  {%- if value is not mapping -%}{{- return(none) -}}{%- endif -%}
  {%- set mapped = {} -%}
  {%- for key, role in value.items() if role is not none -%}
    {%- do mapped.update({key | string | trim | lower: key}) -%}
  {%- endfor -%}
  {%- for table in dbt_athena_cross_account._cross_account_referenced_tables(node)
        if table.catalog | trim | lower in mapped -%}
    {%- do exceptions.raise_compiler_error(
      "dbt_athena_cross_account: model '" ~ node.unique_id ~ "' reads " ~ table.catalog ~ "." ~ table.schema ~ "." ~ table.table
      ~ " and maps its catalog '" ~ mapped[table.catalog | trim | lower] ~ "' to a role in spark_cross_account_roles, "
      ~ "but does not opt in with spark_cross_account_catalog: true, so the role would be ignored and Spark would read the local account's table of the same name. "
      ~ "Fix: set spark_cross_account_catalog: true on the model (dbt.config(spark_cross_account_catalog=True)) to read the owner's table through the role; "
      ~ "to read the local account's table on purpose, map '" ~ mapped[table.catalog | trim | lower] ~ "' to null in the model's spark_cross_account_roles."
    ) -%}
  {%- endfor -%}
{%- endmacro %}
