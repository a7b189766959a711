"""Small helpers that build Spark SQL trees: a Spark expression written as text with
numbered holes (``_0``, ``_1``, ...), parsed once and filled with translated subtrees, and
the Athena (Trino) types of expressions as the translation needs them. Pure."""

from __future__ import annotations

from functools import cache
from typing import Any, Callable, List, Optional, Union

import sqlglot
from sqlglot import exp

INTEGRAL = {
    exp.DataType.Type.TINYINT: 3,
    exp.DataType.Type.SMALLINT: 5,
    exp.DataType.Type.INT: 10,
    exp.DataType.Type.BIGINT: 19,
}
INTEGRAL_ORDER = [
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
]
TEMPORAL = {
    exp.DataType.Type.DATE,
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.DATETIME,
}


#: The meta key of the type Trino's signatures give (signatures.py), on a ``typeof`` node
#: (its argument's type name) and on a result column's projection (translate.py)
SIGNATURE_TYPE = "athena_signature_type"

#: The type of a lambda's parameter from the function it is passed to (query_shapes.py
#: registers it on import).
LAMBDA_TYPES: List[Callable[[exp.Expression], Optional[exp.DataType]]] = []


@cache
def _parsed_type(text: str) -> exp.DataType:
    return exp.DataType.build(text)


def build_type(text: str) -> exp.DataType:
    """``exp.DataType.build(text)``, parsed once per text (sqlglot parses the text on each
    call, a tenth of a statement's translation): a copy each time, since callers put it into
    trees."""
    return _parsed_type(text).copy()


@cache
def _template(text: str) -> Any:
    return sqlglot.parse_one(text, read="spark")


def spark(text: str, *args: exp.Expression) -> exp.Expression:
    """``text`` (Spark SQL, holes ``_0``, ``_1``, ...) with the holes replaced by ``args``."""
    tree = _template(text).copy()
    for column in list(tree.find_all(exp.Column)):
        name = column.name
        if not column.table and name.startswith("_") and name[1:].isdigit():
            column.replace(args[int(name[1:])].copy())
    return tree


def call(name: str, *args: exp.Expression) -> exp.Expression:
    """A Spark function call by name, rendered as written (``try_element_at(...)``)."""
    return exp.Anonymous(this=name, expressions=list(args))


# Athena types sqlglot's DataType.build does not read from their name
_OPAQUE = {"ipaddress": exp.DataType.Type.IPADDRESS, "uuid": exp.DataType.Type.UUID}


def typed(node: exp.Expression, kind: Union[str, exp.DataType]) -> exp.Expression:
    """``node`` with the Athena type ``kind`` (a type's name or a DataType), which
    :func:`type_of` reports for it."""
    if isinstance(kind, exp.DataType):
        node.type = kind
    elif kind in _OPAQUE:
        node.type = exp.DataType(this=_OPAQUE[kind])
    else:
        node.type = exp.DataType.build(kind)
    return node


def type_of(node: exp.Expression) -> Optional[exp.DataType]:
    """The Athena type of ``node`` as far as the translation knows it (None: unknown).

    Number literals are typed as Trino types them (``1.5`` is ``decimal(2,1)``, ``1e0`` a
    double); everything else from sqlglot's annotation (``node.type``)."""
    if isinstance(node, exp.Paren):
        return type_of(node.this)
    if isinstance(node, exp.Neg):
        return type_of(node.this)
    if isinstance(node, exp.Literal) and not node.is_string:
        return literal_type(node.this)
    if isinstance(node, exp.Cast):  # a translated cast carries its Athena type
        found = node.type
        if found is None or found.this == exp.DataType.Type.UNKNOWN:
            found = node.to
        return _default_precision(found)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Mod)):
        return arithmetic_type(node)
    found = node.type
    if found is None or found.this in (exp.DataType.Type.UNKNOWN, exp.DataType.Type.NULL):
        if LAMBDA_TYPES and isinstance(node, (exp.Column, exp.Identifier, exp.Dot)):
            return LAMBDA_TYPES[0](node)  # a lambda's parameter
        return None
    return found


#: Trino's types whose bare name stands for precision 3 (``language/types.md``: "TIMESTAMP
#: is an alias for TIMESTAMP(3)"; the same for TIME and their zoned forms).
_PRECISION_3 = (
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPTZ,
    exp.DataType.Type.TIME,
    exp.DataType.Type.TIMETZ,
)


def _default_precision(kind: Optional[exp.DataType]) -> Optional[exp.DataType]:
    """``kind``, a bare timestamp or time type given Trino's default precision 3."""
    if kind is None or kind.this not in _PRECISION_3 or kind.expressions:
        return kind
    return exp.DataType(this=kind.this, expressions=[exp.DataTypeParam(this=exp.Literal.number(3))])


