{#-
  _cross_account_referenced_tables: the tables a node reads through its sources and refs,
  from the graph, in catalogs read cross-account (_cross_account_is_cross_account_catalog),
  as [{catalog, schema, table, table_format}], deduplicated case-insensitively;
  `table_format` is the one a source's meta names (_cross_account_source_format), else
  none. Used by the doctor.
-#}
{% macro _cross_account_referenced_tables(node) -%}
  {%- set tables = [] -%}
  {%- set seen = [] -%}
  {%- for unique_id in node.depends_on.nodes -%}
    {%- set dependency = graph.sources.get(unique_id) or graph.nodes.get(unique_id) or {} -%}
    {%- set database = dependency.get('database') -%}
    {%- set name = dependency.get('identifier') or dependency.get('alias') or dependency.get('name') -%}
    {%- if database and dependency.get('schema') and name
          and dbt_athena_cross_account._cross_account_is_cross_account_catalog(database) -%}
      {%- set key = (database | string | trim ~ '.' ~ dependency.get('schema') ~ '.' ~ name) | lower -%}
      {%- if key not in seen -%}
        {%- do seen.append(key) -%}
        {%- set table_format = dbt_athena_cross_account._cross_account_source_format(node, [dependency.get('source_name'), dependency.get('name')])
              if unique_id.startswith('source.') else none -%}
        {%- do tables.append({'catalog': database | string | trim, 'schema': dependency.get('schema') | string, 'table': name | string, 'table_format': table_format}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(tables) -}}
{%- endmacro %}
