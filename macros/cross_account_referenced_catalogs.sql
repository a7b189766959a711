{#-
  cross_account_referenced_catalogs: the data catalogs a node reads through its sources
  and refs, first spelling kept, deduplicated case-insensitively. The local
  awsdatacatalog and S3 Tables catalogs (s3tablescatalog/...) are not cross-account
  and are left out.
-#}
{% macro cross_account_referenced_catalogs(node) -%}
  {%- set names = [] -%}
  {%- set seen = [] -%}
  {%- for unique_id in node.depends_on.nodes -%}
    {%- set dependency = graph.sources.get(unique_id) or graph.nodes.get(unique_id) -%}
    {%- set database = (dependency or {}).get('database') -%}
    {%- if database -%}
      {%- set key = database | string | lower -%}
      {%- if key != 'awsdatacatalog' and not key.startswith('s3tablescatalog/') and key not in seen -%}
        {%- do seen.append(key) -%}
        {%- do names.append(database | string) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(names) -}}
{%- endmacro %}
