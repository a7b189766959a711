{#-
  _cross_account_opted_in: true when a model sets spark_cross_account_catalog to true.
  The flag must be a boolean, or a string that dbt's as_bool accepts (true, false), in any
  case: a value from env_var() arrives as a string, and the string 'false' means off (it
  is truthy, which is what stock dbt-athena reads). Anything else is a compile error
  naming the model and the value. The Jinja twin of the plugin's flags.opted_in (the setup
  check and the doctor must work without the plugin).
-#}
{% macro _cross_account_opted_in(node=none) -%}
  {%- if node is none -%}
    {%- set flag = config.get('spark_cross_account_catalog', none) -%}
    {%- set name = model.unique_id -%}
  {%- else -%}
    {%- set flag = (node.config or {}).get('spark_cross_account_catalog', none) -%}
    {%- set name = node.unique_id -%}
  {%- endif -%}
  {%- if flag is none or flag is sameas false -%}
    {{- return(false) -}}
  {%- elif flag is sameas true -%}
    {{- return(true) -}}
  {%- elif flag is string and (flag | trim | lower) in ['true', 'false'] -%}
    {{- return((flag | trim | lower) == 'true') -}}
  {%- endif -%}
  {%- set shown = ("'" ~ flag ~ "'") if flag is string else (flag | string) -%}
  {%- do exceptions.raise_compiler_error(
    "dbt_athena_cross_account: model '" ~ name ~ "' sets spark_cross_account_catalog: " ~ shown ~ ", which is not a boolean (true or false). Fix: set true or false; a value from env_var() or var() must end with | as_bool, e.g. \"{" ~ "{ env_var('XACCT', 'false') | as_bool }" ~ "}\"."
  ) -%}
{%- endmacro %}
