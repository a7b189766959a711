{{ config(materialized='view') }}
-- A SQL view on the staging table.
select customer_id, name, country
from {{ ref('stg_customers') }}
where country in ('DE', 'FR')