def arithmetic_type(
    node: exp.Expression,
    left: Optional[exp.DataType] = None,
    right: Optional[exp.DataType] = None,
) -> Optional[exp.DataType]:
    """Trino's result type of + - * % (None: unknown, or a decimal sqlglot cannot size);
    the operands' types ``left`` and ``right`` where the caller knows them."""
    left = left or type_of(node.this)
    right = right or type_of(node.expression)
    if left is None or right is None:
        return None
    if is_integral(left) and is_integral(right):
        return wider_integral(left, right)
    if is_double(left) or is_double(right):  # real with a number is real (Trino's RealOperators)
        double = exp.DataType.Type.DOUBLE in (left.this, right.this)
        return build_type("double" if double else "real")
    a, b = decimal_parts(left), decimal_parts(right)
    if a is None or b is None:
        return None
    (p1, s1), (p2, s2) = a, b
    if isinstance(node, exp.Mul):
        precision, scale = min(38, p1 + p2), s1 + s2
    elif isinstance(node, exp.Mod):
        scale = max(s1, s2)
        precision = min(38, min(p1 - s1, p2 - s2) + scale)
    else:
        scale = max(s1, s2)
        precision = min(38, max(p1 - s1, p2 - s2) + scale + 1)
    return build_type(f"decimal({precision},{scale})")


def decimal_division(
    left: Optional[exp.DataType], right: Optional[exp.DataType]
) -> Optional[exp.DataType]:
    """Trino's type of a decimal division (DecimalOperators.divide): scale max(s1, s2),
    precision min(38, p1 + s2 + max(0, s2 - s1)); an integral operand is a decimal of its
    digits. None: not a decimal division, or an operand of unknown size."""
    if not (is_decimal(left) or is_decimal(right)) or left is None or right is None:
        return None
    a, b = decimal_parts(left), decimal_parts(right)
    if a is None or b is None:
        return None
    (p1, s1), (_p2, s2) = a, b
    scale = max(s1, s2)
    return build_type(f"decimal({min(38, p1 + s2 + max(0, s2 - s1))},{scale})")


def literal_type(text: str) -> exp.DataType:
    lowered = text.lower()
    if "e" in lowered:
        return build_type("double")
    if "." in text:
        digits = text.replace(".", "").lstrip("0") or "0"
        scale = len(text.split(".", 1)[1])
        precision = max(len(digits), scale, 1)
        return build_type(f"decimal({precision},{scale})")
    value = int(text)
    if -(2**31) <= value < 2**31:
        return build_type("int")
    return build_type("bigint")


def is_integral(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this in INTEGRAL


def is_double(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this in (exp.DataType.Type.DOUBLE, exp.DataType.Type.FLOAT)


def is_decimal(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this == exp.DataType.Type.DECIMAL


def is_date(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this == exp.DataType.Type.DATE


def is_text(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this in (
        exp.DataType.Type.VARCHAR,
        exp.DataType.Type.TEXT,
        exp.DataType.Type.CHAR,
    )


def is_timestamp(kind: Optional[exp.DataType]) -> bool:
    return kind is not None and kind.this in (
        exp.DataType.Type.TIMESTAMP,
        exp.DataType.Type.DATETIME,
    )


def wider_integral(left: exp.DataType, right: exp.DataType) -> exp.DataType:
    wide = max(INTEGRAL_ORDER.index(left.this), INTEGRAL_ORDER.index(right.this))
    return exp.DataType(this=INTEGRAL_ORDER[wide])


def wider_varchar(kinds: List[exp.DataType]) -> exp.DataType:
    """The common super type of varchars (Trino's TypeCoercion): varchar(x) and varchar(y)
    meet at varchar(max(x, y)); any unbounded one makes it unbounded."""
    sizes = [k.expressions[0].this.this if k.expressions else None for k in kinds]
    if None in sizes:
        return build_type("varchar")
    return build_type(f"varchar({max(int(str(n)) for n in sizes)})")


def decimal_parts(kind: exp.DataType) -> Optional[tuple]:
    """(precision, scale) of a decimal or integral type (None: neither, or unknown)."""
    if is_integral(kind):
        return INTEGRAL[kind.this], 0
    if not is_decimal(kind):
        return None
    params = kind.expressions
    if not params:
        return None  # sqlglot's decimal of unknown size
    precision = int(params[0].this.this) if params else 38
    scale = int(params[1].this.this) if len(params) > 1 else 0
    return precision, scale


def literal_text(node: exp.Expression) -> Optional[str]:
    """The text of a string literal (None: not one)."""
    return node.this if isinstance(node, exp.Literal) and node.is_string else None


def literal_int(node: exp.Expression) -> Optional[int]:
    """The value of an integer literal, negated ones too (None: not one)."""
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return int(node.this)
        except ValueError:
            return None
    if isinstance(node, exp.Neg):
        inner = literal_int(node.this)
        return None if inner is None else -inner
    return None
