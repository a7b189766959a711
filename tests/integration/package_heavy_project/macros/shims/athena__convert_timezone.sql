{#- dbt-date's convert_timezone on Athena: Trino's with_timezone/at_timezone (dbt-date's
    trino__ form; its default__, convert_timezone(), does not exist in Athena). -#}
{% macro athena__convert_timezone(column, target_tz, source_tz) -%}
    {{ return(dbt_date.trino__convert_timezone(column, target_tz, source_tz)) }}
{%- endmacro %}
