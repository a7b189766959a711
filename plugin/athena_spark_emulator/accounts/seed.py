"""Seed the emulator from a YAML/JSON file or a dict: data catalogs, accounts, grants, roles, tables.

Format (``integration_tests/fixtures/two_accounts.yml`` is a full example; the JSON Schema
is ``seed_schema.json`` next to this module)::

    data_catalogs:                     # Athena data catalogs of the local account
      - name: partner_catalog
        type: GLUE                     # GLUE | LAMBDA | HIVE | FEDERATED
        parameters: {catalog-id: "999999999999"}
    accounts:
      "999999999999":                  # quote account ids: YAML would read a number
        grants: ["123456789012"]       # who may read this account's Glue: account ids, or
                                       # role/user ARNs (e.g. only the dbt role, not the
                                       # Spark execution role)
        roles:                         # IAM roles of this account: who may assume each
          dbt-reader:                  #   (STS AssumeRole, with external_id when given);
            trusts: ["arn:aws:iam::123456789012:role/AthenaSparkExecutionRole"]
            external_id: partner-42    #   a role reads its own account's Glue and S3
        catalog_encryption:            # its Glue catalog's encryption at rest (default:
          mode: SSE-KMS                #   DISABLED); key: alias/aws/glue is the AWS
          key: alias/aws/glue          #   managed key, which other accounts cannot read
        databases:
          sales:                       # Glue database of that account
            orders:                    # table: Glue column types, rows in column order
              columns: {order_id: int, customer: string, amount: 'decimal(10,2)'}
              rows:                    # each value must fit its column's type (glue_types)
                - [1, "acme", 10.5]
            shipments:
              format: iceberg          # a real Iceberg table (default: hive)
              columns: {order_id: int, carrier: string}
              rows: [[1, "DHL"]]

Hive tables are registered in that account's Glue (moto), their rows written as JSON lines
under the emulator's local warehouse and mirrored into moto's S3, at ``location`` if given
(an ``s3://`` URI) or at ``s3://emulator-<account>-<region>/warehouse/<db>/<table>/``.
Iceberg tables are written with pyiceberg, as that account, through the emulator's Glue
(``glue.id``) and S3: Glue then holds ``table_type=ICEBERG`` and ``metadata_location``, as
on AWS, and the files live in the emulated S3 (default location
``s3://emulator-<account>-<region>/iceberg/<db>/<table>``). Seeding needs no Spark. A seed that breaks the schema raises :class:`SeedError` naming the
file, the line and the key at fault; so do (one line per problem) an invalid column type, a
value that does not fit its column's type, a key given twice in one mapping, and names that
collide once lower-cased as Glue stores them. The Python API is the same:
``emulator.register_data_catalog(...)``, ``emulator.catalog.grant(owner, grantee)``,
``emulator.catalog.create_table(...)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, Union

from athena_spark_emulator.core.errors import EmulatorError

SCHEMA_PATH = Path(__file__).with_name("seed_schema.json")
Spec = Union[str, Path, Dict[str, Any]]


class SeedError(EmulatorError, ValueError):
    """A seed file or dict that does not follow the format; the message says where."""


class Seedable(Protocol):  # what apply() needs: an Emulator, without importing it
    catalog: Any

    def register_data_catalog(
        self, name: str, catalog_type: str = "GLUE", parameters: Optional[Dict[str, str]] = None
    ) -> None: ...


def schema() -> Dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


class SeedDocument:
    """A parsed seed with the line of every key and item (for error messages)."""

    def __init__(self, data: Dict[str, Any], source: str, node: Any = None) -> None:
        self.data = data
        self.source = source
        self._node = node  # PyYAML's composed node tree, when read from text

    @classmethod
    def from_text(cls, text: str, source: str) -> SeedDocument:
        import yaml  # JSON is read the same way: PyYAML parses it and keeps the lines

        loader = _loader_class()(text)
        try:
            node = loader.get_single_node()
            duplicates = _duplicate_keys(node, [], source)
            if duplicates:
                raise SeedError("\n".join(duplicates))
            data = loader.construct_document(node) if node is not None else {}
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"{source}:{mark.line + 1}" if mark is not None else source
            problem = getattr(exc, "problem", None) or str(exc)
            raise SeedError(f"{where}: not valid YAML/JSON: {problem}") from None
        finally:
            loader.dispose()
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise SeedError(f"{source}:1: a seed is a mapping with data_catalogs and accounts")
        return cls(data, source, node)

    def line_of(self, path: Sequence[Any]) -> Optional[int]:
        """1-based line of the key (or item) at ``path``; the nearest parent if unknown."""
        node, line = self._node, None
        for step in path:
            if node is None:
                break
            line, node = self._child(node, step)
        if node is not None and line is None:
            line = node.start_mark.line + 1
        return line

    @staticmethod
    def _child(node: Any, step: Any) -> Tuple[Optional[int], Any]:
        import yaml

        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if str(key.value) == str(step):
                    return key.start_mark.line + 1, value
        if isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            item = node.value[step]
            return item.start_mark.line + 1, item
        return node.start_mark.line + 1, None

    def where(self, path: Sequence[Any]) -> str:
        line = self.line_of(path)
        key = ".".join(str(p) for p in path) or "(top level)"
        location = f"{self.source}:{line}" if line is not None else self.source
        return f"{location}: {key}"


def _loader_class() -> Any:
    """PyYAML's SafeLoader, except that a timestamp-looking scalar that is no calendar date
    (``2024-13-45``) stays a string, for the column check to name, instead of a ValueError."""
    import yaml

    class SeedLoader(yaml.SafeLoader):
        def construct_yaml_timestamp(self, node: Any) -> Any:
            try:
                return super().construct_yaml_timestamp(node)
            except ValueError:
                return self.construct_scalar(node)

    SeedLoader.add_constructor("tag:yaml.org,2002:timestamp", SeedLoader.construct_yaml_timestamp)
    return SeedLoader


def _duplicate_keys(node: Any, path: List[Any], source: str, seen_nodes: Any = None) -> List[str]:
    """One line per key that appears twice in one mapping (YAML would keep the last)."""
    import yaml

    seen_nodes = set() if seen_nodes is None else seen_nodes
    if id(node) in seen_nodes:  # an alias of a node already checked
        return []
    seen_nodes.add(id(node))
    problems: List[str] = []
    if isinstance(node, yaml.MappingNode):
        seen: Dict[Tuple[str, str], int] = {}
        for key, value in node.value:
            line = key.start_mark.line + 1
            if isinstance(key, yaml.ScalarNode):
                if (key.tag, key.value) in seen:
                    where = ".".join(str(p) for p in [*path, key.value])
                    problems.append(
                        f"{source}:{line}: {where}: duplicate key {key.value!r} (first at line "
                        f"{seen[(key.tag, key.value)]}); YAML would keep only the last: remove "
                        "or rename one"
                    )
                seen.setdefault((key.tag, key.value), line)
            problems.extend(_duplicate_keys(value, [*path, key.value], source, seen_nodes))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems.extend(_duplicate_keys(item, [*path, i], source, seen_nodes))
    return problems


def load(path: Union[str, Path]) -> SeedDocument:
    """Read and validate a seed file (YAML or JSON)."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SeedError(f"{source}: cannot read the seed file ({exc.strerror})") from None
    document = SeedDocument.from_text(text, source)
    validate(document)
    return document


