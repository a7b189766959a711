"""Map functions and operators (Trino's ``functions/map.md``): map, map_entries,
map_from_entries, map_keys/map_values, map_concat, multimap_from_entries,
split_to_multimap (listed on Trino's string page, a map builder like multimap_from_entries)
and the lambda ones. The subscript operator is array.py's. Examples: ``tests/conformance/examples/map.yml``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.comparison import empty_map, known_type, unwrapped
from athena_spark_emulator.sql.functions.conversion_types import type_name
from athena_spark_emulator.sql.functions.string import split_entries
from athena_spark_emulator.sql.functions.table import Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import is_text, literal_text, spark, type_of, typed
from athena_spark_emulator.sql.udfs import ERROR_END, ERROR_MARK, udf, udf_call

T = exp.DataType.Type

_cls: Any
_name: str


# verified as sqlglot renders them (Spark's function has Trino's semantics)
same(exp.MapKeys, "map_keys")


@rewrites(exp.Map, "map")
def map_(node: exp.Expression) -> exp.Expression:
    """map(keys, values) as Spark's; keys that are arrays holding a NULL fail as Trino's
    MapConstructor does ('map key cannot be indeterminate: [null]',
    INVALID_FUNCTION_ARGUMENT, TestMapOperators): Spark takes them. Not checked inside
    VALUES, where Spark runs no lambda."""
    keys, values = node.args.get("keys"), node.args.get("values")
    if not (isinstance(keys, exp.Expression) and isinstance(values, exp.Expression)):
        return node
    kind = type_of(keys)
    inner = kind.expressions[0] if kind is not None and kind.expressions else None
    if kind is None or kind.this != T.ARRAY or not isinstance(inner, exp.DataType):
        return node
    if inner.this != T.ARRAY or node.find_ancestor(exp.Values) is not None:
        return node  # Spark evaluates no lambda inside VALUES (INVALID_INLINE_TABLE): unchecked
    text = (
        "CASE WHEN exists(_0, k -> exists(k, e -> e IS NULL)) THEN raise_error(concat("
        f"'{ERROR_MARK}INVALID_FUNCTION_ARGUMENT: map key cannot be indeterminate: [', "
        "array_join(filter(_0, k -> exists(k, e -> e IS NULL))[0], ', ', 'null'), "
        f"']{ERROR_END}')) ELSE map_from_arrays(_0, _1) END"
    )
    out = spark(text, keys, values)
    name = type_name(node)  # the constructor's typeof, which its Spark form cannot tell
    if name is not None:
        out.meta["athena_typeof"] = name
    result = type_of(node)
    return typed(out, result) if result is not None else out


for _name in (
    "transform_keys",
    "transform_values",
    "map_filter",
    "map_zip_with",
    "map_values",
):
    same(_name, _name)


def _is_null(node: exp.Expression) -> bool:
    return isinstance(unwrapped(node), exp.Null)


def _no_entries(node: exp.Expression) -> Optional[exp.Expression]:
    """map_from_entries / multimap_from_entries of a NULL or an empty array literal: NULL,
    or the empty map (Trino's TestMapOperators:1616/1619/1695/1698). Spark's functions
    take neither (a NULL or ``array()`` has no element type there). None: another
    argument."""
    [entries] = node.expressions or [node.this]
    if _is_null(entries):
        return exp.Null()
    if isinstance(unwrapped(entries), exp.Array) and not unwrapped(entries).expressions:
        return spark("map()")
    return None


@rewrites(exp.MapFromEntries, "map_from_entries")
def map_from_entries(node: exp.Expression) -> exp.Expression:
    """Trino's map_from_entries (MapFromEntriesFunction) fails 'map entry cannot be null'
    for a NULL entry; Spark's is NULL then. The check goes on the argument, so the node
    stays a map_from_entries (UNNEST reads it as a map). A NULL or empty array literal:
    :func:`_no_entries`."""
    empty = _no_entries(node)
    if empty is not None:
        return empty
    node.set(
        "this",
        spark(
            "CASE WHEN exists(_0, athena_e -> athena_e IS NULL) THEN "
            "raise_error('map entry cannot be null') ELSE _0 END",
            node.this,
        ),
    )
    return node


@rewrites("map_entries", "map_entries")
def map_entries(node: exp.Expression) -> exp.Expression:
    return spark(
        "transform(map_entries(_0), e -> named_struct('field0', e.key, 'field1', e.value))",
        *node.expressions,
    )


@rewrites("map_concat", "map_concat")
def map_concat(node: exp.Expression) -> exp.Expression:
    """Trino's map_concat: a key in several maps takes the last one's value; the result
    lists the last map's entries, then each earlier map's new keys, last to first (Trino's
    order). NULL when a map is NULL (Spark's map_concat too; a NULL literal is NULL at once:
    Spark's map functions take no untyped NULL). An empty map literal (``map()``, whose keys
    have no type in Spark) adds nothing and is left out (TestMapOperators:1433-1460)."""
    maps = list(node.expressions)
    if len(maps) < 2:
        raise Fails(
            "INVALID_FUNCTION_ARGUMENT: There must be two or more concatenation arguments "
            "to map_concat"
        )
    if any(_is_null(m) for m in maps):
        return exp.Null()
    kept = [m for m in maps if not _empty_literal(m)]
    if len(kept) < 2:
        return (kept or maps)[0]
    maps = kept
    result = maps[-1]
    for earlier in reversed(maps[:-1]):
        result = spark(
            "map_concat(_0, map_filter(_1, (k, v) -> NOT array_contains(map_keys(_0), k)))",
            result,
            earlier,
        )
    return result


def _empty_literal(node: exp.Expression) -> bool:
    """Whether ``node`` is an empty map of no key type (``map()``, ``map(ARRAY[], ARRAY[])``)."""
    kind = known_type(node)
    return kind is not None and kind.this == exp.DataType.Type.MAP and empty_map(kind)


@rewrites("multimap_from_entries", "multimap_from_entries")
def multimap_from_entries(node: exp.Expression) -> exp.Expression:
    """Trino's multimap_from_entries: each key (in order of first appearance) with the
    array of its values. A row's two fields are read through a one-entry map (whatever the
    row's field names), which fails for a NULL key as Trino does. A NULL or empty array
    literal: :func:`_no_entries`."""
    if len(node.expressions) != 1:
        raise Refused(f"{node.sql('athena')} (one array of rows)")
    empty = _no_entries(node)
    if empty is not None:
        return empty
    entries = spark(
        "transform(_0, e -> map_entries(map_from_entries(array(e)))[0])", node.expressions[0]
    )
    return spark(
        "map_from_entries(transform(array_distinct(transform(_0, e -> e.key)), "
        "k -> struct(k, transform(filter(_0, e -> e.key = k), e -> e.value))))",
        entries,
    )


@udf("split_to_multimap", "map<string,array<string>>")
def split_to_multimap(
    text: Optional[str], entry: Optional[str], pair: Optional[str]
) -> Optional[Dict[str, List[str]]]:
    """Trino's SplitToMultimapFunction: ``text`` split at each ``entry`` delimiter, each
    entry at its one ``pair`` delimiter; each key with its values in the order they come
    (an ArrayListMultimap). Its checks and texts (the bad entry unquoted)."""
    if text is None or entry is None or pair is None:
        return None
    out: Dict[str, List[str]] = {}
    for key, value in split_entries(text, entry, pair, quoted=False):
        out.setdefault(key, []).append(value)
    return out


@rewrites("split_to_multimap", "split_to_multimap")
def _split_to_multimap(node: exp.Expression) -> exp.Expression:
    args = list(node.expressions)
    texts = [
        literal_text(a) is not None or isinstance(a, exp.Null) or is_text(type_of(a)) for a in args
    ]
    if len(args) != 3 or not all(texts):
        raise Refused(
            f"{node.sql('athena')} (split_to_multimap(string, entryDelimiter, keyValueDelimiter) "
            "of varchar values)"
        )
    return typed(udf_call("split_to_multimap", *args), "map<varchar, array<varchar>>")
