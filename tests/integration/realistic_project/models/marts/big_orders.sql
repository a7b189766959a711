{{ config(materialized='view') }}
-- A SQL view downstream of a Python model.
select order_id, name, product, amount
from {{ ref('orders_enriched') }}
where amount >= 50
