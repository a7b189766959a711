{#-
  _cross_account_dispatch_winner: the package whose athena__create_table_as dbt-athena's
  create_table_as will use. With no `athena` dispatch entry that is always dbt-athena's
  own ('dbt_athena'): adapter.dispatch called from inside this package would search this
  package first and wrongly report it, so the configured search order is read from the
  plugin (adapter.get_spark_cross_account_dispatch_order) before asking dispatch.
-#}
{% macro _cross_account_dispatch_winner() -%}
  {%- if adapter.get_spark_cross_account_dispatch_order is not defined
        or not adapter.get_spark_cross_account_dispatch_order('athena') -%}
    {{- return('dbt_athena') -}}
  {%- endif -%}
  {{- return(adapter.dispatch('create_table_as', 'athena').macro.package_name) -}}
{%- endmacro %}
