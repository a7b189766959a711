"""String functions and operators (Trino's ``functions/string.md``): ``||``, concat, length,
lower/upper, lpad, replace, split, split_part, strpos, substr, trim, title_case,
luhn_check, codepoint, soundex, hamming_distance, split_to_map, the Unicode functions (to_utf8, from_utf8) and ``U&'...'`` literals. Examples:
``tests/conformance/examples/string.yml``.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, List, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.comparison import (
    merged_type,
    named_as,
    type_text,
    unwrapped,
)
from athena_spark_emulator.sql.functions.table import TABLE, Entry, Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    call,
    is_date,
    is_decimal,
    is_double,
    is_integral,
    is_timestamp,
    literal_int,
    literal_text,
    spark,
    type_of,
    typed,
    wider_integral,
)
from athena_spark_emulator.sql.udfs import AthenaError, Unsupported, udf, udf_call

T = exp.DataType.Type
_cls: Any
_name: str


@rewrites(exp.DPipe, "||")
def concat_operator(node: exp.Expression) -> exp.Expression:
    """Trino's ``||`` of arrays (ArrayConcatFunction, ArrayToElementConcatFunction,
    ElementToArrayConcatFunction): an array(E) of the arrays' or the array's and the
    element's common type E, which the result keeps (a CAST of it to JSON writes dates as
    dates); of text, concat."""
    left, right = type_of(node.this), type_of(node.expression)
    arrays = [k is not None and k.this == exp.DataType.Type.ARRAY for k in (left, right)]
    parts = (node.this, node.expression)
    if arrays[0] and arrays[1]:
        assert left is not None and right is not None
        _ambiguous_concat(left, right)
        inner_left = left.expressions[0] if left.expressions else None
        inner_right = right.expressions[0] if right.expressions else None
        if inner_right is not None and inner_right == left:  # element || array of them
            return _array_of(spark("concat(array(_0), _1)", *parts), [inner_right])
        if inner_left is not None and inner_left == right:
            return _array_of(spark("concat(_0, array(_1))", *parts), [inner_left])
        out = spark("concat(_0, _1)", *parts)
        return _array_of(out, _elements(node.this, left) + _elements(node.expression, right))
    if arrays[0]:
        out = spark("concat(_0, array(_1))", *parts)
        return _array_of(out, [*_elements(node.this, left), right])
    if arrays[1]:
        out = spark("concat(array(_0), _1)", *parts)
        return _array_of(out, [left, *_elements(node.expression, right)])
    strings = [
        (isinstance(n, exp.Literal) and n.is_string)
        or (k is not None and k.this in (T.VARCHAR, T.TEXT, T.CHAR))
        for n, k in ((node.this, left), (node.expression, right))
    ]
    if not any(strings):
        raise Refused(f"the operator || in {node.sql('athena')}", "operand types unknown")
    return spark("concat(_0, _1)", *parts)


def _elements(array: exp.Expression, kind: Optional[exp.DataType]) -> List[Optional[exp.DataType]]:
    """The types of an array's elements: each value's of an ARRAY[...] literal (its
    annotation takes the first one's: ARRAY[3, 40000000000] holds a bigint), else the
    element type of its ``kind``."""
    literal = unwrapped(array)
    if isinstance(literal, exp.Array):
        return [type_of(v) for v in literal.expressions if not isinstance(v, exp.Null)]
    return [kind.expressions[0] if kind is not None and kind.expressions else None]


def _common_element(kinds: List[Optional[exp.DataType]]) -> Optional[exp.DataType]:
    """The common super type of ``kinds`` (TypeCoercion.getCommonSuperType) where it is one
    of them or a wider integral type (bigint of integer and bigint) or a double or real of
    numbers; None otherwise (a decimal, an unknown type: not modelled here)."""
    if not kinds or any(k is None or k.this in (T.UNKNOWN, T.NULL) for k in kinds):
        return None
    known = [k for k in kinds if k is not None]
    if all(k == known[0] for k in known):
        return known[0]
    if all(is_integral(k) for k in known):
        common = known[0]
        for k in known[1:]:
            common = wider_integral(common, k)
        return common
    if all(is_integral(k) or is_double(k) for k in known):
        return merged_type(list(known))  # the double (or real) one
    return None


def _array_type(element: exp.DataType) -> exp.DataType:
    return exp.DataType(this=T.ARRAY, expressions=[element], nested=True)


def _array_of(out: exp.Expression, kinds: List[Optional[exp.DataType]]) -> exp.Expression:
    """``out`` typed array(E), E the common type of the elements' ``kinds``; left to the
    annotation where that is not known."""
    common = _common_element(kinds)
    if common is None:
        return out
    name = type_text(common)
    if name is not None:  # what typeof names
        named_as(out, f"array({name})")
    return typed(out, _array_type(common))


def _ambiguous_concat(left: exp.DataType, right: exp.DataType) -> None:
    """``ARRAY[ARRAY[1]] || ARRAY[NULL]``: an array(unknown) beside an array of arrays is
    both an array to concatenate (concat(array(E)), E array(integer)) and an element to
    append (concat(array(E), E)), and neither reading needs fewer coercions, so Trino's
    FunctionResolver fails AMBIGUOUS_FUNCTION_CALL (TestArrayOperators.testConcat: "The
    result can be [[1], NULL] or [[1], [NULL]] depending on interpretation")."""
    inner = [k.expressions[0] if k.expressions else None for k in (left, right)]
    unknown = [i is not None and i.this in (T.UNKNOWN, T.NULL) for i in inner]
    nested = [i is not None and i.this == T.ARRAY for i in inner]
    if (unknown[0] and nested[1]) or (unknown[1] and nested[0]):
        shown = ", ".join(_type_name(k) for k in (left, right))
        raise Fails(
            "AMBIGUOUS_FUNCTION_CALL: Could not choose a best candidate operator. Explicit "
            f"type casts must be added (concat({shown}): both concat(array(E)) and the "
            "element forms concat(array(E), E), concat(E, array(E)) apply; cast the array(unknown) "
            "side, e.g. "
            "CAST(ARRAY[NULL] AS array(array(integer))))"
        )


def _type_name(kind: exp.DataType) -> str:
    """``kind`` as Trino names it in a message (a NULL's type is unknown)."""
    return type_text(kind) or kind.sql("athena").lower().replace("null", "unknown")


# ---- strings --------------------------------------------------------------------------------
for _cls, _name in (
    (exp.Upper, "upper"),
    (exp.Lower, "lower"),
    (exp.Reverse, "reverse"),
):
    same(_cls, _name)


def _text_args(node: exp.Expression) -> Optional[str]:
    """Trino has no implicit cast to varchar: a number or date argument fails."""
    for arg in (node.this, *node.expressions):
        kind = type_of(arg) if isinstance(arg, exp.Expression) else None
        if kind is not None and (
            is_integral(kind)
            or is_double(kind)
            or is_decimal(kind)
            or is_date(kind)
            or is_timestamp(kind)
        ):
            raise Fails(
                f"FUNCTION_NOT_FOUND: Unexpected parameters ({kind.sql('athena').lower()}) "
                f"for function {node.sql('athena').split('(')[0].lower()}"
            )
    return None


@rewrites(exp.Length, "length")
def length(node: exp.Expression) -> exp.Expression:
    _text_args(node)
    return node


@rewrites(exp.Concat, "concat")
def concat(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) < 2:
        raise Fails("INVALID_FUNCTION_ARGUMENT: There must be two or more concatenation arguments")
    _char_concat_size(node.expressions)
    return node


_CHAR_MAX = 65536  # Trino's CharType.MAX_LENGTH


def _char_concat_size(args: list) -> None:
    """concat(char(x), char(y)) is char(x + y) in Trino (CharacterStringCasts' concat of
    chars, StringFunctions): past CharType.MAX_LENGTH that type does not exist and the
    statement fails TYPE_NOT_FOUND."""
    kinds = [type_of(a) for a in args]
    if len(args) != 2 or not all(k is not None and k.this == T.CHAR for k in kinds):
        return
    sizes = [literal_int(k.expressions[0].this) if k and k.expressions else 1 for k in kinds]
    if all(size is not None for size in sizes) and sum(s or 0 for s in sizes) > _CHAR_MAX:
        raise Fails(f"TYPE_NOT_FOUND: Unknown type: char({sum(s or 0 for s in sizes)})")


@rewrites(exp.Replace, "replace")
def replace(node: exp.Expression) -> exp.Expression:
    """Trino's replace(string, search[, replace]) (StringFunctions.replace): an empty search
    puts the replacement before each code point and at the end ('abc', '', 'x' gives
    'xaxbxcx'; '' gives 'x'), where Spark's replace leaves the string as it is."""
    replacement = node.args.get("replacement")
    if replacement is None:
        return node
    out = spark(
        "CASE WHEN _1 = '' THEN concat(_2, array_join(split(_0, ''), _2), "
        "CASE WHEN _0 = '' THEN '' ELSE _2 END) ELSE replace(_0, _1, _2) END",
        node.this,
        node.expression,
        replacement,
    )
    # Trino's return type: varchar(min(2147483647, x + z * (x + 1))) of varchar(x), varchar(z)
    size, inserted = _varchar_size(node.this), _varchar_size(replacement)
    if size is None or inserted is None:
        return out
    return typed(out, f"varchar({min(2**31 - 1, size + inserted * (size + 1))})")


def _varchar_size(node: exp.Expression) -> Optional[int]:
    """x of a varchar(x) value (a string literal's length); None: unknown or unbounded."""
    text = literal_text(node)
    if text is not None:
        return len(text)
    kind = type_of(node)
    if kind is not None and kind.this in (T.VARCHAR, T.CHAR) and kind.expressions:
        return literal_int(kind.expressions[0].this)
    return None


@rewrites(exp.StrPosition, "strpos")
def strpos_(node: exp.Expression) -> exp.Expression:
    if node.args.get("position") is not None or node.args.get("occurrence") is not None:
        raise Refused(f"strpos with an instance ({node.sql('athena')})")
    return spark("locate(_1, _0)", node.this, node.args["substr"])


@rewrites(exp.Substring, "substr")
def substr(node: exp.Expression) -> exp.Expression:
    """Trino's substr(string, start[, length]) (StringFunctions.substr): start 0, or a
    negative start before the string's first character, gives '' (Spark's substring
    starts such a call at the first character): the start is moved past the end, where
    Spark's substring is '' too. The call stays a substring (its type as before)."""
    start = exp.paren(node.args["start"].copy())
    moved = spark(
        "CASE WHEN _1 = 0 OR _1 < -length(_0) THEN length(_0) + 1 ELSE _1 END",
        node.this.copy(),
        start,
    )
    node.set("start", moved)
    return node


@rewrites(exp.SplitPart, "split_part")
def split_part(node: exp.Expression) -> exp.Expression:
    """Trino's split_part(string, delimiter, index) (StringFunctions.splitPart): the
    index-th part (from 1; NULL past the last), the delimiter matched as plain text; an
    empty delimiter splits into code points; an index below 1 fails. A delimiter that is
    not a literal (a column) is quoted for Spark's regular-expression split as Java's
    Pattern.quote does (\\Q...\\E, each \\E inside closed and reopened)."""
    delimiter = node.args["delimiter"]
    index = node.args["part_index"]
    if isinstance(delimiter, exp.Literal) and delimiter.is_string and delimiter.this:
        pattern: exp.Expression = exp.Literal.string(re.escape(delimiter.this))
        parts = call("try_element_at", spark("split(_0, _1, -1)", node.this, pattern), index)
    else:
        pattern = spark(
            "concat('\\\\Q', replace(_0, '\\\\E', '\\\\E\\\\\\\\E\\\\Q'), '\\\\E')", delimiter
        )
        parts = spark(
            "CASE WHEN _0 = '' THEN CASE WHEN _2 <= length(_1) THEN substring(_1, _2, 1) END "
            "ELSE try_element_at(split(_1, _3, -1), _2) END",
            delimiter,
            node.this,
            index,
            pattern,
        )
    return spark(
        "CASE WHEN _0 < 1 THEN raise_error('Index must be greater than zero') ELSE _1 END",
        index,
        parts,
    )


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.Translate, "translate"),
    (exp.StartsWith, "starts_with"),
    (exp.Levenshtein, "levenshtein_distance"),
    (exp.Encode, "to_utf8"),
):
    same(_cls, _name)

