"""Regular expression functions (Trino's ``functions/regexp.md``): regexp_like,
regexp_extract(_all), regexp_count, regexp_position, regexp_replace (with a lambda too)
and regexp_split. Examples: ``tests/conformance/examples/regexp.yml``.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import literal_int, literal_text, spark, type_of, typed
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

_cls: Any
_name: str


# verified as sqlglot renders them (Spark's function has Trino's semantics)
for _cls, _name in (
    (exp.RegexpLike, "regexp_like"),
    (exp.RegexpCount, "regexp_count"),
):
    same(_cls, _name)


def _keep_type(node: exp.Expression, out: exp.Expression) -> exp.Expression:
    kind = type_of(node)
    return typed(out, kind) if kind is not None else out


@rewrites(exp.RegexpSplit, "regexp_split")
def _regexp_split(node: exp.Expression) -> exp.Expression:
    """Trino's regexp_split (JoniRegexpFunctions.regexpSplit) with the empty pattern: it
    matches before each code point and at the end, so the parts are '', each code point,
    '' (``regexp_split('ab', '')`` is ``['', 'a', 'b', '']``, of '' ``['', '']``); Spark's
    split by '' gives the code points alone."""
    if literal_text(node.expression) != "":
        return node
    out = spark(
        "CASE WHEN _0 = '' THEN array('', '') ELSE concat(array(''), split(_0, ''), array('')) END",
        node.this,
    )
    return _keep_type(node, out)


# ---- regular expressions ----------------------------------------------------------------------
# Python's re agrees with Trino's (Java-syntax) patterns on the common constructs, with
# re.ASCII (\d \w \s \b are ASCII in both); what may differ is refused. ``$`` is the end or
# before a final newline in both (Trino compiles with joni's Java syntax, whose SINGLELINE
# option makes ``$`` joni's SEMI_END_BUF; Python's ``$`` without MULTILINE is the same).
_REGEX_REFUSED = re.compile(r"\(\?|\\[pPZzhHQERXGKec0NAxV]|&&|\[:|\[\[|\{,|\\[1-9]\d")


def _pattern(node: exp.Expression, pattern: exp.Expression) -> exp.Expression:
    text = literal_text(pattern)
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


def _with_group(pattern: str, group: int) -> re.Pattern:
    """``pattern`` compiled, with Trino's errors for a group it does not have."""
    compiled = re.compile(pattern, re.ASCII)
    if group < 0:
        raise AthenaError("INVALID_FUNCTION_ARGUMENT: Group cannot be negative")
    if group > compiled.groups:
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: Pattern has {compiled.groups} groups. "
            f"Cannot access group {group}"
        )
    return compiled


@udf("regexp_extract_group", "string")
def regexp_extract_group(
    string: Optional[str], pattern: Optional[str], group: Optional[int]
) -> Optional[str]:
    """Trino's regexp_extract of a group: NULL when nothing matches or the group took no
    part in the match (Spark's regexp_extract gives '' for both)."""
    if string is None or pattern is None or group is None:
        return None
    found = _with_group(pattern, group).search(string)
    return None if found is None else found.group(group)


@rewrites(exp.RegexpExtract, "regexp_extract")
def _regexp_extract(node: exp.Expression) -> exp.Expression:
    """NULL when nothing matches (Spark: ''). The whole match (group 0) is Spark's; a group
    runs as a UDF, which tells a group that took no part (NULL in Trino) from an empty one."""
    group = node.args.get("group")
    if group is None or literal_int(group) == 0:
        return typed(
            spark(
                "CASE WHEN _0 RLIKE _1 THEN regexp_extract(_0, _1, 0) ELSE NULL END",
                node.this,
                node.expression,
            ),
            "varchar",
        )
    pattern = _pattern(node, node.expression)
    return typed(udf_call("regexp_extract_group", node.this, pattern, group), "varchar")


@udf("regexp_extract_all_group", "array<string>")
def regexp_extract_all_group(
    string: Optional[str], pattern: Optional[str], group: Optional[int]
) -> Optional[list]:
    """Trino's regexp_extract_all of a group: the group of each successive match, NULL
    where it took no part (Spark's gives '')."""
    if string is None or pattern is None or group is None:
        return None
    _with_group(pattern, group)  # Trino's errors for a group the pattern does not have
    return [found.group(group) for found in _matches(string, pattern, 0)]


@rewrites(exp.RegexpExtractAll, "regexp_extract_all")
def _regexp_extract_all(node: exp.Expression) -> exp.Expression:
    """The whole matches (group 0) are Spark's; a group runs as a UDF (NULL for a group that
    took no part in a match)."""
    group = node.args.get("group")
    if literal_text(node.expression) == "" and (group is None or literal_int(group) == 0):
        # the empty pattern matches before each code point and at the end: length + 1
        # empty matches (Spark's counts UTF-16 units, one more for each surrogate pair)
        return _keep_type(node, spark("array_repeat('', length(_0) + 1)", node.this))
    if group is None or literal_int(group) == 0:
        return node
    pattern = _pattern(node, node.expression)
    return typed(udf_call("regexp_extract_all_group", node.this, pattern, group), "array(varchar)")


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


_NAMED_GROUP = re.compile(r"\(\?<([A-Za-z][A-Za-z0-9]*)>")
_REFERENCE = re.compile(r"\\.|\$\{([^}]*)\}?")


def _named_references(node: exp.Expression, text: str) -> exp.Expression:
    """regexp_replace with ``${name}`` in a literal replacement (JoniRegexpFunctions'
    appendReplacement): the named group's text, nothing where it took no part in the match;
    a name the pattern has no group of fails INVALID_FUNCTION_ARGUMENT once something matches
    ('Illegal replacement sequence: unknown group { name }'). Java's replacement syntax
    (Spark's regexp_replace) reads ``${name}`` alike; that Spark's SQL variable substitution
    would empty the literal is handled for every literal (translate.no_variable_references)."""
    pattern = literal_text(node.expression)
    if pattern is None:
        raise Refused(
            f"{node.sql('athena')} (a ${{name}} reference with a pattern that is not a literal)"
        )
    names = set(_NAMED_GROUP.findall(pattern))
    for found in _REFERENCE.finditer(text):
        name = found.group(1)
        if found.group(0).startswith("$") and name not in names:
            message = f"Illegal replacement sequence: unknown group {{ {name} }}"
            return spark(
                "CASE WHEN _0 RLIKE _1 THEN raise_error(_2) ELSE _0 END",
                node.this,
                node.expression,
                exp.Literal.string(message),
            )
    return node


@rewrites(exp.RegexpReplace, "regexp_replace", _mark_groups)
def _regexp_replace(node: exp.Expression) -> exp.Expression:
    replacement = node.args.get("replacement")
    text = literal_text(replacement) if replacement is not None else None
    if text is not None and "${" in text:
        return _keep_type(node, _named_references(node, text))
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
