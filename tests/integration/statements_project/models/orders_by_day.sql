-- dbt-athena's default incremental strategy on a partitioned Hive table. The second run
-- (var batch: 2) rewrites the 2024-01-02 partition: order 3 changed, order 4 gone, 5 new.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partitioned_by=['order_date'],
) }}
{% if var('batch', 1) == 1 %}
select * from (values
    (1, 10.0, date '2024-01-01'),
    (2, 20.0, date '2024-01-01'),
    (3, 30.0, date '2024-01-02'),
    (4, 40.0, date '2024-01-02')
) as t (order_id, amount, order_date)
{% else %}
select * from (values
    (3, 33.0, date '2024-01-02'),
    (5, 50.0, date '2024-01-02')
) as t (order_id, amount, order_date)
{% endif %}