same(exp.Overlay, "overlay")


# Java's Character.isWhitespace, the whitespace airlift's SliceUtf8.trim/leftTrim/rightTrim
# remove (U+2028 and the other Unicode spaces too; Spark's trim removes ' ' only).
_WHITESPACE = "\\p{javaWhitespace}+"
_WHITESPACE_AT = {
    "LEADING": f"^{_WHITESPACE}",
    "TRAILING": f"{_WHITESPACE}\\z",
    "BOTH": f"^{_WHITESPACE}|{_WHITESPACE}\\z",
}


@rewrites(exp.Trim, "trim")
def trim(node: exp.Expression) -> exp.Expression:
    """Trino's trim/ltrim/rtrim (StringFunctions): without characters, the whitespace of
    Java's Character.isWhitespace at that end (SliceUtf8); with them, the longest run of
    those code points (Spark's TRIM ... FROM). A char(x) value is its text without the
    padding; trim/rtrim of one with characters then drop trailing spaces again
    (StringFunctions.charTrim/charRightTrim's trimTrailingSpaces). The result is varchar(x)
    for a char(x) or a varchar(x)."""
    kind = type_of(node.this)
    char = kind is not None and kind.this == T.CHAR
    value = spark("rtrim(_0)", node.this) if char else node.this  # Spark's rtrim: ' ' only
    position = str(node.args.get("position") or "BOTH").upper()
    chars = node.expression
    out: exp.Expression
    if chars is None:
        pattern = exp.Literal.string(_WHITESPACE_AT.get(position, _WHITESPACE_AT["BOTH"]))
        out = spark("regexp_replace(_0, _1, '')", value, pattern)
    else:
        out = node.copy()
        out.set("this", value)
        if char and position != "LEADING":
            out = spark("rtrim(_0)", out)
    size = _varchar_size(node.this)
    if size is not None:
        return typed(out, f"varchar({size})")
    if kind is not None and kind.this == T.VARCHAR:
        return typed(out, "varchar")
    return out


