"""Binary functions and operators (Trino's ``functions/binary.md``): ``X'...'`` literals,
CAST of a varchar to VARBINARY, ``||`` and concat of varbinary values, to/from_base64,
to/from_base64url, to/from_base32, to/from_hex, to/from_big_endian_32/64,
to/from_ieee754_32/64, crc32, md5, sha1, sha256/sha512, murmur3 and hmac_md5/sha1/sha256/
sha512 (Trino's VarbinaryFunctions, HmacFunctions, VarcharOperators.castToBinary). Examples:
``tests/conformance/examples/binary.yml``.
"""

from __future__ import annotations

import base64
import hmac
import re
import struct
import zlib
from typing import Any, Callable, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions import string as _string  # noqa: F401 (its || and concat, wrapped)
from athena_spark_emulator.sql.functions.conversion import CASTS
from athena_spark_emulator.sql.functions.conversion_types import athena_type_name
from athena_spark_emulator.sql.functions.table import TABLE, Entry, Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    call,
    is_decimal,
    is_integral,
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


# java.util.Base64's basic and URL alphabets (Trino's from_base64, from_base64url)
_BASE64 = {False: re.compile(r"[A-Za-z0-9+/]*={0,2}"), True: re.compile(r"[A-Za-z0-9_-]*={0,2}")}


def _text(value: Any) -> str:
    """A varchar argument's text, or a varbinary one's bytes read one character a byte
    (Trino's from_base64/base32/hex of varbinary read the bytes as the same digits)."""
    return value if isinstance(value, str) else bytes(value).decode("latin-1")


def java_base64_decode(value: Any, url: bool = False) -> Optional[bytes]:
    """java.util.Base64's decoder (the basic or the URL alphabet), as Trino's from_base64
    and from_base64url use it: the padding may be left out, not misplaced."""
    if value is None:
        return None
    text = _text(value)
    if not _BASE64[url].fullmatch(text) or "=" in text.rstrip("="):
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
    padded = body + "=" * (-len(body) % 4)
    return base64.urlsafe_b64decode(padded) if url else base64.b64decode(padded)


@udf("from_base64", "binary")
def from_base64(text: Any) -> Optional[bytes]:
    """Trino's from_base64 (Java's basic decoder)."""
    return java_base64_decode(text)


