"""URL functions (Trino's ``functions/url.md``): url_extract_*, url_encode and url_decode.
Examples: ``tests/conformance/examples/url.yml``.
"""

from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import call, is_text, literal_text, type_of, typed
from athena_spark_emulator.sql.udfs import Unsupported, udf, udf_call

_name: str


for _name, _url_part in (
    ("url_extract_protocol", "PROTOCOL"),
    ("url_extract_host", "HOST"),
    ("url_extract_path", "PATH"),
    ("url_extract_query", "QUERY"),
    ("url_extract_fragment", "REF"),
):

    def _url(node: exp.Expression, part: str = _url_part) -> exp.Expression:
        return call("parse_url", node.expressions[0], exp.Literal.string(part))

    rewrites(_name, _name)(_url)

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
