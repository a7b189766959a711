-- Two rows, one of them 0: a table, so the division below runs in Spark's job.
select 1 as k union all select 0 as k
