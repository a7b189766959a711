{{ config(materialized='table') }}
-- A SQL table downstream of Python models.
select
    o.country,
    c.country_name,
    count(*) as orders,
    cast(sum(o.amount) as decimal(12, 2)) as revenue,
    cast(sum(o.amount * c.vat_rate) as double) as vat
from {{ ref('orders_enriched') }} o
join {{ ref('countries_enriched') }} c on c.country = o.country
group by o.country, c.country_name
