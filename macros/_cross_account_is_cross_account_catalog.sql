{#-
  _cross_account_is_cross_account_catalog: true for a catalog read through Spark's
  `<account>/<db>` form: not blank, not the local awsdatacatalog, not an S3 Tables catalog
  (s3tablescatalog, s3tablescatalog/<bucket>); case and surrounding whitespace ignored.
  The Jinja twin of the plugin's names.is_cross_account_catalog, for the paths that must
  work without the plugin (the doctor and the setup check say the plugin is missing).
-#}
{% macro _cross_account_is_cross_account_catalog(name) -%}
  {%- set key = (name or '') | string | trim | lower -%}
  {{- return(key != '' and key != 'awsdatacatalog'
             and key != 's3tablescatalog' and not key.startswith('s3tablescatalog/')) -}}
{%- endmacro %}
