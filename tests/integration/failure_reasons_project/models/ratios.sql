-- Fails on Athena: DIVISION_BY_ZERO: Division by zero.
select 1 / k as ratio from {{ ref('numbers') }}
