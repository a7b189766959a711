-- dbt's aggregate macros (listagg with an order, any_value, bool_or) on three rows.
select
    {{ dbt.listagg('cast(x as varchar)', "','", "order by x desc") }} as listagg_desc,
    {{ dbt.any_value('y') }} as any_y,
    {{ dbt.bool_or('x > 2') }} as any_over_2
from (values (1, 'k'), (3, 'k'), (2, 'k')) as t(x, y)
