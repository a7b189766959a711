{#-
  _cross_account_model_reads: every ref() and source() of a model, resolved the way dbt
  resolves them for the generated Python in this invocation (so --defer/--state,
  --favor-state, --empty and versioned refs are what the model really reads), as the
  plain dicts the plugin's read plan takes (plan.Read), with each source's
  meta spark_table_format.
-#}
{% macro _cross_account_model_reads(node) -%}
  {%- set reads = [] -%}
  {%- for _ref in node.refs -%}
    {%- set args = [_ref.get('package'), _ref['name']] if _ref.get('package') else [_ref['name']] -%}
    {%- set version = _ref.get('version') -%}
    {%- set label = "ref('" ~ args | join("', '") ~ "'" ~ ((", v=" ~ version) if version is not none else "") ~ ")" -%}
    {%- do reads.append(dbt_athena_cross_account._cross_account_read(
          ref(*args, v=version), label,
          dbt_athena_cross_account._cross_account_is_python_model(node, _ref))) -%}
  {%- endfor -%}
  {%- for _source in node.sources -%}
    {%- do reads.append(dbt_athena_cross_account._cross_account_read(
          source(*_source), "source('" ~ _source | join("', '") ~ "')", false,
          dbt_athena_cross_account._cross_account_source_format(node, _source))) -%}
  {%- endfor -%}
  {{- return(reads) -}}
{%- endmacro %}
