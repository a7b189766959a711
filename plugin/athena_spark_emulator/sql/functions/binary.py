"""Athena's scalar functions that Spark has no form for, each an entry of the function
table (functions.py) with a small implementation (a UDF of udfs.py) or a Spark form.
Registered when the ``athena_spark_emulator.sql`` package is imported (its __init__)."""

from __future__ import annotations

import base64
import datetime
import decimal
import ipaddress
import math
import re
from typing import Any, Callable, Dict, Optional

from sqlglot import exp

from athena_spark_emulator.sql import udfs
from athena_spark_emulator.sql.functions import conversion as functions
from athena_spark_emulator.sql.functions.conversion import Fails, Refused, rewrites
from athena_spark_emulator.sql.spark_forms import (
    is_date,
    is_decimal,
    is_double,
    is_integral,
    spark,
    type_of,
    typed,
)
from athena_spark_emulator.sql.udfs import ERROR_END, ERROR_MARK, AthenaError, udf, udf_call


@udf("luhn_check", "boolean")
def luhn_check(digits: Optional[str]) -> Optional[bool]:
    """Trino's luhn_check: whether a string of digits passes the Luhn checksum; a string
    with anything but digits fails."""
    if digits is None:
        return None
    if not digits or not digits.isascii() or not digits.isdigit():
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: Input contains non-digit character: {digits}"
        )
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


@rewrites("luhn_check", "luhn_check")
def _luhn_check(node: exp.Expression) -> exp.Expression:
    return udf_call("luhn_check", *node.expressions)


# ---- failures the emulator reports as NOT_SUPPORTED at run time ------------------------------
class Unsupported(Exception):
    """A value a UDF cannot answer as Athena would: the query fails NOT_SUPPORTED (``try``
    does not turn it into NULL, as it is no failure of Athena's)."""

    def __init__(self, text: str) -> None:
        super().__init__(
            f"{ERROR_MARK}NOT_SUPPORTED: the Athena emulator cannot run {text}{ERROR_END}"
        )


def _literal_text(node: exp.Expression) -> Optional[str]:
    return node.this if isinstance(node, exp.Literal) and node.is_string else None


def _literal_int(node: exp.Expression) -> Optional[int]:
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    if isinstance(node, exp.Neg):
        inner = _literal_int(node.this)
        return None if inner is None else -inner
    return None


# ---- literals -------------------------------------------------------------------------------
@rewrites(exp.HexString, "varbinary literal")
def _varbinary_literal(node: exp.Expression) -> exp.Expression:
    """``X'0A'`` (syntax.parse has made Trino's integer ``0x0A`` a decimal number)."""
    node.type = exp.DataType.build("varbinary")
    return node


def unicode_literal(text: str, escape: str = "\\") -> str:
    """The value of Trino's ``U&'...'`` literal: ``\\XXXX`` (4 hex digits) and
    ``\\+XXXXXX`` (6) are code points, ``\\\\`` the escape character itself."""
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != escape:
            out.append(char)
            i += 1
            continue
        if text[i + 1 : i + 2] == escape:
            out.append(escape)
            i += 2
            continue
        if text[i + 1 : i + 2] == "+":
            digits, i = text[i + 2 : i + 8], i + 8
            size = 6
        else:
            digits, i = text[i + 1 : i + 5], i + 5
            size = 4
        if len(digits) != size or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise ValueError(f"Incomplete escape sequence: {escape}{digits}")
        point = int(digits, 16)
        if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
            raise ValueError(f"Invalid escaped character: {escape}{digits}")
        out.append(chr(point))
    return "".join(out)


@rewrites(exp.UnicodeString, "Unicode string literal (U&'...')")
def _unicode_string(node: exp.Expression) -> exp.Expression:
    escape_node = node.args.get("escape")
    escape = "\\"
    if isinstance(escape_node, exp.Expression):
        escape = _literal_text(escape_node) or ""
        if len(escape) != 1 or escape in "+'\"" or escape.isspace() or escape.isalnum():
            raise Refused(f"the Unicode string literal {node.sql('athena')} (its UESCAPE)")
    try:
        value = unicode_literal(str(node.this), escape)
    except ValueError as exc:
        raise Refused(f"the Unicode string literal {node.sql('athena')} ({exc})") from None
    return exp.Literal.string(value)