@rewrites(exp.Pad, "lpad")
def pad(node: exp.Expression) -> exp.Expression:
    """Trino's lpad/rpad(string, size, padstring) (StringFunctions.pad; of varbinary
    VarbinaryFunctions.pad, 'Padding bytes'): a size outside [0..2147483647] or an empty
    pad fails (whether or not padding is needed); else Spark's lpad/rpad (truncated to
    size, padded by repeating the pad)."""
    size, fill = node.expression, node.args.get("fill_pattern")
    if fill is None:
        return node
    name = "lpad" if node.args.get("is_left") else "rpad"
    kind = type_of(node.this) or type_of(fill)
    binary = kind is not None and kind.this in (T.VARBINARY, T.BINARY)
    empty = "Padding bytes must not be empty" if binary else "Padding string must not be empty"
    return spark(
        "CASE WHEN _1 < 0 OR _1 > 2147483647 THEN raise_error("
        "'Target length must be in the range [0..2147483647]') "
        f"WHEN length(_2) = 0 THEN raise_error('{empty}') "
        f"ELSE {name}(_0, _1, _2) END",
        node.this,
        size,
        fill,
    )


@rewrites(exp.Chr, "chr")
def chr_(node: exp.Expression) -> exp.Expression:
    """Trino's chr(n): the code point n as a one-character string (Spark's chr is a byte,
    n modulo 256): the UDF :func:`code_point`."""
    return typed(udf_call("chr", *node.expressions), "varchar(1)")


