{% snapshot events_snapshot %}
{{ config(target_schema=target.schema, unique_key='event_id', strategy='timestamp', updated_at='event_ts') }}
select * from {{ source('raw', 'events') }}
{% endsnapshot %}