# ---- strings --------------------------------------------------------------------------------
@rewrites(exp.Split, "split")
def _split(node: exp.Expression) -> exp.Expression:
    """Trino's split: a literal delimiter (never a pattern); the limit is the most parts,
    the last one the rest of the string."""
    delimiter = _literal_text(node.expression)
    if delimiter is None:
        raise Refused(f"split with a delimiter that is not a literal ({node.sql('athena')})")
    if delimiter == "":
        raise Fails("INVALID_FUNCTION_ARGUMENT: The delimiter may not be the empty string")
    pattern = exp.Literal.string(re.escape(delimiter))
    limit = node.args.get("limit")
    if limit is None:
        return typed(spark("split(_0, _1, -1)", node.this, pattern), "array(varchar)")
    value = _literal_int(limit)
    if value is not None and value <= 0:
        raise Fails("INVALID_FUNCTION_ARGUMENT: Limit must be positive")
    if value is not None and value > 2**31 - 1:
        raise Fails("INVALID_FUNCTION_ARGUMENT: Limit is too large")
    return typed(
        spark(
            "CASE WHEN _2 <= 0 THEN raise_error('Limit must be positive') "
            "WHEN _2 > 2147483647 THEN raise_error('Limit is too large') "
            "ELSE split(_0, _1, CAST(_2 AS INT)) END",
            node.this,
            pattern,
            limit,
        ),
        "array(varchar)",
    )


@udf("title_case", "string")
def title_case(text: Optional[str]) -> Optional[str]:
    """Trino's title_case: the first letter of each word upper case, the rest lower case.
    Only for ASCII letters and spaces, where what a word is leaves no doubt."""
    if text is None:
        return None
    if any(not (c == " " or (c.isascii() and c.isalpha())) for c in text):
        raise Unsupported("title_case of text with characters other than ASCII letters and spaces")
    return " ".join(word[:1].upper() + word[1:].lower() for word in text.split(" "))


@rewrites("title_case", "title_case")
def _title_case(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("title_case", *node.expressions), "varchar")


# ---- regular expressions ----------------------------------------------------------------------
# Python's re agrees with Trino's (Java-syntax) patterns on the common constructs, with
# re.ASCII (\d \w \s \b are ASCII in both); what may differ is refused.
_REGEX_REFUSED = re.compile(r"\(\?|\\[pPZzhHQERXGKec0NAxV]|&&|\[:|\[\[|\{,|\$|\\[1-9]\d")


def _pattern(node: exp.Expression, pattern: exp.Expression) -> exp.Expression:
    text = _literal_text(pattern)
    if text is None:
        raise Refused(f"{node.sql('athena')} (a pattern that is not a literal)")
    found = _REGEX_REFUSED.search(text)
    if found:
        raise Refused(f"{node.sql('athena')} (the pattern construct {found.group(0)})")
    try:
        re.compile(text, re.ASCII)
    except re.error:
        raise Refused(f"{node.sql('athena')} (its pattern)") from None
    return pattern


def _matches(string: str, pattern: str, start: int):  # type: ignore[no-untyped-def]
    """Trino's successive matches from ``start`` (an empty match moves one character on)."""
    compiled = re.compile(pattern, re.ASCII)
    position = start
    while position <= len(string):
        found = compiled.search(string, position)
        if found is None:
            return
        yield found
        position = found.end() + 1 if found.end() == found.start() else found.end()


@udf("regexp_position", "int")
def regexp_position(
    string: Optional[str],
    pattern: Optional[str],
    start: Optional[int] = 1,
    occurrence: Optional[int] = 1,
) -> Optional[int]:
    """Trino's regexp_position: the 1-based position of the n-th match from ``start``,
    -1 when there is none."""
    if string is None or pattern is None or start is None or occurrence is None:
        return None
    if start < 1:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: start position cannot be smaller than 1")
    if occurrence < 1:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: occurrence cannot be smaller than 1")
    if start > len(string):
        return -1
    for count, found in enumerate(_matches(string, pattern, start - 1), start=1):
        if count == occurrence:
            return found.start() + 1
    return -1


@rewrites("regexp_position", "regexp_position")
def _regexp_position(node: exp.Expression) -> exp.Expression:
    args = list(node.expressions)
    if not 2 <= len(args) <= 4:
        raise Refused(f"{node.sql('athena')} (2 to 4 arguments)")
    _pattern(node, args[1])
    while len(args) < 4:
        args.append(exp.Literal.number(1))
    return typed(udf_call("regexp_position", *args), "int")


@udf("regexp_replace_groups", "string")
def regexp_replace_groups(
    string: Optional[str], pattern: Optional[str], replaced: Optional[list]
) -> Optional[str]:
    """``string`` with its successive matches of ``pattern`` replaced by ``replaced`` (the
    lambda's value for each match, computed in Spark from :func:`regexp_groups`)."""
    if string is None or pattern is None or replaced is None:
        return None
    out, last = [], 0
    for found, value in zip(_matches(string, pattern, 0), replaced):
        if value is None:
            return None
        out.append(string[last : found.start()])
        out.append(value)
        last = found.end()
    out.append(string[last:])
    return "".join(out)