@udf("chr", "string")
def code_point(number: Optional[int]) -> Optional[str]:
    """StringFunctions.chr: SliceUtf8.codePointToUtf8 of the number (saturated to an int),
    failing for a negative number, a surrogate (U+D800..U+DFFF) or one past U+10FFFF."""
    if number is None:
        return None
    if not 0 <= number <= 0x10FFFF or 0xD800 <= number <= 0xDFFF:
        raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Not a valid Unicode code point: {number}")
    return chr(number)


def _concat_ws_check(node: exp.Expression) -> Optional[str]:
    if len(node.expressions) < 2:  # ConcatWsFunction's own check
        raise Fails("INVALID_FUNCTION_ARGUMENT: There must be two or more arguments")
    return None


_TEXT = (T.VARCHAR, T.CHAR, T.TEXT, T.NCHAR, T.NVARCHAR, T.UNKNOWN, T.NULL)


def _athena_type_name(node: exp.Expression, kind: Optional[exp.DataType]) -> str:
    text = literal_text(node)
    if text is not None:
        return f"varchar({len(text)})"
    return kind.sql("athena").lower() if kind is not None else "unknown"


@rewrites(exp.ConcatWs, "concat_ws", _concat_ws_check)
def concat_ws(node: exp.Expression) -> exp.Expression:
    """Trino's concat_ws(varchar, varchar, ...) or concat_ws(varchar, array(varchar))
    (ConcatWsFunction; NULLs left out, a NULL separator NULL: Spark's concat_ws). An
    argument the translation knows is of another type (a number, ...) is no signature of
    it: Athena fails FUNCTION_NOT_FOUND 'Unexpected parameters ... for function concat_ws'
    (Spark would turn numbers into text)."""
    args = list(node.expressions)
    kinds = [type_of(a) for a in args]

    def text_or_array(kind: Optional[exp.DataType], position: int) -> bool:
        if kind is None or kind.this in _TEXT:
            return True
        if kind.this == T.ARRAY and position == 1 and len(args) == 2:
            element = kind.expressions[0] if kind.expressions else None
            return not isinstance(element, exp.DataType) or element.this in _TEXT
        return False

    if not all(text_or_array(k, i) for i, k in enumerate(kinds)):
        listed = ", ".join(_athena_type_name(a, k) for a, k in zip(args, kinds))
        raise Fails(
            f"FUNCTION_NOT_FOUND: Unexpected parameters ({listed}) for function concat_ws. "
            "Expected: concat_ws(varchar, array(varchar)), concat_ws(varchar, varchar)"
        )
    if len(args) == 2 and kinds[1] is not None and kinds[1].this == T.ARRAY:
        # ConcatWsFunction's array form: a NULL array is NULL (Spark's concat_ws gives '')
        return typed(
            spark("CASE WHEN _1 IS NOT NULL THEN _2 END", args[0], args[1], node), "varchar"
        )
    return node


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
        escape = literal_text(escape_node) or ""
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
    delimiter = literal_text(node.expression)
    if delimiter is None:
        raise Refused(f"split with a delimiter that is not a literal ({node.sql('athena')})")
    if delimiter == "":
        raise Fails("INVALID_FUNCTION_ARGUMENT: The delimiter may not be the empty string")
    pattern = exp.Literal.string(re.escape(delimiter))
    limit = node.args.get("limit")
    if limit is None:
        return typed(spark("split(_0, _1, -1)", node.this, pattern), "array(varchar)")
    value = literal_int(limit)
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


