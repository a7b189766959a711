{#- dbt-expectations' regexp_instr on Athena: Trino's regexp_position (dbt-expectations ships
    a trino__ form but no athena__ one, and Athena's adapter does not fall back to trino__).
    Needs `dispatch: [{macro_namespace: dbt_expectations, search_order: [<project>, dbt_expectations]}]`. -#}
{% macro athena__regexp_instr(source_value, regexp, position, occurrence, is_raw, flags) %}
    {{ return(dbt_expectations.trino__regexp_instr(source_value, regexp, position, occurrence, is_raw, flags)) }}
{% endmacro %}
