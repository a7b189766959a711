{#-
  _cross_account_opted_in: true when a model sets spark_cross_account_catalog.
  Uses the same truthiness as dbt-athena's AthenaSparkSessionConfig, which adds the
  Glue separator Spark property on the same flag, so both halves always agree.
-#}
{% macro _cross_account_opted_in(node=none) -%}
  {%- if node is none -%}
    {%- set flag = config.get('spark_cross_account_catalog', false) -%}
  {%- else -%}
    {%- set flag = (node.config or {}).get('spark_cross_account_catalog', false) -%}
  {%- endif -%}
  {{- return(true if flag else false) -}}
{%- endmacro %}
