-- singular test: the union holds the five events and the archived one
select count(*) as n from {{ ref('events_all') }} having count(*) <> 6