@udf("regexp_groups", "array<array<string>>")
def regexp_groups(string: Optional[str], pattern: Optional[str]) -> Optional[list]:
    """The capturing groups of each successive match (NULL for a group that took no part)."""
    if string is None or pattern is None:
        return None
    return [list(found.groups()) for found in _matches(string, pattern, 0)]


def _mark_groups(node: exp.Expression) -> Optional[str]:
    """The lambda's argument of ``regexp_replace(s, p, x -> ...)`` is an array of the
    match's groups: marked so that ``x[1]`` is read as an array subscript."""
    replacement = node.args.get("replacement")
    if isinstance(replacement, exp.Lambda) and len(replacement.expressions) == 1:
        name = replacement.expressions[0].name
        for ref in replacement.this.find_all(exp.Column, exp.Identifier):
            if ref.name == name and not (isinstance(ref, exp.Column) and ref.table):
                ref.meta["athena_array"] = True
    return None


@rewrites(exp.RegexpReplace, "regexp_replace", _mark_groups)
def _regexp_replace(node: exp.Expression) -> exp.Expression:
    replacement = node.args.get("replacement")
    if not isinstance(replacement, exp.Lambda):
        return node
    if (
        len(replacement.expressions) != 1
        or node.args.get("position")
        or node.args.get("occurrence")
    ):
        raise Refused(f"{node.sql('athena')} (a lambda of one argument only)")
    pattern = _pattern(node, node.expression)
    groups = udf_call("regexp_groups", node.this, pattern)
    values = exp.Anonymous(this="transform", expressions=[groups, replacement])
    return typed(udf_call("regexp_replace_groups", node.this, pattern, values), "varchar")


# ---- math -----------------------------------------------------------------------------------
_cls: Any
for _cls, _name in (
    (exp.Cos, "cos"),
    (exp.Sin, "sin"),
    (exp.Tan, "tan"),
    (exp.Acos, "acos"),
    (exp.Asin, "asin"),
    (exp.Atan, "atan"),
    (exp.Atan2, "atan2"),
    (exp.Cosh, "cosh"),
    (exp.Sinh, "sinh"),
    (exp.Tanh, "tanh"),
):

    def _double_function(node: exp.Expression) -> exp.Expression:
        """Java's Math functions of doubles, in Spark as in Trino."""
        return typed(node, "double")

    rewrites(_cls, _name)(_double_function)


@rewrites("nan", "nan")
def _nan(node: exp.Expression) -> exp.Expression:
    return typed(spark("CAST('NaN' AS DOUBLE)"), "double")


@rewrites("infinity", "infinity")
def _infinity(node: exp.Expression) -> exp.Expression:
    return typed(spark("CAST('Infinity' AS DOUBLE)"), "double")


@rewrites("e", "e")
def _e(node: exp.Expression) -> exp.Expression:
    return typed(spark("e()"), "double")


@rewrites("is_finite", "is_finite")
def _is_finite(node: exp.Expression) -> exp.Expression:
    return typed(
        spark(
            "NOT isnan(CAST(_0 AS DOUBLE)) AND abs(CAST(_0 AS DOUBLE)) <> CAST('Infinity' AS DOUBLE)",
            *node.expressions,
        ),
        "boolean",
    )


@rewrites("is_infinite", "is_infinite")
def _is_infinite(node: exp.Expression) -> exp.Expression:
    return typed(
        spark("abs(CAST(_0 AS DOUBLE)) = CAST('Infinity' AS DOUBLE)", *node.expressions), "boolean"
    )


@udf("cosine_similarity_map", "double")
def cosine_similarity_map(left: Optional[dict], right: Optional[dict]) -> Optional[float]:
    """Trino's cosine_similarity of two map(varchar, double): NULL when a value is NULL."""
    if left is None or right is None:
        return None
    norms = []
    for side in (left, right):
        norm = 0.0
        for value in side.values():
            if value is None:
                return None
            norm += value * value
        norms.append(math.sqrt(norm))
    dot = 0.0
    for key, value in left.items():
        if key in right:
            dot += value * right[key]
    try:
        return dot / (norms[0] * norms[1])
    except ZeroDivisionError:
        return math.nan if dot == 0 else math.copysign(math.inf, dot)


def _cosine(node: exp.Expression, args: list, distance: bool) -> exp.Expression:
    kinds = [type_of(a) for a in args]
    if all(k is not None and k.this == exp.DataType.Type.MAP for k in kinds):
        for kind in kinds:
            assert kind is not None
            key = kind.expressions[0] if kind.expressions else None
            if not isinstance(key, exp.DataType) or key.this not in (
                exp.DataType.Type.VARCHAR,
                exp.DataType.Type.TEXT,
            ):
                raise Refused(f"{node.sql('athena')} (maps with varchar keys only)")
        maps = [spark("CAST(_0 AS MAP<STRING, DOUBLE>)", a) for a in args]
        similarity = udf_call("cosine_similarity_map", *maps)
        out = spark("1 - _0", similarity) if distance else similarity
        return typed(out, "double")
    call_node = exp.Anonymous(
        this="cosine_distance" if distance else "cosine_similarity", expressions=args
    )
    rewrite = functions.cosine_distance if distance else functions.cosine_similarity
    return typed(rewrite(call_node), "double")


