{#-
  _cross_account_referenced_catalogs: the catalogs of _cross_account_referenced_tables
  (read cross-account, from the graph), first spelling kept, deduplicated
  case-insensitively. Used by the doctor.
-#}
{% macro _cross_account_referenced_catalogs(node) -%}
  {%- set names = [] -%}
  {%- set seen = [] -%}
  {%- for table in dbt_athena_cross_account._cross_account_referenced_tables(node) -%}
    {%- if table.catalog | lower not in seen -%}
      {%- do seen.append(table.catalog | lower) -%}
      {%- do names.append(table.catalog) -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(names) -}}
{%- endmacro %}
