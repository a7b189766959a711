"""Binary functions and operators (Trino's ``functions/binary.md``): ``X'...'`` literals,
to/from_base64, to/from_hex, md5, sha1, sha256/sha512 and murmur3. Examples:
``tests/conformance/examples/binary.yml``.
"""

from __future__ import annotations

import base64
import re
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    is_text,
    literal_int,
    literal_text,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import AthenaError, Unsupported, udf, udf_call

T = exp.DataType.Type
_cls: Any
_name: str


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.MD5Digest, "md5"),
    (exp.Hex, "to_hex"),
    (exp.LowerHex, "lower(to_hex())"),
):
    same(_cls, _name)


@rewrites(exp.HexString, "varbinary literal")
def _varbinary_literal(node: exp.Expression) -> exp.Expression:
    """``X'0A'`` (syntax.parse has made Trino's integer ``0x0A`` a decimal number)."""
    node.type = exp.DataType.build("varbinary")
    return node


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


@udf("from_base64", "binary")
def from_base64(text: Optional[str]) -> Optional[bytes]:
    """Trino's from_base64 (Java's basic decoder: the padding may be left out)."""
    if text is None:
        return None
    if not _BASE64.fullmatch(text) or "=" in text.rstrip("="):
        raise AthenaError(
            "INVALID_FUNCTION_ARGUMENT: Illegal base64 character or padding in the input"
        )
    body = text.rstrip("=")
    if len(body) % 4 == 1 or ("=" in text and len(text) % 4):
        raise AthenaError(
            "INVALID_FUNCTION_ARGUMENT: Last unit does not have enough valid bits"
            if len(body) % 4 == 1
            else "INVALID_FUNCTION_ARGUMENT: Input byte array has wrong 4-byte ending unit"
        )
    return base64.b64decode(body + "=" * (-len(body) % 4))


@rewrites(exp.FromBase64, "from_base64")
def _from_base64(node: exp.Expression) -> exp.Expression:
    literal = literal_text(node.this) is not None
    if not (literal or is_text(type_of(node.this))):
        raise Refused(f"{node.sql('athena')} (of a value other than varchar)")
    return typed(udf_call("from_base64", node.this), "varbinary")


_MASK = 2**64 - 1


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _fmix(value: int) -> int:
    value ^= value >> 33
    value = (value * 0xFF51AFD7ED558CCD) & _MASK
    value ^= value >> 33
    value = (value * 0xC4CEB9FE1A85EC53) & _MASK
    value ^= value >> 33
    return value


def murmur3_128(data: bytes, seed: int = 0) -> bytes:
    """MurmurHash3 x64 128-bit of ``data`` (h1 then h2, little-endian), as Trino's murmur3."""
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = seed & _MASK
    blocks = len(data) // 16
    for i in range(blocks):
        k1 = int.from_bytes(data[i * 16 : i * 16 + 8], "little")
        k2 = int.from_bytes(data[i * 16 + 8 : i * 16 + 16], "little")
        k1 = (_rotl((k1 * c1) & _MASK, 31) * c2) & _MASK
        h1 ^= k1
        h1 = (_rotl(h1, 27) + h2) & _MASK
        h1 = (h1 * 5 + 0x52DCE729) & _MASK
        k2 = (_rotl((k2 * c2) & _MASK, 33) * c1) & _MASK
        h2 ^= k2
        h2 = (_rotl(h2, 31) + h1) & _MASK
        h2 = (h2 * 5 + 0x38495AB5) & _MASK
    tail = data[blocks * 16 :]
    k1 = int.from_bytes(tail[:8], "little") if tail else 0
    k2 = int.from_bytes(tail[8:16], "little") if len(tail) > 8 else 0
    if len(tail) > 8:
        k2 = (_rotl((k2 * c2) & _MASK, 33) * c1) & _MASK
        h2 ^= k2
    if tail:
        k1 = (_rotl((k1 * c1) & _MASK, 31) * c2) & _MASK
        h1 ^= k1
    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    h1, h2 = _fmix(h1), _fmix(h2)
    h1 = (h1 + h2) & _MASK
    h2 = (h2 + h1) & _MASK
    return h1.to_bytes(8, "little") + h2.to_bytes(8, "little")


@udf("murmur3", "binary")
def murmur3(data: Optional[bytes]) -> Optional[bytes]:
    return None if data is None else murmur3_128(bytes(data))


@rewrites("murmur3", "murmur3")
def _murmur3(node: exp.Expression) -> exp.Expression:
    [value] = node.expressions
    kind = type_of(value)
    if not (
        isinstance(value, exp.HexString)
        or (kind is not None and kind.this in (T.VARBINARY, T.BINARY))
    ):
        raise Refused(f"{node.sql('athena')} (of a value other than varbinary)")
    return typed(udf_call("murmur3", value), "varbinary")


# ---- more binary functions -------------------------------------------------------------------
def _binary_arg(node: exp.Expression, value: exp.Expression) -> exp.Expression:
    kind = type_of(value)
    if isinstance(value, exp.HexString) or (
        kind is not None and kind.this in (T.VARBINARY, T.BINARY)
    ):
        return value
    raise Refused(f"{node.sql('athena')} (of a value other than varbinary)")


@udf("to_base64", "string")
def to_base64(data: Optional[bytes]) -> Optional[str]:
    return None if data is None else base64.b64encode(bytes(data)).decode("ascii")


@rewrites(exp.ToBase64, "to_base64")
def _to_base64(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("to_base64", _binary_arg(node, node.this)), "varchar")


@rewrites(exp.SHA2Digest, "sha256 / sha512")
def _sha2(node: exp.Expression) -> exp.Expression:
    length = literal_int(node.args.get("length") or exp.Literal.number(256))
    if length not in (256, 512):
        raise Refused(f"{node.sql('athena')}")
    value = _binary_arg(node, node.this)
    return typed(spark(f"unhex(sha2(_0, {length}))", value), "varbinary")


@rewrites(exp.SHA, "sha1")
def _sha1(node: exp.Expression) -> exp.Expression:
    return typed(spark("unhex(sha1(_0))", _binary_arg(node, node.this)), "varbinary")


@udf("from_hex", "binary")
def from_hex(text: Optional[str]) -> Optional[bytes]:
    """Trino's from_hex: an even number of hex digits."""
    if text is None:
        return None
    if len(text) % 2:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: invalid input length " + str(len(text)))
    if not re.fullmatch(r"[0-9a-fA-F]*", text):
        raise Unsupported(f"from_hex of {text!r} (not hex digits)")
    return bytes.fromhex(text)


@rewrites(exp.Unhex, "from_hex")
def _from_hex(node: exp.Expression) -> exp.Expression:
    if node.args.get("expression") is not None:
        raise Refused(f"{node.sql('athena')}")
    if not (literal_text(node.this) is not None or is_text(type_of(node.this))):
        raise Refused(f"{node.sql('athena')} (of a value other than varchar)")
    return typed(udf_call("from_hex", node.this), "varbinary")
