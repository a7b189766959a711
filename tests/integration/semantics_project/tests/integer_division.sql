-- Passes on Athena (5 / 2 is 2, integer division); fails where 5 / 2 is 2.5.
select * from (select 5 / 2 as q) where q <> 2
