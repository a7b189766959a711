-- The import-CTE style over a Hive table with timestamp and decimal columns, through
-- dbt-utils (surrogate key over a timestamp, star), dbt-date (time zone conversion) and
-- dbt's cross-database macros.
with events as (
    select * from {{ source('raw', 'events') }}
)

select
    {{ dbt_utils.generate_surrogate_key(['event_id', 'event_ts']) }} as event_key,
    {{ dbt_utils.star(from=source('raw', 'events'), except=['amount']) }},
    amount,
    {{ dbt_date.convert_timezone('event_ts', 'Europe/Berlin', 'UTC') }} as event_ts_berlin,
    {{ dbt.date_trunc('day', 'event_ts') }} as event_day,
    {{ dbt.safe_cast('amount', api.Column.translate_type('string')) }} as amount_text
from events
