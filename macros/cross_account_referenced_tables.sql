{#-
  cross_account_referenced_tables: the tables a node reads through its sources and refs
  in non-local catalogs, as [{catalog, schema, table}], deduplicated case-insensitively.
  Same catalog filter as cross_account_referenced_catalogs (no awsdatacatalog, no S3 Tables).
-#}
{% macro cross_account_referenced_tables(node) -%}
  {%- set tables = [] -%}
  {%- set seen = [] -%}
  {%- for unique_id in node.depends_on.nodes -%}
    {%- set dependency = graph.sources.get(unique_id) or graph.nodes.get(unique_id) or {} -%}
    {%- set database = dependency.get('database') -%}
    {%- set name = dependency.get('identifier') or dependency.get('alias') or dependency.get('name') -%}
    {%- if database and dependency.get('schema') and name -%}
      {%- set catalog_key = database | string | lower -%}
      {%- set key = (catalog_key ~ '.' ~ dependency.get('schema') ~ '.' ~ name) | lower -%}
      {%- if catalog_key != 'awsdatacatalog' and not catalog_key.startswith('s3tablescatalog/') and key not in seen -%}
        {%- do seen.append(key) -%}
        {%- do tables.append({'catalog': database | string, 'schema': dependency.get('schema') | string, 'table': name | string}) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(tables) -}}
{%- endmacro %}
