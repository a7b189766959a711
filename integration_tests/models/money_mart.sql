{#- The money mart: sums, averages, products and a division of decimals per key, in a SQL
    model whose contract (money_mart.yml) declares Athena's result types: sum of
    decimal(18,2) is decimal(38,2), avg decimal(18,2), sum of decimal(18,2) * decimal(18,6)
    decimal(38,8), a decimal(38,2) divided by a decimal(18,6) decimal(38,6), year() bigint. -#}
{{ config(materialized='table', contract={'enforced': true}) }}

with ledger as (
    select * from {{ source('local_finance', 'ledger') }}
),

latest as (
    select coalesce(max_by(rate, d), cast(1 as decimal(18, 6))) as latest_rate from ledger
)

select
    ledger.k,
    sum(ledger.amount) as total,
    avg(ledger.amount) as average,
    sum(ledger.amount * ledger.rate) as converted,
    sum(ledger.amount) / max(latest.latest_rate) as in_latest_rate,
    year(max(ledger.d)) as last_year
from ledger
cross join latest
group by ledger.k
