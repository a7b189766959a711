"""The accounts' data: what each emulated AWS account holds and who may read it. Glue
catalogs and their grants, routed by ``CatalogId`` to the owner (``catalog``), Glue's column
types (``glue_types``), Hive partitions, Iceberg tables (``iceberg``, through pyiceberg),
IAM roles and STS's trust checks (``sts_roles``), seeding from YAML or a dict (``seed``,
``seed_schema.json``) and ``--data-dir`` persistence (``persistence``)."""
