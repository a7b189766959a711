{#-
  _cross_account_read: one resolved ref/source relation as the plugin's plan.Read dict.
  `keys` are the strings the generated get_spark_df can receive for it: dbt's
  resolve_model_name of the relation and of relation.render() (dbt builds refs from
  render(), which drops the --empty subquery, and sources from the relation itself).
  `empty` is dbt --empty (the relation's limit is 0). `window` is dbt --sample's event_time
  filter of the relation (its column and bounds, as data; none without one), which the
  read plan checks and the generated code applies in Spark. `table_format` is a source's meta
  spark_table_format (none: the format is detected when the model runs).
-#}
{% macro _cross_account_read(relation, label, python_model, table_format=none) -%}
  {%- if relation.database is not defined or relation.identifier is not defined -%}
    {%- do exceptions.raise_compiler_error(
      "dbt_athena_cross_account: model '" ~ model.unique_id ~ "' reads " ~ label ~ ", which rendered as "
      ~ (relation | string) ~ " instead of a relation (a project macro that overrides ref or source returns a string?), "
      ~ "so its catalog cannot be known. Fix: return the relation from that macro, or remove spark_cross_account_catalog from the model."
    ) -%}
  {%- endif -%}
  {%- set keys = [resolve_model_name(relation) | string] -%}
  {%- if relation.render is defined and relation.render is callable -%}
    {%- set rendered = resolve_model_name(relation.render()) | string -%}
    {%- if rendered not in keys -%}{%- do keys.append(rendered) -%}{%- endif -%}
  {%- endif -%}
  {%- set filter = relation.event_time_filter if relation.event_time_filter is defined else none -%}
  {%- set window = none -%}
  {%- if filter is not none and (filter.start or filter.end) -%}
    {%- set window = {
      'column': filter.field_name | string,
      'start': (filter.start | string) if filter.start else none,
      'end': (filter.end | string) if filter.end else none,
    } -%}
  {%- endif -%}
  {{- return({
    'label': label,
    'keys': keys,
    'catalog': relation.database,
    'schema': relation.schema,
    'table': relation.identifier,
    'empty': (relation.limit == 0) if relation.limit is defined else false,
    'window': window,
    'python_model': python_model,
    'table_format': table_format,
  }) -}}
{%- endmacro %}