functions.COSINE_OF_MAPS = _cosine


@rewrites(exp.CosineDistance, "cosine_distance")
def _cosine_distance(node: exp.Expression) -> exp.Expression:
    return _cosine(node, [node.this, node.expression], True)


# ---- conversion -----------------------------------------------------------------------------
_DATA_SIZE_UNITS = {
    "B": 0,
    "kB": 10,
    "MB": 20,
    "GB": 30,
    "TB": 40,
    "PB": 50,
    "EB": 60,
    "ZB": 70,
    "YB": 80,
}


@udf("parse_data_size", "decimal(38,0)")
def parse_data_size(text: Optional[str]) -> Optional[decimal.Decimal]:
    """Trino's parse_data_size: ``2.3MB`` is 2411724 bytes (the fraction dropped)."""
    if text is None:
        return None
    length = 0
    while length < len(text) and (text[length] in "0123456789." or text[length].isdigit()):
        length += 1
    unit = _DATA_SIZE_UNITS.get(text[length:])
    number = text[:length]
    if not number or unit is None or not re.fullmatch(r"\d+\.?\d*|\.\d+", number):
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Invalid data size: '{text}'")
    value = int(decimal.Decimal(number) * (2**unit))
    if abs(value) >= 10**38:
        raise AthenaError(f"NUMERIC_VALUE_OUT_OF_RANGE: Value out of range: '{text}' ('{value}B')")
    return decimal.Decimal(value)


@rewrites("parse_data_size", "parse_data_size")
def _parse_data_size(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("parse_data_size", *node.expressions), "decimal(38,0)")


def _java_half_up(value: float, digits: int) -> str:
    """Java's DecimalFormat("#.##") (HALF_UP, of the double's exact value) for ``digits``."""
    rounded = decimal.Decimal(value).quantize(
        decimal.Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP
    )
    text = f"{rounded:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", "0") and value < 0:
        return "-0"
    return text


@udf("format_number", "string")
def format_number(value: Any) -> Optional[str]:
    """Trino's format_number: 123456 is 123K, 1000000 is 1M (three significant digits)."""
    if value is None:
        return None
    if isinstance(value, float):  # a double: Java's (long) cast
        if math.isnan(value):
            count = 0
        else:
            count = (
                int(max(min(value, 2**63 - 1), -(2**63)))
                if math.isfinite(value)
                else (2**63 - 1 if value > 0 else -(2**63))
            )
    else:
        count = int(value)
    fractional = float(count)
    unit = ""
    for symbol in "KMBTQ":
        if fractional >= 1000 or fractional <= -1000:
            fractional /= 1000
            unit = symbol
    digits = 2 if fractional < 10 else (1 if fractional < 100 else 0)
    return _java_half_up(fractional, digits) + unit


@rewrites("format_number", "format_number")
def _format_number(node: exp.Expression) -> exp.Expression:
    [value] = node.expressions
    kind = type_of(value)
    if is_integral(kind):
        arg = spark("CAST(_0 AS BIGINT)", value)
    elif is_double(kind) or is_decimal(kind):
        arg = spark("CAST(_0 AS DOUBLE)", value)
    else:
        raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    return typed(udf_call("format_number", arg), "varchar")


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
    """Trino's contains(cidr, ipaddress)."""
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
        return False
    shift = bits - prefix
    return int.from_bytes(base, "big") >> shift == int.from_bytes(value, "big") >> shift


_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@udf("uuid", "string")
def to_uuid(text: Optional[str]) -> Optional[str]:
    if text is None:
        return None
    if not _UUID.fullmatch(text):
        raise Unsupported(f"the cast of {text!r} to UUID (not a UUID in its 8-4-4-4-12 form)")
    return text.lower()


def _text_source(node: exp.Expression, value: exp.Expression, source: Any) -> bool:
    literal = isinstance(value, exp.Literal) and value.is_string
    if literal or functions._is_text(source):
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
    text = _literal_text(value)
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


functions.CAST_TARGETS[T.IPADDRESS] = _opaque_cast
functions.CAST_TARGETS[T.UUID] = _opaque_cast


@rewrites(exp.Uuid, "uuid")
def _uuid(node: exp.Expression) -> exp.Expression:
    return typed(spark("uuid()"), "uuid")


