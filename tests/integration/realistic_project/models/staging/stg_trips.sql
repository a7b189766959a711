-- The import-CTE style over a table with timestamp columns, with dbt's cross-database
-- date macros: what real projects write, and what the emulator refused or crashed on.
with trips as (
    select * from {{ source('raw', 'trips') }}
)

select
    trip_id,
    cast(started_at as varchar) as started_text,
    cast(started_at as date) as trip_date,
    date_diff('minute', started_at, ended_at) as minutes,
    {{ dbt.datediff('started_at', 'ended_at', 'hour') }} as hours,
    {{ dbt.dateadd('hour', 36, 'started_at') }} as due_at,
    date_trunc('hour', started_at) as started_hour,
    trip_id / 2 as half_id
from trips