ICEBERG_PARAMETERS = "parameters apply to hive tables only (an Iceberg table's Glue parameters are the ones Iceberg writes): remove them, or the format: iceberg"


def _iceberg_with_parameters(error: Any) -> bool:
    return error.validator == "not" and error.validator_value == {"required": ["parameters"]}


def _error_path(error: Any) -> List[Any]:
    """The path to point at: the unexpected key itself for additionalProperties."""
    path = list(error.absolute_path)
    if _iceberg_with_parameters(error):
        path.append("parameters")
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set((error.schema.get("properties") or {}).keys())
        extra = [k for k in error.instance if k not in allowed]
        if extra:
            path.append(extra[0])
    if "propertyNames" in error.relative_schema_path:
        path.append(error.instance)
    return path


FLOW_COMMA = (
    " (in a flow mapping {...} a comma ends the value: quote a type that has one, e.g. "
    "{amount: 'decimal(10,2)'})"
)


def _flow_comma(error: Any) -> bool:
    """``columns: {a: decimal(10,2)}``: YAML reads a column ``decimal(10`` and a key ``2)``."""
    path = list(error.absolute_path)
    return (
        error.validator == "type"
        and error.instance is None
        and len(path) >= 2
        and path[-2] == "columns"
        and str(path[-1]).rstrip().endswith(")")
    )