# ---- from_utf8 (Unicode functions) -----------------------------------------------------------
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
    charset = literal_text(node.args.get("charset") or exp.Null())
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
    entry = TABLE.entries[cls]

    def rewrite(node: exp.Expression) -> exp.Expression:
        instance = node.args.get("occurrence")
        if instance is None or node.args.get("position") is not None:
            return entry.rewrite(node) if entry.rewrite is not None else node
        return typed(udf_call("strpos", node.this, node.args["substr"], instance), "bigint")

    TABLE.entries[cls] = Entry(entry.name, rewrite, entry.check)


_strpos_instance(exp.StrPosition)


# ---- codepoint, soundex, hamming_distance, split_to_map ------------------------------------
@rewrites("codepoint", "codepoint")
def _codepoint(node: exp.Expression) -> exp.Expression:
    """codepoint(varchar(1)) -> integer: Athena types a one-character literal varchar(1);
    any other value it fails at analysis, refused here."""
    [value] = node.expressions
    text = literal_text(value)
    kind = type_of(value)
    if text is None and kind is not None and kind.sql("athena").lower() == "varchar(1)":
        return typed(spark("CAST(ascii(_0) AS INT)", value), "integer")  # e.g. of chr(n)
    if text is None or len(text) != 1:
        raise Refused(
            f"{node.sql('athena')} (codepoint of a value other than a one-character literal)"
        )
    return typed(spark(f"CAST({ord(text)} AS INT)"), "integer")