def _opaque(node: Optional[exp.Expression]) -> bool:
    kind = type_of(node) if isinstance(node, exp.Expression) else None
    return kind is not None and kind.this in (T.IPADDRESS, T.UUID)


def _refuse_ordering(cls: type) -> None:
    """Wrap the table's entry of ``cls`` (an ordering of values): refused for ipaddress and
    uuid values, whose order is not their text's."""
    entry = functions.TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        args = [node.this, node.args.get("expression"), *node.expressions]
        if any(_opaque(a) for a in args):
            raise Refused(f"{node.sql('athena')} (ordering ipaddress or uuid values)")
        return entry.rewrite(node) if entry.rewrite is not None else node

    functions.TABLE.entries[cls] = functions.Entry(entry.name, rewrite, entry.check)


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
    if not (_literal_text(network) is not None or functions._is_text(type_of(network))):
        return None
    if not _opaque(address):
        raise Refused(f"{node.sql('athena')} (contains of a varchar and a value not an ipaddress)")
    return typed(udf_call("ip_contains", network, address), "boolean")


def _contains_of_ip(cls: type) -> None:
    entry = functions.TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        found = _ip_contains(node)
        if found is not None:
            return found
        return entry.rewrite(node) if entry.rewrite is not None else node

    functions.TABLE.entries[cls] = functions.Entry(entry.name, rewrite, entry.check)


_contains_of_ip(exp.ArrayContains)


# ---- machine learning -------------------------------------------------------------------------
@rewrites("features", "features")
def _features(node: exp.Expression) -> exp.Expression:
    """Trino's features(x, ...): map(bigint, double) of the arguments by position."""
    args = list(node.expressions)
    if not 1 <= len(args) <= 10:
        raise Refused(f"{node.sql('athena')} (1 to 10 arguments)")
    for arg in args:
        kind = type_of(arg)
        if not (is_integral(kind) or is_double(kind) or is_decimal(kind)):
            raise Refused(f"{node.sql('athena')} (of a value other than a number)")
    nulls = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    pairs = ", ".join(f"CAST({i} AS BIGINT), CAST(_{i} AS DOUBLE)" for i in range(len(args)))
    return typed(
        spark(f"CASE WHEN {nulls} THEN NULL ELSE map({pairs}) END", *args), "map(bigint, double)"
    )


# ---- binary -----------------------------------------------------------------------------------
@udf("from_utf8", "string")
def from_utf8(data: Optional[bytes], replacement: Any = None) -> Optional[str]:
    """Trino's from_utf8 of valid UTF-8 (how Trino replaces invalid bytes is not followed:
    refused)."""
    if data is None:
        return None
    if isinstance(replacement, str) and len(replacement) > 1:
        raise Unsupported("from_utf8 with a replacement of more than one character")
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise Unsupported("from_utf8 of bytes that are not valid UTF-8") from None


@rewrites(exp.Decode, "from_utf8")
def _from_utf8(node: exp.Expression) -> exp.Expression:
    charset = _literal_text(node.args.get("charset") or exp.Null())
    if (charset or "").lower() not in ("utf-8", "utf8"):
        raise Refused(f"{node.sql('athena')} (a charset other than UTF-8)")
    kind = type_of(node.this)
    if not (
        isinstance(node.this, exp.HexString)
        or (kind is not None and kind.this in (T.VARBINARY, T.BINARY))
    ):
        raise Refused(f"{node.sql('athena')} (of a value other than varbinary)")
    args = [node.this]
    if node.args.get("replace") is not None:
        args.append(node.args["replace"])
    return typed(udf_call("from_utf8", *args), "varchar")


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
    literal = _literal_text(node.this) is not None
    if not (literal or functions._is_text(type_of(node.this))):
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


# ---- format() with decimals: Java's Formatter for %s %d %f (Spark's has no BigDecimal) ---------
_SPECIFIER = re.compile(r"%(\d+\$)?([-#+ 0,(<]*)(\d+)?(\.\d+)?([tT][a-zA-Z]|[a-zA-Z%])")
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DATE_PARTS: Dict[str, Callable[[datetime.date], str]] = {
    "A": lambda d: _DAYS[d.weekday()],
    "a": lambda d: _DAYS[d.weekday()][:3],
    "B": lambda d: _MONTHS[d.month - 1],
    "b": lambda d: _MONTHS[d.month - 1][:3],
    "h": lambda d: _MONTHS[d.month - 1][:3],
    "C": lambda d: f"{d.year // 100:02d}",
    "Y": lambda d: f"{d.year:04d}",
    "y": lambda d: f"{d.year % 100:02d}",
    "j": lambda d: f"{d.timetuple().tm_yday:03d}",
    "m": lambda d: f"{d.month:02d}",
    "d": lambda d: f"{d.day:02d}",
    "e": lambda d: str(d.day),
    "D": lambda d: f"{d.month:02d}/{d.day:02d}/{d.year % 100:02d}",
    "F": lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}",
}


