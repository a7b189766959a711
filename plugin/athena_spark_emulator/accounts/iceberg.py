"""Real Iceberg tables in any emulated account: pyiceberg over the emulator's Glue and S3.

The emulator's own model of how AWS stores an Iceberg table, independent of the product's
``formats.py``: Iceberg's GlueCatalog (here pyiceberg's, which sends ``CatalogId`` for
``glue.id``) registers the table in the owner's Glue with ``Parameters["table_type"] =
"ICEBERG"`` and ``metadata_location``, and a StorageDescriptor with columns and location but
**no InputFormat/SerDe**; the metadata, manifests and Parquet data files live in S3.

Everything goes through the emulator's endpoint, as a client on AWS would:

* seeding writes **as the owner** (credentials from STS AssumeRole into the owner account),
  so the table lands in that account's Glue and its bucket is that account's;
* Spark reads as the session's execution role (the local account) with ``glue.id=<owner>``:
  its Glue calls carry a header that makes the emulator route ``CatalogId`` to the owner's
  Glue (``responses.route_glue_catalog_id``) as AWS does, whatever ``glue_owner_routing``
  says, and the caller checks the owner's grant first, as on the Hive path.

What is substituted: Spark's Iceberg runtime and Iceberg's Java GlueCatalog cannot run here
(the AWS SDK v2 for Java is not installable); the executor reads the table with pyiceberg
(a real Iceberg implementation: metadata file, manifest list, manifests, data files) and
hands Spark the rows.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from athena_spark_emulator.accounts import glue_types
from athena_spark_emulator.accounts.glue_types import GlueType
from athena_spark_emulator.core.constants import ACCESS_KEY, REGION, SECRET_KEY

#: Header on the Glue requests of Spark's Iceberg catalogs: route CatalogId to its owner.
SPARK_CLIENT_HEADER = "x-athena-emulator-client"
SPARK_CLIENT = "spark-iceberg"
SEED_ROLE = "athena-emulator-seed"

_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)", re.I)


def pyarrow() -> Any:
    """The pyarrow module (imported when used; it ships no type information)."""
    return importlib.import_module("pyarrow")


class IcebergTableNotFound(Exception):
    """No Iceberg table of that name in that account's Glue (or the entry is not Iceberg)."""


