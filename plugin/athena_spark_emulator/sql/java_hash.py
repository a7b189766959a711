"""The iteration order of a java.util.HashMap, which Trino's map values follow where Athena
prints them: MapType.getObjectValue puts a map's entries into a ``new HashMap<>()`` (its
text is that map's ``{k=v, ...}``), and json_object's members go through one too
(JsonObjectFunction). Pure: no Spark, no sqlglot.

A HashMap iterates bucket by bucket: the key's ``hashCode`` spread (``h ^ h >>> 16``,
HashMap.hash) modulo the table's size (16, doubled while the entries exceed 3/4 of it),
in insertion order within a bucket (a resize keeps that order). A ninth entry in one
bucket makes it a tree or the table grow (HashMap.treeifyBin): that order is not
modelled, and :func:`hash_map_order` answers None for it.

json_cast.py orders json_object's members with it too (JsonObjectFunction)."""

from __future__ import annotations

import math
import struct
from collections import Counter
from typing import Any, List, Optional, Sequence

CAPACITY, LOAD = 16, 0.75  # java.util.HashMap's defaults
_TREEIFY = 8  # HashMap.TREEIFY_THRESHOLD: a bin of more entries is treeified
_INT = 0xFFFFFFFF


def string_hash(text: str) -> int:
    """java.lang.String.hashCode: over UTF-16 code units, 32-bit overflow (unsigned here)."""
    code = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        code = (31 * code + int.from_bytes(data[i : i + 2], "big")) & _INT
    return code


def spread(code: int) -> int:
    """HashMap.hash: the hash code with its high bits folded into the low ones."""
    code &= _INT
    return code ^ (code >> 16)


def _long_hash(value: int) -> int:
    bits = value & 0xFFFFFFFFFFFFFFFF
    return (bits ^ (bits >> 32)) & _INT


def key_hash(key: Any, spark_type: Any) -> Optional[int]:
    """The ``hashCode`` of the Java object Trino's getObjectValue gives for a map key of
    Spark type ``spark_type`` (Integer, Short, Byte, Long, String, Boolean, Double, Float);
    None for the other types (decimals, dates, timestamps, rows ...: not modelled)."""
    kind = type(spark_type).__name__
    if isinstance(key, bool):
        return 1231 if key else 1237  # Boolean.hashCode
    if isinstance(key, int) and kind in ("IntegerType", "ShortType", "ByteType"):
        return key & _INT  # Integer/Short/Byte.hashCode: the value
    if isinstance(key, int) and kind == "LongType":
        return _long_hash(key)  # Long.hashCode: (int) (v ^ v >>> 32)
    if isinstance(key, str) and kind in ("StringType", "VarcharType"):
        return string_hash(key)
    if isinstance(key, float) and kind == "DoubleType":
        bits = (
            0x7FF8000000000000
            if math.isnan(key)
            else struct.unpack(">q", struct.pack(">d", key))[0]
        )
        return _long_hash(bits)  # Double.hashCode of doubleToLongBits
    if isinstance(key, float) and kind == "FloatType":
        if math.isnan(key):
            return 0x7FC00000
        return struct.unpack(">I", struct.pack(">f", key))[0]  # Float.floatToIntBits
    return None


def hash_map_order(hashes: Sequence[Optional[int]]) -> Optional[List[int]]:
    """The positions of entries inserted with hash codes ``hashes``, in the order a
    java.util.HashMap iterates them; None where a hash is unknown or a bucket would hold
    more than 8 entries at some table size on the way (a tree bin, or a resize)."""
    if any(h is None for h in hashes):
        return None
    spread_hashes = [spread(h) for h in hashes]  # type: ignore[arg-type]
    capacity = CAPACITY
    while True:
        buckets = [h & (capacity - 1) for h in spread_hashes]
        if max(Counter(buckets).values(), default=0) > _TREEIFY:
            return None
        if len(hashes) <= LOAD * capacity:
            break
        capacity *= 2
    return sorted(range(len(hashes)), key=lambda i: buckets[i])  # stable: insertion order