def _date_part(found: re.Match, value: Any, flags: str, width: Optional[int]) -> str:
    """Java's %t conversions of a LocalDate (Trino's date), in English."""
    conv = found.group(5)
    part = _DATE_PARTS.get(conv[1])
    if (
        part is None
        or type(value) is not datetime.date
        or found.group(4)
        or set(flags) - {"-"}
        or ("-" in flags and width is None)
    ):
        raise Unsupported(f"format with the specifier {found.group(0)} of {type(value).__name__}")
    text = part(value)
    return _pad(text.upper() if conv[0] == "T" else text, flags, width)


def _pad(text: str, flags: str, width: Optional[int]) -> str:
    if width is None:
        return text
    return text.ljust(width) if "-" in flags else text.rjust(width)


def _number_spec(flags: str, width: Optional[int], precision: Optional[int], conv: str) -> str:
    if set(flags) - set("-+ 0,") or (("-" in flags or "0" in flags) and width is None):
        raise Unsupported(f"format with the flags {flags!r}")
    if ("-" in flags and "0" in flags) or ("+" in flags and " " in flags):
        raise Unsupported(f"format with the flags {flags!r}")
    if "0" in flags and "," in flags:
        raise Unsupported("format with both the flags 0 and ,")
    sign = "+" if "+" in flags else (" " if " " in flags else "-")
    spec = ("<" if "-" in flags else "") + sign + ("0" if "0" in flags else "")
    spec += str(width or "") + ("," if "," in flags else "")
    return spec + (f".{precision}f" if conv == "f" else "d")


def java_format(fmt: str, values: tuple) -> str:
    """``fmt`` filled as Java's String.format does, for %s (text, integers, decimals), %d
    (integers), %f (decimals), %% and %n; anything else is refused."""
    out, last, ordinary = [], 0, [0]
    for found in _SPECIFIER.finditer(fmt):
        out.append(fmt[last : found.start()])
        last = found.end()
        out.append(_specifier(found, values, ordinary))
    out.append(fmt[last:])
    return "".join(out)


def _argument(found: re.Match, values: tuple, ordinary: list) -> Any:
    """The value a specifier formats: its explicit index, or the next ordinary one."""
    index = found.group(1)
    if index:
        position = int(index[:-1]) - 1
    else:
        position = ordinary[0]
        ordinary[0] += 1
    if not 0 <= position < len(values):
        raise Unsupported(f"format with the specifier {found.group(0)} (no such argument)")
    return values[position]


def _specifier(found: re.Match, values: tuple, ordinary: list) -> str:
    index, flags, width_text, precision_text, conv = found.groups()
    width = int(width_text) if width_text else None
    precision = int(precision_text[1:]) if precision_text else None
    if conv in "%n":
        if index or flags or width_text or precision_text:
            raise Unsupported(f"format with the specifier {found.group(0)}")
        return "%" if conv == "%" else "\n"
    if "<" in flags or (conv not in "sdf" and conv[0] not in "tT"):
        raise Unsupported(f"format with the specifier {found.group(0)}")
    value = _argument(found, values, ordinary)
    if conv[0] in "tT" and value is not None:
        return _date_part(found, value, flags, width)
    if conv == "s" or value is None:
        if set(flags) - {"-"} or ("-" in flags and width is None):
            raise Unsupported(f"format with the specifier {found.group(0)}")
        text = "null" if value is None else str(value)
        return _pad(text[:precision] if precision is not None else text, flags, width)
    integral = isinstance(value, int) and not isinstance(value, bool)
    if conv == "d" and integral and precision is None:
        return format(value, _number_spec(flags, width, None, "d"))
    if conv == "f" and isinstance(value, decimal.Decimal):
        digits = 6 if precision is None else precision
        rounded = value.quantize(decimal.Decimal(1).scaleb(-digits), decimal.ROUND_HALF_UP)
        return format(rounded, _number_spec(flags, width, digits, "f"))
    raise Unsupported(f"format with the specifier {found.group(0)} of {type(value).__name__}")


@udf("format", "string")
def format_values(fmt: Optional[str], *values: Any) -> Optional[str]:
    if fmt is None:
        return None
    stray = _SPECIFIER.sub("", fmt)
    if "%" in stray:
        raise Unsupported(f"format with the format string {fmt!r}")
    return java_format(fmt, values)


def _format_decimals(node: exp.Expression) -> exp.Expression:
    for arg in node.expressions:
        kind = type_of(arg)
        literal = _literal_text(arg) is not None
        known = is_integral(kind) or is_decimal(kind) or is_date(kind)
        if not (literal or known or functions._is_text(kind)):
            raise Refused(
                f"{node.sql('athena')} (format of a decimal with a value other than a decimal, integer or text)"
            )
    values = [
        spark("CAST(_0 AS BIGINT)", a) if is_integral(type_of(a)) else a for a in node.expressions
    ]
    return typed(udf_call("format", node.this, *values), "varchar")


