-- Aggregates per Berlin day, pivoted by category with dbt_utils.pivot (whose categories come
-- from dbt_utils.get_column_values, a query run while compiling).
with staged as (
    select * from {{ ref('stg_events') }}
)

select
    cast(event_ts_berlin as date) as berlin_day,
    count(*) as events,
    sum(amount) as total,
    {{ dbt_utils.safe_divide('sum(amount)', 'count(*)') }} as mean_amount,
    {{ dbt_utils.pivot('category', dbt_utils.get_column_values(ref('stg_events'), 'category', order_by='category')) }}
from staged
{{ dbt_utils.group_by(1) }}
