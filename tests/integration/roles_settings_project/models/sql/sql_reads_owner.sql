-- Athena SQL reads as the caller of StartQueryExecution (the dbt identity), which the owner
-- grants; the Spark execution role holds no grant
select order_id, amount from {{ source('sql_owner', 'orders') }}