_SOUNDEX = dict(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "01230120022455012623010202"))


@udf("soundex", "string")
def soundex(text: Optional[str]) -> Optional[str]:
    """Apache commons-codec's Soundex.US_ENGLISH, as Trino calls it: the letters only,
    upper-cased; the first kept, then the digits of the others, vowels and repeats dropped,
    H and W ignored altogether, padded with 0 to four characters ('' without letters)."""
    if text is None:
        return None
    letters = [c.upper() for c in text if c.isalpha()]
    if not letters:
        return ""
    if any(c not in _SOUNDEX for c in letters):
        raise Unsupported(f"soundex of {text!r} (a letter outside A-Z: commons-codec fails it)")
    out = [letters[0]]
    last = _SOUNDEX[letters[0]]
    for char in letters[1:]:
        if len(out) == 4:
            break
        if char in "HW":
            continue
        digit = _SOUNDEX[char]
        if digit != "0" and digit != last:
            out.append(digit)
        last = digit
    return "".join(out).ljust(4, "0")


@rewrites(exp.Soundex, "soundex")
def _soundex(node: exp.Expression) -> exp.Expression:
    return typed(udf_call("soundex", node.this), "varchar(4)")


@udf("hamming_distance", "bigint")
def hamming_distance(left: Optional[str], right: Optional[str]) -> Optional[int]:
    """The positions (code points) at which two strings of one length differ."""
    if left is None or right is None:
        return None
    if len(left) != len(right):
        raise AthenaError(
            "INVALID_FUNCTION_ARGUMENT: The input strings to hamming_distance function must "
            "have the same length"
        )
    return sum(1 for a, b in zip(left, right) if a != b)


@rewrites("hamming_distance", "hamming_distance")
def _hamming_distance(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(f"{node.sql('athena')} (two arguments)")
    return typed(udf_call("hamming_distance", *node.expressions), "bigint")


def split_entries(text: str, entry: str, pair: str, quoted: bool) -> Iterator[Tuple[str, str]]:
    """The (key, value) of each entry of ``text`` as SplitToMapFunction and
    SplitToMultimapFunction split it, one at a time (so an error comes where Trino meets
    it): their delimiter checks and texts, the bad entry quoted (split_to_map) or not
    (split_to_multimap)."""
    if not entry:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: entryDelimiter is empty")
    if not pair:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: keyValueDelimiter is empty")
    if entry == pair:
        raise AthenaError(
            "INVALID_FUNCTION_ARGUMENT: entryDelimiter and keyValueDelimiter must not be the same"
        )
    start = 0
    while start < len(text):
        end = text.find(entry, start)
        item = text[start:end] if end >= 0 else text[start:]
        key_end = item.find(pair)
        value = item[key_end + len(pair) :]
        if key_end < 0 or pair in value:
            bad = f"'{item}'" if quoted else item
            raise AthenaError(
                "INVALID_FUNCTION_ARGUMENT: Key-value delimiter must appear exactly once in "
                f"each entry. Bad input: {bad}"
            )
        yield item[:key_end], value
        if end < 0:
            break
        start = end + len(entry)


@udf("split_to_map", "map<string,string>")
def split_to_map(text: Optional[str], entry: Optional[str], pair: Optional[str]) -> Optional[dict]:
    """Trino's SplitToMapFunction: its checks, its texts, no duplicate key."""
    if text is None or entry is None or pair is None:
        return None
    out: dict = {}
    for key, value in split_entries(text, entry, pair, quoted=True):
        if key in out:
            raise AthenaError(f"INVALID_FUNCTION_ARGUMENT: Duplicate keys ({key}) are not allowed")
        out[key] = value
    return out


@rewrites(exp.StrToMap, "split_to_map")
def _split_to_map(node: exp.Expression) -> exp.Expression:
    args = [node.this, node.args.get("pair_delim"), node.args.get("key_value_delim")]
    if any(a is None for a in args) or node.args.get("duplicate_resolution_callback"):
        raise Refused(
            f"{node.sql('athena')} (split_to_map(string, entryDelimiter, keyValueDelimiter))"
        )
    return typed(udf_call("split_to_map", *args), "map<varchar, varchar>")
