-- A SQL staging table (Athena CTAS), read by Python models.
select
    customer_id,
    upper(substr(name, 1, 1)) || substr(name, 2) as name,
    country
from {{ source('raw', 'customers') }}
