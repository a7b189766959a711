-- In prod this is partner_catalog.sales.orders (the profile's prod target); in dev it would
-- be awsdatacatalog.sales.orders, the LOCAL table. It never runs in these tests: slim CI
-- defers to the prod state.
{{ config(materialized='table', alias='orders') }}
select 1 as order_id, 1 as customer_id, 1.0 as amount
