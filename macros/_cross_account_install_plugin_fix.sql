{#-
  _cross_account_install_plugin_fix: the fix for a missing (or too old)
  dbt-athena-cross-account Python plugin, as one line of text: the pip commands from the
  package index, from git and from a local clone. Its one home is here, in Jinja: without
  the plugin no Python of this package runs, so only a macro can print it.
-#}
{% macro _cross_account_install_plugin_fix(upgrade=false) -%}
  {%- set pip = "pip install " ~ ("--upgrade " if upgrade else "") -%}
  {{- return(
    pip ~ "dbt-athena-cross-account   (in the virtualenv that runs dbt-athena; "
    ~ "until the package is on your index: " ~ pip ~ "\"git+<this repository's git URL>\" "
    ~ "or " ~ pip ~ "/path/to/a/clone/of/this/repository)"
  ) -}}
{%- endmacro %}
