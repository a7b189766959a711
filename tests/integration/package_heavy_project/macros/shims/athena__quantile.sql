{#- dbt-expectations' quantile on Athena: approx_percentile, Athena's only percentile (its
    default__ form, percentile_cont ... within group, does not exist in Athena). -#}
{% macro athena__quantile(field, quantile, partition) -%}
    approx_percentile({{ field }}, {{ quantile }})
    {%- if partition %} over (partition by {{ partition }}){% endif -%}
{%- endmacro %}
