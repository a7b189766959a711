-- Singular test: the mart's revenue adds up to the orders' amounts.
select r.total, o.total
from (select cast(sum(revenue) as double) as total from {{ ref('revenue_by_country') }}) r
cross join (select sum(amount) as total from {{ ref('orders_enriched') }}) o
where abs(r.total - o.total) > 0.001
