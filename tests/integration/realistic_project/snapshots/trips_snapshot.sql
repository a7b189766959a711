{% snapshot trips_snapshot %}
{{ config(target_schema=target.schema, unique_key='trip_id', strategy='timestamp', updated_at='updated_at') }}
-- dbt's snapshot SQL casts and compares the timestamp columns
select * from {{ source('raw', 'trips') }}
{% endsnapshot %}