def _text_arg(node: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``value``, a varchar or varbinary argument (Trino's from_base64, from_base64url,
    from_base32 and from_hex each have both signatures); refused otherwise."""
    kind = type_of(value)
    if literal_text(value) is not None or isinstance(value, (exp.Null, exp.HexString)):
        return value
    if is_text(kind) or _is_varbinary(value):
        return value
    raise Refused(f"{node.sql('athena')} (of a value other than varchar or varbinary)")


@rewrites(exp.FromBase64, "from_base64")
def _from_base64(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("from_base64", _text_arg(node, node.this)), "varbinary")


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
# nodes whose Spark form sqlglot keeps and whose value is varbinary (its annotation may not
# say so): X'..', to_utf8 (StringFunctions.toUtf8), md5
_VARBINARY_NODES = (exp.HexString, exp.Encode, exp.MD5Digest)


def _is_varbinary(value: exp.Expression) -> bool:
    kind = type_of(value)
    return isinstance(value, _VARBINARY_NODES) or (
        kind is not None and kind.this in (T.VARBINARY, T.BINARY)
    )


def _binary_arg(node: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``value``, a varbinary argument (or NULL); refused otherwise."""
    if _is_varbinary(value) or isinstance(value, exp.Null):
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
def from_hex(value: Any) -> Optional[bytes]:
    """Trino's from_hex (of varchar or varbinary): an even number of hex digits."""
    if value is None:
        return None
    text = _text(value)
    if len(text) % 2:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: invalid input length " + str(len(text)))
    if not re.fullmatch(r"[0-9a-fA-F]*", text):
        raise Unsupported(f"from_hex of {text!r} (not hex digits)")
    return bytes.fromhex(text)


@rewrites(exp.Unhex, "from_hex")
def _from_hex(node: exp.Expression) -> exp.Expression:
    if node.args.get("expression") is not None:
        raise Refused(f"{node.sql('athena')}")
    return typed(udf_call("from_hex", _text_arg(node, node.this)), "varbinary")


# ---- CAST to VARBINARY, || and concat of varbinary ---------------------------------------------
@CASTS.register(40, "to varbinary", types=(T.VARBINARY,))
def _to_varbinary(node: Any, value: Any, target: exp.DataType, safe: bool) -> Any:
    """CAST(x AS VARBINARY): a varchar's UTF-8 bytes (Trino's VarcharOperators.castToBinary),
    a varbinary as it is. Trino has no cast to varbinary from a number, boolean, date or
    time (TYPE_MISMATCH, ExpressionAnalyzer.visitCast); from the other types (ipaddress,
    uuid, digests) and to a type holding varbinary (array(varbinary)) it is refused."""
    if target.this not in (T.VARBINARY, T.BINARY):
        if any(k.this in (T.VARBINARY, T.BINARY) for k in target.find_all(exp.DataType)):
            raise Refused(f"{node.sql('athena')} (a cast to a type holding varbinary)")
        return None
    source = type_of(value)
    if _is_varbinary(value):
        return typed(value, "varbinary")
    text = literal_text(value) is not None or isinstance(value, exp.Null)
    if text or (source is not None and source.this in (T.VARCHAR, T.TEXT)):
        cast = exp.TryCast(safe=True) if safe else exp.Cast()
        cast.set("this", value)
        cast.set("to", exp.DataType.build("varbinary"))
        return typed(cast, "varbinary")
    name = athena_type_name(source) if source is not None else None
    numeric = is_integral(source) or is_decimal(source)
    timed = source is not None and source.this in (T.BOOLEAN, T.DOUBLE, T.FLOAT, T.DATE)
    if name is not None and (numeric or timed):
        raise Fails(f"TYPE_MISMATCH: Cannot cast {name} to varbinary")
    raise Refused(f"{node.sql('athena')} (a cast to varbinary of a value other than varchar)")


def _in_outer_select(node: exp.Expression, name: str) -> None:
    """Refuse ``node`` (a varbinary value of a string function's node) inside a subquery or
    CTE: sqlglot's annotation, which types a subquery's columns, takes ``||``, concat and
    reverse for varchar there, so typeof and ColumnInfo would name the column varchar."""
    select = node.find_ancestor(exp.Select)
    if select is not None and select.find_ancestor(exp.Query, exp.CTE, exp.Subquery):
        raise Refused(
            f"{node.sql('athena')} ({name} of varbinary inside a subquery or CTE)",
            "the emulator cannot type its column there; compute it in the outer SELECT",
        )


def _varbinary_case(cls: type, form: Callable[[exp.Expression, list], exp.Expression]) -> None:
    """Wrap string.py's entry of ``cls`` (``||``, concat, reverse): where an argument is
    varbinary, ``form(node, arguments)`` (Trino's varbinary signature of it); mixed with
    another type (but NULL) it is refused."""
    entry = TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        parts = (
            list(node.expressions)
            if isinstance(node, exp.Concat)
            else [a for a in (node.this, node.args.get("expression")) if a is not None]
        )
        binary = [_is_varbinary(p) for p in parts]
        if not any(binary) or (isinstance(node, exp.Concat) and len(parts) < 2):
            return entry.rewrite(node) if entry.rewrite is not None else node
        if not all(b or isinstance(p, exp.Null) for b, p in zip(binary, parts)):
            raise Refused(f"{node.sql('athena')} (varbinary and another type)")
        _in_outer_select(node, entry.name)
        return typed(form(node, parts), "varbinary")

    TABLE.entries[cls] = Entry(entry.name, rewrite, entry.check)


@udf("reverse_bytes", "binary")
def reverse_bytes(data: Any) -> Optional[bytes]:
    """VarbinaryFunctions.reverse: the bytes in reverse order (Spark's reverse would read
    them as text)."""
    return None if data is None else bytes(data)[::-1]


# VarbinaryFunctions' concat (|| and concat of varbinary: the bytes one after the other)
_varbinary_case(exp.DPipe, lambda node, parts: call("concat", *parts))
_varbinary_case(exp.Concat, lambda node, parts: call("concat", *parts))
_varbinary_case(exp.Reverse, lambda node, parts: udf_call("reverse_bytes", *parts))


# ---- IEEE 754, big endian, base32, base64url, crc32 (VarbinaryFunctions) ----------------------
def _numeric_arg(node: exp.Expression, value: exp.Expression, spark_type: str) -> exp.Expression:
    """``value`` as the number Trino's signature takes (``spark_type``: INT, BIGINT, FLOAT,
    DOUBLE), by Trino's implicit coercions (TypeCoercion: an integer type to a wider
    integer, real or double; a decimal to real or double; a real to double); refused
    otherwise (a narrowing Trino does not make implicitly fails its analysis)."""
    kind = type_of(value)
    order = ["TINYINT", "SMALLINT", "INT", "BIGINT"]
    fits = isinstance(value, exp.Null)
    if kind is not None and is_integral(kind):
        name = {T.TINYINT: "TINYINT", T.SMALLINT: "SMALLINT", T.INT: "INT"}.get(kind.this, "BIGINT")
        fits = spark_type in ("FLOAT", "DOUBLE") or order.index(name) <= order.index(spark_type)
    elif kind is not None and (is_decimal(kind) or kind.this == T.FLOAT):
        fits = spark_type in ("FLOAT", "DOUBLE")
    elif kind is not None and kind.this == T.DOUBLE:
        fits = spark_type == "DOUBLE"
    if not fits:
        raise Refused(f"{node.sql('athena')} (of a value of another type than its signature's)")
    return spark(f"CAST(_0 AS {spark_type})", value)


def _one_arg(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 1:
        raise Refused(f"{node.sql('athena')} (one argument)")
    return node.expressions[0]


def _exact_length(data: Any, size: int, message: str) -> bytes:
    data = bytes(data)
    if len(data) != size:
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: {message}")
    return data


@udf("to_ieee754_32", "binary")
def to_ieee754_32(value: Optional[float]) -> Optional[bytes]:
    """toIEEE754Binary32: the real's bits, big-endian."""
    return None if value is None else struct.pack(">f", value)


@udf("to_ieee754_64", "binary")
def to_ieee754_64(value: Optional[float]) -> Optional[bytes]:
    """toIEEE754Binary64: Double.doubleToLongBits (one NaN), big-endian."""
    return None if value is None else struct.pack(">d", value)


_FLOAT_LENGTH = "Input floating-point value must be exactly {} bytes long"


@udf("from_ieee754_32", "float")
def from_ieee754_32(data: Any) -> Optional[float]:
    if data is None:
        return None
    return float(struct.unpack(">f", _exact_length(data, 4, _FLOAT_LENGTH.format(4)))[0])


@udf("from_ieee754_64", "double")
def from_ieee754_64(data: Any) -> Optional[float]:
    if data is None:
        return None
    return float(struct.unpack(">d", _exact_length(data, 8, _FLOAT_LENGTH.format(8)))[0])


@udf("to_big_endian_32", "binary")
def to_big_endian_32(value: Optional[int]) -> Optional[bytes]:
    return None if value is None else int(value).to_bytes(4, "big", signed=True)


@udf("to_big_endian_64", "binary")
def to_big_endian_64(value: Optional[int]) -> Optional[bytes]:
    return None if value is None else int(value).to_bytes(8, "big", signed=True)


_INT_LENGTH = "expected {}-byte input, but got instead: {}"


@udf("from_big_endian_32", "int")
def from_big_endian_32(data: Any) -> Optional[int]:
    if data is None:
        return None
    exact = _exact_length(data, 4, _INT_LENGTH.format(4, len(bytes(data))))
    return int.from_bytes(exact, "big", signed=True)


@udf("from_big_endian_64", "bigint")
def from_big_endian_64(data: Any) -> Optional[int]:
    if data is None:
        return None
    exact = _exact_length(data, 8, _INT_LENGTH.format(8, len(bytes(data))))
    return int.from_bytes(exact, "big", signed=True)


_NUMBER_FUNCTIONS: Tuple[Tuple[str, str, str], ...] = (
    # (name, the Spark type of its argument, Athena's type of its result)
    ("to_ieee754_32", "FLOAT", "varbinary"),
    ("to_ieee754_64", "DOUBLE", "varbinary"),
    ("to_big_endian_32", "INT", "varbinary"),
    ("to_big_endian_64", "BIGINT", "varbinary"),
)
_BYTES_FUNCTIONS: Tuple[Tuple[str, str], ...] = (
    ("from_ieee754_32", "real"),
    ("from_ieee754_64", "double"),
    ("from_big_endian_32", "integer"),
    ("from_big_endian_64", "bigint"),
    ("crc32", "bigint"),
    ("to_base64url", "varchar"),
)


def _number_function(name: str, spark_type: str, result: str) -> None:
    @rewrites(name, name)
    def rewrite(node: exp.Expression) -> exp.Expression:
        value = _numeric_arg(node, _one_arg(node), spark_type)
        return typed(udf_call(name, value), result)


def _bytes_function(name: str, result: str) -> None:
    @rewrites(name, name)
    def rewrite(node: exp.Expression) -> exp.Expression:
        return typed(udf_call(name, _binary_arg(node, _one_arg(node))), result)


for _name, _spark_type, _result in _NUMBER_FUNCTIONS:
    _number_function(_name, _spark_type, _result)
for _name, _result in _BYTES_FUNCTIONS:
    _bytes_function(_name, _result)


@udf("crc32", "bigint")
def crc32(data: Any) -> Optional[int]:
    """java.util.zip.CRC32's value (Trino's crc32)."""
    return None if data is None else zlib.crc32(bytes(data))


@udf("to_base64url", "string")
def to_base64url(data: Any) -> Optional[str]:
    """java.util.Base64's URL encoder (with padding), as Trino's to_base64url."""
    return None if data is None else base64.urlsafe_b64encode(bytes(data)).decode("ascii")


@udf("from_base64url", "binary")
def from_base64url(value: Any) -> Optional[bytes]:
    """java.util.Base64's URL decoder, as Trino's from_base64url."""
    return java_base64_decode(value, url=True)


@rewrites("from_base64url", "from_base64url")
def _from_base64url(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("from_base64url", _text_arg(node, _one_arg(node))), "varbinary")


_BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


@udf("to_base32", "string")
def to_base32(data: Any) -> Optional[str]:
    """Guava's BaseEncoding.base32() (RFC 4648, padded), as Trino's to_base32."""
    return None if data is None else base64.b32encode(bytes(data)).decode("ascii")


@udf("from_base32", "binary")
def from_base32(value: Any) -> Optional[bytes]:
    """Guava's BaseEncoding.base32().decode, as Trino's from_base32: the trailing padding
    may be left out; a length it cannot end at or a character outside the alphabet fails
    with Guava's DecodingException's text."""
    if value is None:
        return None
    body = _text(value).rstrip("=")
    if len(body) % 8 in (1, 3, 6):
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid input length {len(body)}")
    for char in body:
        if char not in _BASE32:
            shown = char if char.isprintable() and not char.isspace() else f"0x{ord(char):x}"
            raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Unrecognized character: {shown}")
    return base64.b32decode(body + "=" * (-len(body) % 8))


@rewrites(exp.ToBase32, "to_base32")
def _to_base32(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("to_base32", _binary_arg(node, node.this)), "varchar")


@rewrites(exp.FromBase32, "from_base32")
def _from_base32(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("from_base32", _text_arg(node, node.this)), "varbinary")


# ---- hmac_md5, hmac_sha1, hmac_sha256, hmac_sha512 (HmacFunctions) ----------------------------
def _hmac(digest: str) -> Callable[[Any, Any], Optional[bytes]]:
    def compute(data: Any, key: Any) -> Optional[bytes]:
        """Trino's hmac_<digest>(binary, key) (HmacFunctions: Guava's Hashing.hmac*)."""
        if data is None or key is None:
            return None
        if not bytes(key):  # Guava's SecretKeySpec refuses an empty key: Trino fails
            raise Unsupported(f"hmac_{digest} with an empty key (Athena fails it)")
        return hmac.new(bytes(key), bytes(data), digest).digest()

    return compute


def _hmac_function(digest: str) -> None:
    name = f"hmac_{digest}"
    udf(name, "binary")(_hmac(digest))

    @rewrites(name, name)
    def rewrite(node: exp.Expression) -> exp.Expression:
        if len(node.expressions) != 2:
            raise Refused(f"{node.sql('athena')} (two varbinary arguments)")
        data, key = (_binary_arg(node, a) for a in node.expressions)
        return typed(udf_call(name, data, key), "varbinary")


for _name in ("md5", "sha1", "sha256", "sha512"):
    _hmac_function(_name)
