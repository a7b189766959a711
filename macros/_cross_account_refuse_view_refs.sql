{#-
  _cross_account_refuse_view_refs: stops an opted-in Python model that ref()s a model
  materialized as a view, before its code is submitted. Athena for Apache Spark cannot
  read views created by Athena SQL (AWS, "Considerations and limitations"); on Athena
  the calculation would fail only after its session started. The error names the
  model, the view and the fix.
-#}
{% macro _cross_account_refuse_view_refs(node) -%}
  {%- for unique_id in node.depends_on.nodes if unique_id.startswith('model.') -%}
    {%- set dependency = graph.nodes.get(unique_id) -%}
    {%- if dependency and dependency.config.materialized == 'view' -%}
      {%- do exceptions.raise_compiler_error(
            "Python model '" ~ node.name ~ "' reads ref('" ~ dependency.name ~ "'), which is "
            ~ "materialized as a view: Athena for Apache Spark cannot read views created by "
            ~ "Athena SQL. Fix: set materialized='table' on '" ~ dependency.name ~ "' "
            ~ "({{ config(materialized='table') }} in " ~ dependency.original_file_path
            ~ "), or read its upstream tables instead.") -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
