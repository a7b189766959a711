-- A partitioned Iceberg table (hidden partitioning: day of event_ts, 4 buckets of
-- customer_id), merged into on the second run (var batch: 2): event 2 changed, 4 new.
{{ config(
    materialized='incremental',
    table_type='iceberg',
    incremental_strategy='merge',
    unique_key='event_id',
    partitioned_by=['day(event_ts)', 'bucket(4, customer_id)'],
) }}
{% if var('batch', 1) == 1 %}
select * from (values
    (1, 10, 'view', timestamp '2024-03-01 10:00:00'),
    (2, 20, 'view', timestamp '2024-03-01 11:00:00'),
    (3, 10, 'buy', timestamp '2024-03-02 09:30:00')
) as t (event_id, customer_id, kind, event_ts)
{% else %}
select * from (values
    (2, 20, 'buy', timestamp '2024-03-01 11:00:00'),
    (4, 30, 'view', timestamp '2024-03-03 08:00:00')
) as t (event_id, customer_id, kind, event_ts)
{% endif %}
