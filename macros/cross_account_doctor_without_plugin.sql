{#-
  cross_account_doctor_without_plugin: the doctor's report when the Python plugin (or its
  run_cross_account_doctor method) is missing: the setup rows only, since every AWS check
  needs the plugin. FAILs when an opted-in model reads a cross-account catalog.
-#}
{% macro cross_account_doctor_without_plugin(setup) -%}
  {%- set status = 'FAIL' if setup.readers else 'WARN' -%}
  {%- set lines = [
    "cross_account_doctor report",
    "STATUS  CHECK  SUBJECT  REASON",
    status ~ "    setup  plugin   adapter.run_cross_account_doctor is missing: the dbt-athena-cross-account "
      ~ "Python plugin is not installed (or is older than the doctor); no AWS check can run"
      ~ ((" and " ~ setup.readers | join(', ') ~ " read cross-account catalogs") if setup.readers else ""),
    "        fix: pip install --upgrade dbt-athena-cross-account   (in the same virtualenv as dbt-athena)",
  ] -%}
  {#- without the plugin the configured dispatch order cannot be read: that row needs it -#}
  {%- set dispatch_ok = setup.dispatch_package == 'dbt_athena_cross_account' or not setup.dispatch_known -%}
  {%- if not setup.dispatch_known -%}
    {%- do lines.append("        (the dispatch check runs once the plugin is installed)") -%}
  {%- elif not dispatch_ok -%}
    {%- do lines.append(status ~ "    setup  dispatch create_table_as dispatches to package '" ~ setup.dispatch_package
          ~ "', so the cross-account get_spark_df is never used") -%}
    {%- do lines.append("        fix: add to " ~ setup.project_name ~ "/dbt_project.yml: dispatch: [{macro_namespace: athena, "
          ~ "search_order: ['" ~ setup.project_name ~ "', 'dbt_athena_cross_account', 'dbt']}]") -%}
  {%- else -%}
    {%- do lines.append("PASS    setup  dispatch create_table_as dispatches to dbt_athena_cross_account") -%}
  {%- endif -%}
  {%- set problems = 1 if dispatch_ok else 2 -%}
  {%- set summary = ("1 PASS, " if dispatch_ok and setup.dispatch_known else "0 PASS, ")
        ~ (("0 WARN, " ~ problems ~ " FAIL") if status == 'FAIL' else (problems ~ " WARN, 0 FAIL")) -%}
  {%- do lines.append(summary) -%}
  {%- do log(lines | join('\n'), info=true) -%}
  {%- if status == 'FAIL' -%}
    {%- do exceptions.raise_compiler_error(
      "cross_account_doctor: the dbt-athena-cross-account Python plugin is not installed, and "
      ~ setup.readers | join(', ') ~ " read cross-account catalogs. "
      ~ "Fix: pip install --upgrade dbt-athena-cross-account   (in the same virtualenv as dbt-athena)."
    ) -%}
  {%- endif -%}
{%- endmacro %}
