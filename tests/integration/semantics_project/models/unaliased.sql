-- A CTAS with an unaliased expression: Athena names the column _col0.
select 5 / 2, 'x' as label
