-- 150 daily partitions in one CTAS: more than Athena's 100 open writers, so dbt-athena
-- retries it in batches (create_table_as_with_partitions).
{{ config(materialized='table', partitioned_by=['day']) }}
select n as id, date_add('day', n, date '2024-01-01') as day
from unnest(sequence(0, 149)) as t (n)
