-- dbt_utils.union_relations: two tables whose columns differ (the archive has no category)
{{ dbt_utils.union_relations(relations=[source('raw', 'events'), source('raw', 'events_archive')]) }}
