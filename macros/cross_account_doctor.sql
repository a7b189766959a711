{#-
  cross_account_doctor: read-only preflight, run as `dbt run-operation cross_account_doctor`.
  With no arguments it checks every opted-in Python model's cross-account references from
  the graph; with catalogs/tables it checks those. Each catalog and table gets PASS/WARN/FAIL
  rows for registration, Glue metadata, S3 data and table format, plus session-property and
  setup rows per model. An explicit table that opted-in models read is checked as they read
  it (through the owner's role, for spark_cross_account_roles). Logs the report and raises a dbt error when anything FAILs.
  Without the Python plugin no check can run: it says so with the pip lines, and raises
  when an opted-in model reads a cross-account catalog (`dbt run` would fail too).
  With spark=true it also runs the Spark probe: one session per distinct session
  configuration of the checked models, whose one calculation reads each cross-account
  table through the models' read plans and the package's generated read code (schema and
  limit(1), as the work group's execution role, or through the owner's role for models
  with spark_cross_account_roles); spark_timeout bounds each session
  (seconds), spark_max_sessions the sessions started. Without it no session starts.
-#}
{% macro cross_account_doctor(catalogs=none, tables=none, spark=false, spark_timeout=none, spark_max_sessions=none) -%}
  {%- if not execute -%}{{- return('') -}}{%- endif -%}
  {%- set from_graph = catalogs is none and tables is none -%}
  {%- set catalog_args = ([catalogs] if catalogs is string else (catalogs or [])) | list -%}
  {%- set table_args = ([tables] if tables is string else (tables or [])) | list -%}
  {%- set models = [] -%}
  {%- set readers = [] -%}
  {%- set packages = [] -%}
  {%- set graph_tables = {} -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.language == 'python' -%}
    {%- set opted_in = dbt_athena_cross_account._cross_account_opted_in(node) -%}
    {%- set node_catalogs = dbt_athena_cross_account._cross_account_referenced_catalogs(node) if opted_in else [] -%}
    {%- do models.append({
      'unique_id': node.unique_id,
      'opted_in': opted_in,
      'engine_config': (node.config or {}).get('engine_config') or {},
      'requester_pays': (node.config or {}).get('spark_requester_pays', false),
      'catalogs': node_catalogs,
      'session_config': {
        'table_type': (node.config or {}).get('table_type', 'hive'),
        'engine_config': (node.config or {}).get('engine_config'),
        'spark_encryption': (node.config or {}).get('spark_encryption', false),
        'spark_cross_account_catalog': opted_in,
        'spark_requester_pays': (node.config or {}).get('spark_requester_pays', false),
      },
      'reads': dbt_athena_cross_account._cross_account_model_reads(node) if (spark and node_catalogs) else [],
      'fallback': (node.config or {}).get('spark_cross_account_fallback'),
      'roles': adapter.get_spark_cross_account_roles(node.fqn, (node.config or {}).get('spark_cross_account_roles'))
               if adapter.get_spark_cross_account_roles is defined else (node.config or {}).get('spark_cross_account_roles'),
      'database': node.database,
    }) -%}
    {%- if node_catalogs -%}
      {%- do readers.append(node.unique_id) -%}
      {%- if node.package_name not in packages -%}{%- do packages.append(node.package_name) -%}{%- endif -%}
      {%- for ref in dbt_athena_cross_account._cross_account_referenced_tables(node) -%}
        {%- set key = (ref.catalog ~ '.' ~ ref.schema ~ '.' ~ ref.table) | lower -%}
        {%- if key not in graph_tables -%}
          {%- do graph_tables.update({key: {'catalog': ref.catalog, 'schema': ref.schema, 'table': ref.table, 'models': [], 'formats': {}}}) -%}
        {%- endif -%}
        {%- do graph_tables[key]['models'].append(node.unique_id) -%}
        {%- do graph_tables[key]['formats'].update({node.unique_id: ref.table_format}) -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if adapter.run_cross_account_doctor is not defined -%}
    {#- without the plugin no check can run: one message, an error when `dbt run` would fail -#}
    {%- set message = "cross_account_doctor: adapter.run_cross_account_doctor is missing: "
          ~ "the dbt-athena-cross-account Python plugin is not installed (or is older than the doctor), "
          ~ "so no check can run"
          ~ ((". " ~ readers | join(', ') ~ " read cross-account catalogs, so `dbt run` fails") if readers else "")
          ~ ". Fix: " ~ dbt_athena_cross_account._cross_account_install_plugin_fix(
              upgrade=adapter.get_spark_cross_account_catalog_map is defined) -%}
    {%- if readers -%}
      {%- do exceptions.raise_compiler_error(message) -%}
    {%- endif -%}
    {%- do log(message, info=true) -%}
    {{- return('') -}}
  {%- endif -%}
  {%- set setup = {
    'packages': packages or [project_name],
    'readers': readers,
    'project_name': project_name,
  } -%}
  {%- set probe = none -%}
  {%- if spark -%}
    {#- the read code the models run, rendered with an empty plan: the probe gives it theirs -#}
    {%- set probe = {
      'read_code': dbt_athena_cross_account._cross_account_get_spark_df({}) | string,
      'timeout': spark_timeout,
      'max_sessions': spark_max_sessions,
    } -%}
  {%- endif -%}
  {#- explicit tables are checked as the graph's models read them (through a role, too) -#}
  {%- set result = adapter.run_cross_account_doctor(
        catalog_args, (graph_tables.values() | list) if from_graph else table_args, models, setup, probe,
        graph_tables.values() | list) -%}
  {%- if from_graph and not graph_tables and not readers -%}
    {%- do log("cross_account_doctor: no Python model opts in with spark_cross_account_catalog: true and reads a non-local catalog; "
               ~ "pass catalogs/tables to check them directly, e.g. --args '{tables: [\"partner_catalog.sales.orders\"]}'", info=true) -%}
  {%- endif -%}
  {%- do log(result.text, info=true) -%}
  {%- if result.fail -%}
    {%- do exceptions.raise_compiler_error(
      "cross_account_doctor: " ~ result.fail ~ " check(s) FAILed (" ~ result.failed | join('; ')
      ~ "). Each FAIL row in the report above says what is wrong and how to fix it."
    ) -%}
  {%- endif -%}
{%- endmacro %}