def arrow_type(hive_type: Union[str, GlueType]) -> Any:
    """The Arrow type of a seed column's Glue type, as Iceberg stores it: Iceberg has no 8-
    or 16-bit integers (int) and no char/varchar (string); nested types nest."""
    pa = pyarrow()

    kind = glue_types.parse(hive_type) if isinstance(hive_type, str) else hive_type
    if kind.name == "decimal":
        return pa.decimal128(*kind.params)
    if kind.name == "array":
        return pa.list_(arrow_type(kind.children[0]))
    if kind.name == "map":
        return pa.map_(arrow_type(kind.children[0]), arrow_type(kind.children[1]))
    if kind.name == "struct":
        return pa.struct([pa.field(f, arrow_type(t)) for f, t in zip(kind.fields, kind.children)])
    types = {
        "tinyint": pa.int32(),
        "smallint": pa.int32(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "boolean": pa.bool_(),
        "string": pa.string(),
        "varchar": pa.string(),
        "char": pa.string(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("us"),
        "binary": pa.binary(),
    }
    return types[kind.name]


def iceberg_type(hive_type: str) -> Any:
    """The Iceberg type of a Hive/Athena DDL type (``alter table ... add columns``)."""
    from pyiceberg import types as t

    name = hive_type.strip().lower()
    decimal = _DECIMAL.fullmatch(name)
    if decimal:
        return t.DecimalType(int(decimal.group(1)), int(decimal.group(2)))
    types = {
        "int": t.IntegerType(),
        "integer": t.IntegerType(),
        "tinyint": t.IntegerType(),
        "smallint": t.IntegerType(),
        "bigint": t.LongType(),
        "float": t.FloatType(),
        "real": t.FloatType(),
        "double": t.DoubleType(),
        "boolean": t.BooleanType(),
        "string": t.StringType(),
        "varchar": t.StringType(),
        "date": t.DateType(),
        "timestamp": t.TimestampType(),
        "binary": t.BinaryType(),
    }
    if name.startswith(("varchar(", "char(")):
        return t.StringType()
    if name not in types:
        raise ValueError(f"the emulator's Iceberg tables take primitive types; got {hive_type!r}")
    return types[name]


def spark_ddl_type(iceberg_type: Any) -> str:
    """The Spark SQL type of an Iceberg type (as Iceberg's Spark runtime maps it)."""
    from pyiceberg import types as ice

    if isinstance(iceberg_type, ice.ListType):
        return f"array<{spark_ddl_type(iceberg_type.element_type)}>"
    if isinstance(iceberg_type, ice.MapType):
        key, value = spark_ddl_type(iceberg_type.key_type), spark_ddl_type(iceberg_type.value_type)
        return f"map<{key},{value}>"
    if isinstance(iceberg_type, ice.StructType):
        inner = ",".join(
            "`" + f.name.replace("`", "``") + "`:" + spark_ddl_type(f.field_type)
            for f in iceberg_type.fields
        )
        return f"struct<{inner}>"
    text = str(iceberg_type).lower()
    decimal = _DECIMAL.fullmatch(text)
    if decimal:
        return f"decimal({decimal.group(1)},{decimal.group(2)})"
    types = {
        "boolean": "boolean",
        "int": "int",
        "long": "bigint",
        "float": "float",
        "double": "double",
        "date": "date",
        "timestamp": "timestamp",
        "timestamptz": "timestamp",
        "string": "string",
        "uuid": "string",
        "binary": "binary",
    }
    if text not in types:
        raise NotImplementedError(f"the emulator does not read Iceberg's {text} type")
    return types[text]


def spark_value(value: Any, iceberg_type: Any) -> Any:
    """An Arrow (pyiceberg scan) value as Spark's createDataFrame takes it: maps (Arrow's
    lists of key-value pairs) as dicts, nested values converted the same way."""
    from pyiceberg import types as ice

    if value is None:
        return None
    if isinstance(iceberg_type, ice.ListType):
        return [spark_value(v, iceberg_type.element_type) for v in value]
    if isinstance(iceberg_type, ice.MapType):
        pairs = value.items() if isinstance(value, dict) else value
        return {
            spark_value(k, iceberg_type.key_type): spark_value(v, iceberg_type.value_type)
            for k, v in pairs
        }
    if isinstance(iceberg_type, ice.StructType):
        return tuple(spark_value(value.get(f.name), f.field_type) for f in iceberg_type.fields)
    return value


def credentials_of(endpoint_url: str, account: str) -> Tuple[str, str, Optional[str]]:
    """Credentials that act as ``account``: STS AssumeRole into a role of that account."""
    import boto3

    sts = boto3.client(
        "sts",
        region_name=REGION,
        endpoint_url=endpoint_url,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )
    answer = sts.assume_role(
        RoleArn=f"arn:aws:iam::{account}:role/{SEED_ROLE}", RoleSessionName="athena-emulator"
    )["Credentials"]
    return answer["AccessKeyId"], answer["SecretAccessKey"], answer["SessionToken"]


def _mark_spark_client(**kwargs: Any) -> None:
    kwargs["request"].headers[SPARK_CLIENT_HEADER] = SPARK_CLIENT


@functools.cache
def _shared_loader() -> Any:
    """One botocore data loader for the botocore sessions of :func:`glue_catalog` (each has
    its own event hooks): a new session would read and decode Glue's and S3's service models
    again, about 220 of the 340 ms of CPU that each catalog costs."""
    from botocore import loaders

    return loaders.create_loader()


def glue_catalog(
    endpoint_url: str,
    glue_id: str,
    credentials: Tuple[str, str, Optional[str]] = (ACCESS_KEY, SECRET_KEY, None),
    spark_client: bool = False,
) -> Any:
    """pyiceberg's GlueCatalog on the emulator's Glue and S3, with ``glue.id=glue_id``."""
    import botocore.session
    from pyiceberg.catalog.glue import GlueCatalog

    key, secret, token = credentials
    session = botocore.session.get_session()
    session.register_component("data_loader", _shared_loader())
    if spark_client:
        session.register("before-sign.glue", _mark_spark_client)
    properties: Dict[str, Any] = {
        "glue.id": glue_id,
        "glue.endpoint": endpoint_url,
        "glue.region": REGION,
        "glue.access-key-id": key,
        "glue.secret-access-key": secret,
        "s3.endpoint": endpoint_url,
        "s3.region": REGION,
        "s3.access-key-id": key,
        "s3.secret-access-key": secret,
        "botocore_session": session,
    }
    if token:
        properties["glue.session-token"] = properties["s3.session-token"] = token
    return GlueCatalog(f"emulator_{glue_id}", **properties)


def _ensure_bucket(
    endpoint_url: str, location: str, credentials: Tuple[str, str, Optional[str]]
) -> None:
    import boto3

    match = re.match(r"s3[an]?://([^/]+)", location)
    if not match:
        raise ValueError(f"an Iceberg table's location is an s3:// URI; got {location!r}")
    key, secret, token = credentials
    s3 = boto3.client(
        "s3",
        region_name=REGION,
        endpoint_url=endpoint_url,
        aws_access_key_id=key,
        aws_secret_access_key=secret,
        aws_session_token=token,
    )
    with contextlib.suppress(
        s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists
    ):
        where: Any = {"LocationConstraint": REGION}
        s3.create_bucket(Bucket=match.group(1), CreateBucketConfiguration=where)


def create_table(
    endpoint_url: str,
    account: str,
    database: str,
    table: str,
    columns: Sequence[Tuple[str, Union[str, GlueType]]],
    rows: Iterable[Union[Sequence[Any], Mapping[str, Any]]],
    location: str,
) -> None:
    """Write a real Iceberg table in ``account``'s Glue and S3, as that account, with rows
    (values checked against and converted to their column's Glue type, ``glue_types``).

    The Glue database must exist; a Glue entry of the same name must have been dropped.
    """
    pa = pyarrow()

    typed = [(name, glue_types.parse(k) if isinstance(k, str) else k) for name, k in columns]
    values = glue_types.convert_rows(typed, rows)
    credentials = credentials_of(endpoint_url, account)
    _ensure_bucket(endpoint_url, location, credentials)
    schema = pa.schema([pa.field(name, arrow_type(kind)) for name, kind in typed])
    names = [name for name, _ in typed]
    data = pa.Table.from_pylist([dict(zip(names, row)) for row in values], schema=schema)
    catalog = glue_catalog(endpoint_url, account, credentials)
    created = catalog.create_table((database, table), schema=schema, location=location.rstrip("/"))
    if data.num_rows:
        created.append(data)


_TRANSFORM = re.compile(
    r"\s*(?:(?P<time>year|month|day|hour|identity)s?\(\s*(?P<tcol>[^()]+?)\s*\)"
    r"|(?P<fn>bucket|truncate)\(\s*(?P<n>\d+)\s*,\s*(?P<col>[^()]+?)\s*\)"
    r"|(?P<fn2>bucket|truncate)\(\s*(?P<col2>[^(),]+?)\s*,\s*(?P<n2>\d+)\s*\)"
    r"|(?P<identity>[^(),]+?))\s*",
    re.I,
)


class PartitioningError(ValueError):
    """A partition transform the emulator (and Iceberg) does not know."""


def partition_fields(specs: Sequence[str]) -> List[Tuple[str, Any]]:
    """``(source column, pyiceberg transform)`` of Athena's ``partitioning`` entries
    (``col``, ``year|month|day|hour(col)``, ``bucket(n, col)``, ``truncate(w, col)``) or
    Spark's ``partitioned by`` ones (``days(col)``, ``bucket(n, col)``)."""
    from pyiceberg import transforms as t

    fields = []
    for spec in specs:
        match = _TRANSFORM.fullmatch(str(spec))
        if match is None:
            raise PartitioningError(f"unknown partition transform {spec!r}")
        unquote = lambda c: c.strip().strip('`"').lower()  # noqa: E731
        if match.group("time"):
            kinds = {"year": t.YearTransform, "month": t.MonthTransform, "day": t.DayTransform,
                     "hour": t.HourTransform, "identity": t.IdentityTransform}  # fmt: skip
            fields.append((unquote(match.group("tcol")), kinds[match.group("time").lower()]()))
        elif match.group("fn") or match.group("fn2"):
            fn = (match.group("fn") or match.group("fn2")).lower()
            n = int(match.group("n") or match.group("n2"))
            column = unquote(match.group("col") or match.group("col2"))
            fields.append(
                (column, t.BucketTransform(n) if fn == "bucket" else t.TruncateTransform(n))
            )
        else:
            name = match.group("identity")
            if "(" in name:
                raise PartitioningError(f"unknown partition transform {spec!r}")
            fields.append((unquote(name), t.IdentityTransform()))
    return fields


def partition_count(table: Any, data: Any) -> int:
    """How many partitions of ``table``'s spec the Arrow table ``data`` writes."""
    spec = table.spec()
    if not spec.fields:
        return 1 if data.num_rows else 0
    schema = table.schema()
    columns = []
    for field_ in spec.fields:
        source = schema.find_field(field_.source_id)
        values = data.column(source.name)
        transform = field_.transform
        if type(transform).__name__ != "IdentityTransform":
            values = transform.pyarrow_transform(source.field_type)(values)
        columns.append(values.to_pylist())
    return len(set(zip(*columns)))


def write_table(
    endpoint_url: str,
    account: str,
    database: str,
    table: str,
    location: str,
    data: Any,
    partitioning: Sequence[str] = (),
    max_partitions: Optional[int] = None,
) -> None:
    """Create ``database.table`` in ``account`` as an Iceberg table holding ``data`` (an
    Arrow table), partitioned by ``partitioning`` (:func:`partition_fields`): what ``CREATE
    TABLE ... USING iceberg AS SELECT`` does in a session whose ``spark_catalog`` is
    Iceberg's SparkSessionCatalog over Glue, and Athena's Iceberg CTAS. With
    ``max_partitions``, data that writes more partitions raises :class:`TooManyPartitions`
    before anything is created."""
    fields = partition_fields(partitioning)
    names = {f.name.lower() for f in data.schema}
    for column, _ in fields:
        if column not in names:
            raise PartitioningError(f"partition column {column!r} is not a column: {sorted(names)}")
    credentials = credentials_of(endpoint_url, account)
    _ensure_bucket(endpoint_url, location, credentials)
    catalog = glue_catalog(endpoint_url, account, credentials)
    created = catalog.create_table(
        (database, table), schema=data.schema, location=location.rstrip("/")
    )
    if fields:
        with created.update_spec() as update:
            for column, transform in fields:
                update.add_field(column, transform)
        created = catalog.load_table((database, table))
        if max_partitions is not None:
            count = partition_count(created, data)
            if count > max_partitions:
                catalog.drop_table((database, table))  # as a failed CTAS leaves no table
                raise TooManyPartitions(count)
    if data.num_rows:
        created.append(data)


class TooManyPartitions(Exception):
    """A write into more partitions than Athena's 100 open writers."""

    def __init__(self, count: int) -> None:
        super().__init__(count)
        self.count = count


def load_table(
    endpoint_url: str, glue_id: str, database: str, table: str, as_account: Optional[str] = None
) -> Any:
    """pyiceberg's table ``database.table`` of ``glue_id``'s Glue, read as the execution role
    (or as ``as_account``). Raises IcebergTableNotFound."""
    from pyiceberg.exceptions import (
        NoSuchIcebergTableError,
        NoSuchPropertyException,
        NoSuchTableError,
    )

    credentials = credentials_of(endpoint_url, as_account) if as_account else None
    catalog = glue_catalog(
        endpoint_url,
        glue_id,
        credentials or (ACCESS_KEY, SECRET_KEY, None),
        spark_client=as_account is None,
    )
    try:
        return catalog.load_table((database, table))
    # a Glue table without table_type (a Hive table): Iceberg's GlueCatalog raises
    # NoSuchIcebergTableException ("Input Glue table is not an iceberg table"), which Spark
    # reports as a table that is not found
    except (NoSuchTableError, NoSuchIcebergTableError, NoSuchPropertyException) as exc:
        raise IcebergTableNotFound(str(exc)) from None


def spark_frame(spark: Any, iceberg_table: Any) -> Any:
    """A Spark DataFrame of the table's current snapshot (pyiceberg scan -> rows)."""
    fields = iceberg_table.schema().fields
    ddl = ", ".join(
        "`" + f.name.replace("`", "``") + "` " + spark_ddl_type(f.field_type) for f in fields
    )
    data = iceberg_table.scan().to_arrow()
    rows: List[Tuple[Any, ...]] = [
        tuple(spark_value(r.get(f.name), f.field_type) for f in fields) for r in data.to_pylist()
    ]
    return spark.createDataFrame(rows, ddl)


def table_properties(iceberg_table: Any) -> Dict[str, str]:
    """What ``SHOW TBLPROPERTIES`` lists for an Iceberg table (its Iceberg properties)."""
    properties = {str(k): str(v) for k, v in (iceberg_table.properties or {}).items()}
    properties.setdefault("format", "iceberg/parquet")
    properties.setdefault("format-version", str(iceberg_table.format_version))
    return properties
