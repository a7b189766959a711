{#-
  _cross_account_is_python_model: true when a ref of `node` points at a Python model.
  dbt-athena writes Python models into the local account whatever their database, so
  the read plan must not look such a ref up in another account.
-#}
{% macro _cross_account_is_python_model(node, ref_args) -%}
  {%- for unique_id in node.depends_on.nodes if unique_id.startswith('model.') -%}
    {%- set dependency = graph.nodes.get(unique_id) -%}
    {%- if dependency and dependency.name == ref_args['name']
          and (not ref_args.get('package') or dependency.package_name == ref_args['package'])
          and (ref_args.get('version') is none or (dependency.version | string) == (ref_args['version'] | string)) -%}
      {{- return(dependency.language == 'python') -}}
    {%- endif -%}
  {%- endfor -%}
  {{- return(false) -}}
{%- endmacro %}
