"""URL functions (Trino's ``functions/url.md``): url_extract_* (port and parameter too), url_encode and url_decode.
Examples: ``tests/conformance/examples/url.yml``.
"""

from __future__ import annotations

import re
from typing import Optional
from urllib.parse import unquote

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import call, is_text, literal_text, spark, type_of, typed
from athena_spark_emulator.sql.udfs import Unsupported, udf, udf_call

_name: str


@udf("uri_decode", "string")
def uri_decode(text: Optional[str]) -> Optional[str]:
    """java.net.URI's decoding of a raw component (getPath, getQuery, getFragment): each
    %XX a byte, the bytes UTF-8 (a malformed sequence replaced); '+' stays '+'."""
    if text is None or "%" not in text:
        return text
    return unquote(text, errors="replace")


# Trino: java.net.URI's getScheme, getHost, getPath, getQuery, getFragment, a part the URL
# lacks is '' (nullToEmpty), an invalid URL NULL. Spark's parse_url gives the raw (still
# %-encoded) path, query and fragment, NULL for a missing part, and fails an invalid URL
# (spark.sql.ansi.enabled): the failure stays, it is no answer different from Athena's.
for _name, _url_part, _decoded in (
    ("url_extract_protocol", "PROTOCOL", False),
    ("url_extract_host", "HOST", False),
    ("url_extract_path", "PATH", True),
    ("url_extract_query", "QUERY", True),
    ("url_extract_fragment", "REF", True),
):

    def _url(
        node: exp.Expression, part: str = _url_part, decoded: bool = _decoded
    ) -> exp.Expression:
        [url] = node.expressions
        value = call("parse_url", url, exp.Literal.string(part))
        if decoded:
            value = udf_call("uri_decode", value)
        return typed(
            spark("CASE WHEN _0 IS NULL THEN NULL ELSE coalesce(_1, '') END", url, value), "varchar"
        )

    rewrites(_name, _name)(_url)


@rewrites("url_extract_port", "url_extract_port")
def _url_extract_port(node: exp.Expression) -> exp.Expression:
    """java.net.URI's getPort: the digits after the host, NULL without them, or when the
    authority is not a server's (no host: getHost is NULL) or the port passes an int."""
    [url] = node.expressions
    port = (
        "CASE WHEN parse_url(_0, 'HOST') IS NULL THEN NULL ELSE try_cast(nullif(regexp_extract("
        "parse_url(_0, 'AUTHORITY'), '^(?:[^@]*@)?(?:\\\\[[^\\\\]]*\\\\]|[^:]*):([0-9]*)$', 1), '') AS BIGINT) END"
    )
    return typed(
        spark("CASE WHEN _1 > 2147483647 THEN NULL ELSE _1 END", url, spark(port, url)), "bigint"
    )


@rewrites("url_extract_parameter", "url_extract_parameter")
def _url_extract_parameter(node: exp.Expression) -> exp.Expression:
    """Trino's: the raw query split on '&', the first argument whose name (before its first
    '=') is ``name``: its value URL-decoded, '' when it has no '='; NULL when none is."""
    url, name = node.expressions
    first = spark(
        "get(filter(split(parse_url(_0, 'QUERY'), '&'), athena_a -> split(athena_a, '=', 2)[0] = _1), 0)",
        url,
        name,
    )
    text = "CASE WHEN _0 IS NULL THEN NULL WHEN instr(_0, '=') = 0 THEN '' ELSE _1 END"
    value = udf_call("url_decode", spark("substr(_0, instr(_0, '=') + 1)", first))
    return typed(spark(text, first, value), "varchar")


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
        if not (literal_text(value) is not None or is_text(type_of(value))):
            raise Refused(f"{node.sql('athena')} (of a value other than varchar)")
        return typed(udf_call(name, value), "varchar")

    rewrites(_name, _name)(_url_text)
