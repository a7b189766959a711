{#-
  _cross_account_source_format: the table format a source of `node` names in its meta
  (`spark_table_format`, e.g. iceberg), which skips the metadata lookup that otherwise
  detects the format when the model runs. The table's meta (config.meta in dbt >= 1.10,
  else meta) wins over the source's (source_meta). none when neither names one; the
  plugin validates the value.
-#}
{% macro _cross_account_source_format(node, source_args) -%}
  {%- for unique_id in node.depends_on.nodes if unique_id.startswith('source.') -%}
    {%- set source_node = graph.sources.get(unique_id) -%}
    {%- if source_node and source_node.source_name == source_args[0] and source_node.name == source_args[1] -%}
      {%- set table_meta = ((source_node.config or {}).get('meta') or {}) if source_node.config is mapping else {} -%}
      {%- for meta in [table_meta, source_node.meta or {}, source_node.source_meta or {}] -%}
        {%- if meta.get('spark_table_format') is not none -%}
          {{- return(meta.get('spark_table_format')) -}}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(none) -}}
{%- endmacro %}