functions.FORMAT_OF_DECIMALS = _format_decimals


# ---- geospatial: the distance between two points ----------------------------------------------
# ST_Point(x, y) is a Spark array of its coordinates; it runs only as an argument of
# ST_Distance (directly or through to_spherical_geography), never as a value of its own
# (Athena prints a geometry as WKT, whose number format the emulator does not follow).
def _point_only_in_distance(node: exp.Expression, spherical: bool) -> None:
    parent = node.parent
    if isinstance(parent, exp.StDistance):
        return
    named = isinstance(parent, exp.Anonymous) and str(parent.name).lower()
    if spherical and named == "to_spherical_geography":
        return
    raise Refused(f"{node.sql('athena')} (a geometry other than a point's distance)")


@rewrites(exp.StPoint, "ST_Point")
def _st_point(node: exp.Expression) -> exp.Expression:
    _point_only_in_distance(node, True)
    out = spark(
        "array(CAST(_0 AS DOUBLE), CAST(_1 AS DOUBLE))",
        node.this,
        node.expression,
    )
    out.type = exp.DataType(this=T.GEOMETRY)
    return out


@rewrites("to_spherical_geography", "to_spherical_geography")
def _to_spherical_geography(node: exp.Expression) -> exp.Expression:
    _point_only_in_distance(node, False)
    [point] = node.expressions
    kind = type_of(point)
    if kind is None or kind.this != T.GEOMETRY:
        raise Refused(f"{node.sql('athena')} (of a value other than ST_Point(x, y))")
    out = spark(
        "CASE WHEN isnan(_0[1]) OR abs(_0[1]) > 90 "
        "THEN raise_error('Latitude must be between -90 and 90') "
        "WHEN isnan(_0[0]) OR abs(_0[0]) > 180 "
        "THEN raise_error('Longitude must be between -180 and 180') ELSE _0 END",
        point,
    )
    out.type = exp.DataType(this=T.GEOGRAPHY)
    return out


_GREAT_CIRCLE = (
    "atan2(sqrt(power(cos(radians(_1[1])) * sin(radians(_0[0]) - radians(_1[0])), 2) + "
    "power(cos(radians(_0[1])) * sin(radians(_1[1])) - sin(radians(_0[1])) * cos(radians(_1[1])) "
    "* cos(radians(_0[0]) - radians(_1[0])), 2)), "
    "sin(radians(_0[1])) * sin(radians(_1[1])) + cos(radians(_0[1])) * cos(radians(_1[1])) "
    "* cos(radians(_0[0]) - radians(_1[0]))) * 6371.01 * 1000"
)


@rewrites(exp.StDistance, "ST_Distance")
def _st_distance(node: exp.Expression) -> exp.Expression:
    """Trino's ST_Distance of two points: Euclidean for geometries, the great-circle
    distance in meters (Earth's radius 6371.01 km) for spherical geographies."""
    kinds = {getattr(type_of(a), "this", None) for a in (node.this, node.expression)}
    if kinds == {T.GEOMETRY}:
        form = "sqrt((_0[0] - _1[0]) * (_0[0] - _1[0]) + (_0[1] - _1[1]) * (_0[1] - _1[1]))"
    elif kinds == {T.GEOGRAPHY}:
        form = _GREAT_CIRCLE
    else:
        raise Refused(f"{node.sql('athena')} (of values other than two points of one kind)")
    return typed(spark(form, node.this, node.expression), "double")


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
    elif not (functions._is_text(kind) or _literal_text(value) is not None):
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
    entry = functions.TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        if node.this.meta.get("athena_set_digest"):
            return typed(udf_call("set_digest_cardinality", node.this), "bigint")
        return entry.rewrite(node) if entry.rewrite is not None else node

    functions.TABLE.entries[cls] = functions.Entry(entry.name, rewrite, entry.check)


_cardinality_of_digests(exp.ArraySize)


# ---- ceil and floor: the argument's type kept, as Trino's -------------------------------------
@udf("ceil_double", "double")
def ceil_double(value: Optional[float]) -> Optional[float]:
    """Java's Math.ceil: NaN and the infinities unchanged, -0.5 is -0.0."""
    if value is None or not math.isfinite(value):
        return value
    return math.copysign(float(math.ceil(value)), value)


@udf("floor_double", "double")
def floor_double(value: Optional[float]) -> Optional[float]:
    """Java's Math.floor: NaN and the infinities unchanged, -0.0 stays -0.0."""
    if value is None or not math.isfinite(value):
        return value
    return math.copysign(float(math.floor(value)), value)


