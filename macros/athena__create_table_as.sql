{#-
  athena__create_table_as: the package's dispatch override for dbt-athena's create_table_as.
  It renders the stock macro and, only for Python models that opt in with
  spark_cross_account_catalog: true, swaps the stock get_spark_df block for the
  cross-account one and writes the code it submits to target/cross_account/ (dbt writes
  no runtime file for Python models). Every other model gets the stock text, byte for byte
  (a Python model that does not opt in but maps a catalog it reads in
  spark_cross_account_roles is stopped instead: the role would be ignored).
-#}
{% macro athena__create_table_as(temporary, relation, compiled_code, language='sql', skip_partitioning=false) -%}
  {%- if language == 'python' and dbt_athena_cross_account._cross_account_opted_in() -%}
    {%- do dbt_athena_cross_account._cross_account_refuse_view_refs(model) -%}
  {%- elif language == 'python' -%}
    {%- do dbt_athena_cross_account._cross_account_roles_without_opt_in(model) -%}
  {%- endif -%}
  {%- set stock = dbt.athena__create_table_as(temporary, relation, compiled_code, language, skip_partitioning) -%}
  {%- if language == 'python' and dbt_athena_cross_account._cross_account_opted_in() -%}
    {%- set code = dbt_athena_cross_account._cross_account_swap_spark_block(stock) -%}
    {%- do adapter.write_spark_cross_account_code(model, code) -%}
    {{- return(code) -}}
  {%- endif -%}
  {{- return(stock) -}}
{%- endmacro %}