def _message(error: Any) -> str:
    if _iceberg_with_parameters(error):
        return ICEBERG_PARAMETERS
    if _flow_comma(error):
        return f"{error.message}{FLOW_COMMA}"
    if "propertyNames" in error.relative_schema_path:
        return f"{error.message} (account ids are 12-digit strings: quote them in YAML)"
    if error.validator == "pattern" and error.schema.get("pattern") == "^[0-9]{12}$":
        return f"{error.instance!r} is not a 12-digit account id (quote it in YAML)"
    if error.validator == "pattern" and str(error.schema.get("pattern", "")).startswith(
        "^([0-9]{12}|arn"
    ):
        return (
            f"{error.instance!r} is not a 12-digit account id (quote it in YAML) "
            "or a role or user ARN (arn:aws:iam::<account>:role/<name>)"
        )
    return error.message


def validate(document: SeedDocument) -> None:
    """Check ``document`` against seed_schema.json, then rows against their columns."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema())
    errors = list(validator.iter_errors(document.data))
    if errors:
        # the most specific place first: a misspelt key beats "'columns' is required"
        error = max(
            errors, key=lambda e: (len(_error_path(e)), e.validator == "additionalProperties")
        )
        path = _error_path(error)
        more = (
            f" ({len(errors) - 1} more problem(s) after fixing this one)" if len(errors) > 1 else ""
        )
        raise SeedError(f"{document.where(path)}: {_message(error)}{more}")
    problems = _check_names(document)
    for account, account_spec in (document.data.get("accounts") or {}).items():
        for database, tables in ((account_spec or {}).get("databases") or {}).items():
            for table, table_spec in (tables or {}).items():
                path = ["accounts", account, "databases", database, table]
                problems.extend(_check_rows(document, path, table_spec))
                problems.extend(_check_types_and_values(document, path, table_spec))
    if problems:
        raise SeedError(_problem_lines(problems))


MAX_PROBLEMS = 20


def _problem_lines(problems: List[str]) -> str:
    """One line per problem (the first MAX_PROBLEMS of them)."""
    shown = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        shown.append(f"... and {len(problems) - MAX_PROBLEMS} more problem(s)")
    return "\n".join(shown)


def _check_rows(document: SeedDocument, path: List[Any], table_spec: Dict[str, Any]) -> List[str]:
    columns = list(table_spec["columns"])
    problems: List[str] = []
    for i, row in enumerate(table_spec.get("rows") or []):
        if isinstance(row, list) and len(row) != len(columns):
            problems.append(
                f"{document.where([*path, 'rows', i])}: row has {len(row)} value(s) but the "
                f"table has {len(columns)} column(s) ({', '.join(columns)})"
            )
        if isinstance(row, dict):
            unknown = sorted(set(row) - set(columns))
            if unknown:
                problems.append(
                    f"{document.where([*path, 'rows', i])}: unknown column(s) {unknown}; "
                    f"the table has {', '.join(columns)}"
                )
    return problems


# ---- names and column types -------------------------------------------------------------------
def _collisions(
    document: SeedDocument, path: List[Any], names: List[Any], what: str, step: Any = None
) -> List[str]:
    """Names of one level that are one name once lower-cased (as Glue and Athena store
    them); ``step(i, name)`` is the path step of each (default: the name)."""
    problems: List[str] = []
    first: Dict[str, Any] = {}
    for i, name in enumerate(names):
        lowered = str(name).lower()
        at = step(i, name) if step else name
        if lowered in first:
            other, other_at = first[lowered]
            line = document.line_of([*path, other_at])
            problems.append(
                f"{document.where([*path, at])}: {what} {str(name)!r} and {str(other)!r} (line "
                f"{line}) are one {what} once lower-cased, as Glue and Athena store names: "
                "rename or merge one"
            )
        else:
            first[lowered] = (name, at)
    return problems


def _check_names(document: SeedDocument) -> List[str]:
    data = document.data
    catalogs = [c.get("name") for c in data.get("data_catalogs") or []]
    problems = _collisions(document, ["data_catalogs"], catalogs, "data catalog", lambda i, _: i)
    for account, account_spec in (data.get("accounts") or {}).items():
        databases = (account_spec or {}).get("databases") or {}
        base = ["accounts", account, "databases"]
        problems.extend(_collisions(document, base, list(databases), "database"))
        for database, tables in databases.items():
            tables = tables or {}
            problems.extend(_collisions(document, [*base, database], list(tables), "table"))
            for table, spec in tables.items():
                where = [*base, database, table, "columns"]
                problems.extend(_collisions(document, where, list(spec["columns"]), "column"))
    return problems


def _check_types_and_values(
    document: SeedDocument, path: List[Any], table_spec: Dict[str, Any]
) -> List[str]:
    """Every column's type is a Glue type, and every row's value fits its column's type."""
    from athena_spark_emulator.accounts import glue_types

    problems: List[str] = []
    types: Dict[str, Any] = {}
    hive = table_spec.get("format", "hive") == "hive"
    for column, text in table_spec["columns"].items():
        try:
            types[column] = glue_types.parse(text)
        except glue_types.GlueTypeError as exc:
            problems.append(f"{document.where([*path, 'columns', column])}: {exc}")
    names = list(table_spec["columns"])
    for i, row in enumerate(table_spec.get("rows") or []):
        items = (
            list(zip(range(len(names)), names, row))
            if isinstance(row, list)
            else [(name, name, row[name]) for name in names if name in row]
        )
        for step, column, value in items:
            if column not in types:
                continue
            try:
                converted = glue_types.convert(value, types[column])
                lost = None if hive else glue_types.iceberg_lost_null(converted, types[column])
                if lost is not None:
                    raise lost
            except glue_types.ValueMismatch as exc:
                line = document.line_of([*path, "rows", i, step, *exc.path])
                key = ".".join(str(p) for p in [*path, "rows", i, column, *exc.path])
                location = f"{document.source}:{line}" if line is not None else document.source
                problems.append(f"{location}: {key}: {exc.message}")
    return problems


