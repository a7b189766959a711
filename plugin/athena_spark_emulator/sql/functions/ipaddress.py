"""IP address functions (Trino's ``functions/ipaddress.md``): IPADDRESS values (and UUID
values, uuid.py, held the same way) as Spark strings in Athena's text; casts to them (a
case of conversion.py's CASTS), contains(network, address), and the refusal of an
ordering of them (their order is not their text's). Examples:
``tests/conformance/examples/ipaddress.yml``.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql import udfs

# the entries this page wraps (orderings of ipaddress/uuid values refused, contains of a
# network) are registered by these pages: imported first, whatever the package's order
from athena_spark_emulator.sql.functions import aggregate as _aggregate  # noqa: F401
from athena_spark_emulator.sql.functions import array as _array  # noqa: F401
from athena_spark_emulator.sql.functions import comparison as _comparison  # noqa: F401
from athena_spark_emulator.sql.functions import select as _select  # noqa: F401
from athena_spark_emulator.sql.functions.conversion import CASTS
from athena_spark_emulator.sql.functions.table import TABLE, Entry, Refused
from athena_spark_emulator.sql.functions.uuid import _UUID
from athena_spark_emulator.sql.spark_forms import is_text, literal_text, spark, type_of, typed
from athena_spark_emulator.sql.udfs import AthenaError, Unsupported, udf, udf_call

_cls: Any


# ---- ipaddress and uuid: Spark strings in Athena's text ----------------------------------------
# An IPADDRESS value is its text as Athena prints it (IPv4 dotted, IPv6 in RFC 5952 form), a
# UUID its lower-case text: equal values have equal text. Their order is not the text's:
# ordering them is refused where the emulator can see their type.
T = exp.DataType.Type


def ip_text(text: str) -> Optional[str]:
    """Athena's text of the IP address ``text`` (None: not an address Trino reads)."""
    if not text or "%" in text or not text.isascii() or text.strip() != text:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return address.compressed


@udf("ipaddress", "string")
def to_ipaddress(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    found = ip_text(text)
    if found is None:
        raise AthenaError(f"INVALID_CAST_ARGUMENT: Cannot cast value to IPADDRESS: {text}")
    return found


def _ip_bytes(text: str) -> bytes:
    """The bytes Java's InetAddress holds: 4 for IPv4 (and IPv4-mapped IPv6), else 16."""
    address = ipaddress.ip_address(text)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.packed


@udf("ip_contains", "boolean")
def ip_contains(network: Optional[str], address: Optional[str]) -> Optional[bool]:
    """Trino's contains(cidr, ipaddress) (IpAddressFunctions.contains): fails 'IP address
    version should be the same' where the network and the address are of different
    versions (an IPv4-mapped IPv6 address is IPv4, as Java's InetAddress holds it); a /0
    network contains every address of its version."""
    if network is None or address is None:
        return None
    if "/" not in network:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Invalid CIDR")
    base_text, prefix_text = network.split("/", 1)
    if ip_text(base_text) is None:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Invalid network IP address")
    base = _ip_bytes(base_text)
    if not re.fullmatch(r"[+-]?[0-9]+", prefix_text):
        raise Unsupported(f"contains with the CIDR {network!r} (its prefix length)")
    prefix = int(prefix_text)
    if prefix < 0:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Invalid prefix length")
    bits = len(base) * 8
    if prefix > bits:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Prefix length exceeds address length")
    if len(base) == 4 and int.from_bytes(base, "big") & (0xFFFFFFFF >> prefix):
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Invalid CIDR")
    value = _ip_bytes(address)
    if len(value) != len(base):
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: IP address version should be the same")
    shift = bits - prefix
    return int.from_bytes(base, "big") >> shift == int.from_bytes(value, "big") >> shift


def _text_source(node: exp.Expression, value: exp.Expression, source: Any) -> bool:
    literal = isinstance(value, exp.Literal) and value.is_string
    if literal or is_text(source):
        return True
    if isinstance(value, exp.Null):
        return False
    raise Refused(f"{node.sql('athena')} (a cast of a value other than varchar)")


def _opaque_cast(node: Any, value: exp.Expression, source: Any, safe: bool) -> exp.Expression:
    target = node.to.this
    if source is not None and source.this == target:
        return typed(value, "ipaddress" if target == T.IPADDRESS else "uuid")
    kind = "ipaddress" if target == T.IPADDRESS else "uuid"
    if isinstance(value, exp.Null) or not _text_source(node, value, source):
        return typed(spark("CAST(NULL AS STRING)"), kind)
    text = literal_text(value)
    if text is not None:
        known = (
            ip_text(text)
            if kind == "ipaddress"
            else (text.lower() if _UUID.fullmatch(text) else None)
        )
        if known is not None:
            return typed(spark("CAST(_0 AS STRING)", exp.Literal.string(known)), kind)
    out = udf_call(kind, value)
    return typed(udfs.try_form(out) if safe else out, kind)


@CASTS.register(30, "to ipaddress and uuid", types=(T.IPADDRESS, T.UUID))
def _opaque_target(node: Any, value: Any, target: exp.DataType, safe: bool) -> Any:
    if target.this in (T.IPADDRESS, T.UUID):
        return _opaque_cast(node, value, type_of(value), safe)
    return None


def _opaque(node: Optional[exp.Expression]) -> bool:
    kind = type_of(node) if isinstance(node, exp.Expression) else None
    return kind is not None and kind.this in (T.IPADDRESS, T.UUID)


def _refuse_ordering(cls: type) -> None:
    """Wrap the table's entry of ``cls`` (an ordering of values): refused for ipaddress and
    uuid values, whose order is not their text's."""
    entry = TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        args = [node.this, node.args.get("expression"), *node.expressions]
        if any(_opaque(a) for a in args):
            raise Refused(f"{node.sql('athena')} (ordering ipaddress or uuid values)")
        return entry.rewrite(node) if entry.rewrite is not None else node

    TABLE.entries[cls] = Entry(entry.name, rewrite, entry.check)


for _cls in (
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Between,
    exp.Greatest,
    exp.Least,
    exp.Min,
    exp.Max,
    exp.ArgMax,
    exp.ArgMin,
    exp.Ordered,
    exp.ArraySort,
    exp.ArrayMax,
    exp.ArrayMin,
):
    _refuse_ordering(_cls)


def _ip_contains(node: exp.Expression) -> Optional[exp.Expression]:
    """contains(varchar, ipaddress) (sqlglot reads contains as an array's)."""
    network, address = node.this, node.expression
    if not (literal_text(network) is not None or is_text(type_of(network))):
        return None
    if not _opaque(address):
        raise Refused(f"{node.sql('athena')} (contains of a varchar and a value not an ipaddress)")
    return typed(udf_call("ip_contains", network, address), "boolean")


def _contains_of_ip(cls: type) -> None:
    entry = TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        found = _ip_contains(node)
        if found is not None:
            return found
        return entry.rewrite(node) if entry.rewrite is not None else node

    TABLE.entries[cls] = Entry(entry.name, rewrite, entry.check)


_contains_of_ip(exp.ArrayContains)