def _rounding(node: exp.Expression, name: str) -> exp.Expression:
    if node.args.get("decimals") is not None or node.args.get("to") is not None:
        raise Refused(f"{node.sql('athena')} (with a scale)")
    value = node.this
    kind = type_of(value)
    if is_integral(kind):
        assert kind is not None
        same_type = exp.Cast(this=value, to=kind.copy())
        same_type.type = kind
        return same_type
    if is_double(kind) and kind is not None and kind.this == T.DOUBLE:
        return typed(udf_call(f"{name}_double", value), "double")
    if is_decimal(kind):
        parts = functions.decimal_parts(kind)  # type: ignore[arg-type]
        if parts is not None:
            precision, scale = parts
            out = spark(
                f"CAST({name}(_0) AS DECIMAL({precision - scale + min(scale, 1)}, 0))", value
            )
            return typed(out, f"decimal({precision - scale + min(scale, 1)},0)")
    raise Refused(f"{node.sql('athena')} (of a value other than an integer, double or decimal)")


@rewrites(exp.Ceil, "ceil")
def _ceil(node: exp.Expression) -> exp.Expression:
    return _rounding(node, "ceil")


@rewrites(exp.Floor, "floor")
def _floor(node: exp.Expression) -> exp.Expression:
    return _rounding(node, "floor")


# ---- more binary and url functions --------------------------------------------------------------
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
    length = _literal_int(node.args.get("length") or exp.Literal.number(256))
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
    if not (_literal_text(node.this) is not None or functions._is_text(type_of(node.this))):
        raise Refused(f"{node.sql('athena')} (of a value other than varchar)")
    return typed(udf_call("from_hex", node.this), "varbinary")


_URL_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


@udf("url_encode", "string")
def url_encode(text: Optional[str]) -> Optional[str]:
    """Java's URLEncoder (UTF-8): letters, digits and . - * _ kept, a space is +."""
    if text is None:
        return None
    out = []
    for char in text:
        if char in _URL_SAFE:
            out.append(char)
        elif char == " ":
            out.append("+")
        else:
            out.append("".join(f"%{b:02X}" for b in char.encode("utf-8", "surrogatepass")))
    return "".join(out)


@udf("url_decode", "string")
def url_decode(text: Optional[str]) -> Optional[str]:
    """Java's URLDecoder (UTF-8): + is a space, %XX a byte."""
    if text is None:
        return None
    out = bytearray()
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%":
            digits = text[i + 1 : i + 3]
            if len(digits) != 2 or not re.fullmatch(r"[0-9a-fA-F]{2}", digits):
                raise Unsupported(f"url_decode of {text!r} (a malformed escape)")
            out.append(int(digits, 16))
            i += 3
            continue
        out.extend(b" " if char == "+" else char.encode("utf-8"))
        i += 1
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise Unsupported(f"url_decode of {text!r} (bytes that are not UTF-8)") from None


for _name in ("url_encode", "url_decode"):

    def _url_text(node: exp.Expression, name: str = _name) -> exp.Expression:
        [value] = node.expressions
        if not (_literal_text(value) is not None or functions._is_text(type_of(value))):
            raise Refused(f"{node.sql('athena')} (of a value other than varchar)")
        return typed(udf_call(name, value), "varchar")

    rewrites(_name, _name)(_url_text)


@udf("strpos", "bigint")
def strpos(text: Optional[str], part: Optional[str], instance: Optional[int]) -> Optional[int]:
    """Trino's strpos(string, substring, instance): the n-th occurrence from the start, or
    from the end when ``instance`` is negative; 0 when there is none."""
    if text is None or part is None or instance is None:
        return None
    if instance == 0:
        raise AthenaError(
            "INVALID_FUNCTION_ARGUMENT: 'instance' must be a positive or negative number."
        )
    if part == "":
        return 1
    data, needle = text.encode("utf-8"), part.encode("utf-8")
    found = 0
    if instance > 0:
        index = -1
        while found < instance:
            index = data.find(needle, index + 1)
            if index < 0:
                return 0
            found += 1
    else:
        index = len(data)
        while found < -instance:
            index = data.rfind(needle, 0, index - 1 + len(needle)) if index > 0 else -1
            if index < 0:
                return 0
            found += 1
    return len(data[:index].decode("utf-8")) + 1


def _strpos_instance(cls: type) -> None:
    entry = functions.TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        instance = node.args.get("occurrence")
        if instance is None or node.args.get("position") is not None:
            return entry.rewrite(node) if entry.rewrite is not None else node
        return typed(udf_call("strpos", node.this, node.args["substr"], instance), "bigint")

    functions.TABLE.entries[cls] = functions.Entry(entry.name, rewrite, entry.check)


_strpos_instance(exp.StrPosition)