def apply(emulator: Seedable, spec: Spec) -> Dict[str, Any]:
    """Validate ``spec`` (a path or a dict) and apply it to a started emulator; returns the dict."""
    if isinstance(spec, dict):
        document = SeedDocument(spec, "seed")
        validate(document)
    else:
        document = load(spec)
    data = document.data
    for entry in data.get("data_catalogs") or []:
        parameters = entry.get("parameters")
        emulator.register_data_catalog(
            entry["name"],
            entry.get("type", "GLUE"),
            {str(k): str(v) for k, v in parameters.items()} if parameters is not None else None,
        )
    for account, account_spec in (data.get("accounts") or {}).items():
        account_spec = account_spec or {}
        for grantee in account_spec.get("grants") or []:
            emulator.catalog.grant(account, grantee)
        for name, role in (account_spec.get("roles") or {}).items():
            emulator.catalog.roles.add(
                account, str(name), role.get("trusts") or [], role.get("external_id")
            )
        encryption = account_spec.get("catalog_encryption")
        if encryption:
            emulator.catalog.set_catalog_encryption(
                account, encryption["mode"], encryption.get("key")
            )
        for database, tables in (account_spec.get("databases") or {}).items():
            emulator.catalog.ensure_database(account, str(database))
            for table, table_spec in (tables or {}).items():
                path = ["accounts", account, "databases", database, table]
                _create_table(emulator, document, path, table_spec)
    return data


def _create_table(
    emulator: Seedable, document: SeedDocument, path: List[Any], table_spec: Dict[str, Any]
) -> None:
    """One seed table; a failure is a SeedError naming the table (no traceback)."""
    account, database, table = str(path[1]), str(path[3]), str(path[4])
    try:
        emulator.catalog.create_table(
            account,
            database,
            table,
            table_spec["columns"],
            table_spec.get("rows") or [],
            location=table_spec.get("location"),
            table_format=table_spec.get("format", "hive"),
            parameters=table_spec.get("parameters"),
        )
    except (ValueError, TypeError, NotImplementedError) as exc:
        raise SeedError(f"{document.where(path)}: seeding the table failed: {exc}") from exc
