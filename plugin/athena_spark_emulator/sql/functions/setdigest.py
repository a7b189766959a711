"""Set digest functions (Trino's ``functions/setdigest.md``): make_set_digest as the list of
its values' hashes, cardinality, intersection_cardinality, jaccard_index and hash_counts.
Examples: ``tests/conformance/examples/setdigest.yml``.
"""

from __future__ import annotations

from typing import Any, Optional

from sqlglot import exp

# cardinality of a set digest wraps array.py's entry: imported first
from athena_spark_emulator.sql.functions import array as _array  # noqa: F401
from athena_spark_emulator.sql.functions.binary import _MASK, _fmix, _rotl, murmur3_128
from athena_spark_emulator.sql.functions.table import TABLE, Entry, Refused, rewrites
from athena_spark_emulator.sql.spark_forms import (
    is_integral,
    is_text,
    literal_text,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import Unsupported, udf, udf_call

_name: str


# ---- set digests: make_set_digest as the list of its values' hashes ----------------------------
# Trino's SetDigest keeps the 8192 smallest Murmur3 hashes of the values (with counts): exact
# below that. make_set_digest(x) is collected as the list of x's hashes and runs only as the
# argument of cardinality, intersection_cardinality, jaccard_index or hash_counts.
_MAX_HASHES = 8192
_C1, _C2 = 0x87C37B91114253D5, 0x4CF5AD432745937F


def _signed(value: int) -> int:
    return value - 2**64 if value >= 2**63 else value


def set_digest_hash(value: Any) -> Optional[int]:
    """airlift's Murmur3Hash128.hash64 of a bigint (its special form) or of text's bytes."""
    if value is None:
        return None
    if isinstance(value, str):
        return _signed(int.from_bytes(murmur3_128(value.encode("utf-8"))[:8], "little"))
    h2 = 0 ^ 8
    h1 = (h2 + (h2 ^ ((_rotl((value * _C1) & _MASK, 31) * _C2) & _MASK))) & _MASK
    return _signed((_fmix(h1) + _fmix((h1 + h2) & _MASK)) & _MASK)


udf("set_digest_hash", "bigint")(set_digest_hash)


def _minhash(hashes: list) -> dict:
    """The digest's hash -> count (counts saturate at 32767), its 8192 smallest hashes."""
    counts: dict = {}
    for value in hashes:
        counts[value] = min(counts.get(value, 0) + 1, 32767)
    return {key: counts[key] for key in sorted(counts)[:_MAX_HASHES]}


def _exact(name: str, *digests: dict) -> None:
    if any(len(d) >= _MAX_HASHES for d in digests):
        raise Unsupported(f"{name} of a set digest of {_MAX_HASHES} values or more (approximate)")


@udf("set_digest_cardinality", "bigint")
def set_digest_cardinality(hashes: Optional[list]) -> Optional[int]:
    if not hashes:
        return None
    digest = _minhash(hashes)
    _exact("cardinality", digest)
    return len(digest)


@udf("intersection_cardinality", "bigint")
def intersection_cardinality(left: Optional[list], right: Optional[list]) -> Optional[int]:
    if not left or not right:
        return None
    a, b = _minhash(left), _minhash(right)
    _exact("intersection_cardinality", a, b)
    return len(set(a) & set(b))


@udf("jaccard_index", "double")
def jaccard_index(left: Optional[list], right: Optional[list]) -> Optional[float]:
    if not left or not right:
        return None
    a, b = _minhash(left), _minhash(right)
    smaller = min(len(a), len(b))
    union = sorted(set(a) | set(b))[:smaller]
    return sum(1 for key in union if key in a and key in b) / smaller


@udf("hash_counts", "map<bigint,smallint>")
def hash_counts(hashes: Optional[list]) -> Optional[dict]:
    return _minhash(hashes) if hashes else None


_DIGEST_USERS = {
    "cardinality": "set_digest_cardinality",
    "intersection_cardinality": "intersection_cardinality",
    "jaccard_index": "jaccard_index",
    "hash_counts": "hash_counts",
}


@rewrites("make_set_digest", "make_set_digest")
def _make_set_digest(node: exp.Expression) -> exp.Expression:
    parent = node.parent
    user = "cardinality" if isinstance(parent, exp.ArraySize) else None
    if isinstance(parent, exp.Anonymous) and str(parent.name).lower() in _DIGEST_USERS:
        user = str(parent.name).lower()
    if user is None:
        raise Refused(
            f"{node.sql('athena')} (a set digest other than the argument of "
            "cardinality, intersection_cardinality, jaccard_index or hash_counts)"
        )
    [value] = node.expressions
    kind = type_of(value)
    if is_integral(kind):
        value = spark("CAST(_0 AS BIGINT)", value)
    elif not (is_text(kind) or literal_text(value) is not None):
        raise Refused(f"{node.sql('athena')} (of a value other than an integer or varchar)")
    out = spark("collect_list(_0)", udf_call("set_digest_hash", value))
    out.meta["athena_set_digest"] = True
    return out


def _digests(node: exp.Expression, count: int) -> list:
    args = list(node.expressions) if not isinstance(node, exp.ArraySize) else [node.this]
    if len(args) != count or not all(a.meta.get("athena_set_digest") for a in args):
        raise Refused(f"{node.sql('athena')} (of a value other than make_set_digest(x))")
    return args


for _name, _count, _kind in (
    ("intersection_cardinality", 2, "bigint"),
    ("jaccard_index", 2, "double"),
    ("hash_counts", 1, "map(bigint, smallint)"),
):

    def _digest_user(
        node: exp.Expression, name: str = _name, count: int = _count, kind: str = _kind
    ) -> exp.Expression:
        return typed(udf_call(name, *_digests(node, count)), kind)

    rewrites(_name, _name)(_digest_user)


def _cardinality_of_digests(cls: type) -> None:
    entry = TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        if node.this.meta.get("athena_set_digest"):
            return typed(udf_call("set_digest_cardinality", node.this), "bigint")
        return entry.rewrite(node) if entry.rewrite is not None else node

    TABLE.entries[cls] = Entry(entry.name, rewrite, entry.check)


_cardinality_of_digests(exp.ArraySize)
