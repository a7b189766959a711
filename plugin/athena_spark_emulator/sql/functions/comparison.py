"""Comparison functions and operators (Trino's ``functions/comparison.md``): ``=``, ``<>``,
``<`` ..., BETWEEN, IS [NOT] NULL, IS [NOT] DISTINCT FROM, IN, LIKE, greatest and least.
Quantified comparisons (ALL/ANY/SOME of a subquery) are query_shapes.py's. Examples:
``tests/conformance/examples/comparison.yml``.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple, cast

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion_types import athena_type_name
from athena_spark_emulator.sql.functions.datetime_tstz import instant_operands
from athena_spark_emulator.sql.functions.table import Fails, Refused, rewrites, same
from athena_spark_emulator.sql.spark_forms import (
    call,
    is_decimal,
    is_double,
    is_integral,
    spark,
    type_of,
    typed,
    wider_varchar,
)
from athena_spark_emulator.sql.udfs import ERROR_END, ERROR_MARK

_cls: Any
_name: str
_op: str
_on_nan: str


# ---- operators ----------------------------------------------------------------
def _floating(*nodes: exp.Expression) -> bool:
    return any(is_double(type_of(n)) for n in nodes)


def _char(*nodes: exp.Expression) -> bool:
    """Whether a comparison is of CHAR(n) values: Trino compares char values padded with
    spaces to a common length (CharType; a varchar operand is coerced to char): both are
    right-padded to the longer one's length ('abc' equals 'abc  ', 'abc\\0' is below 'abc ')."""
    for node in nodes:
        kind = type_of(node)
        if kind is not None and kind.this == exp.DataType.Type.CHAR:
            return True
    return False


_T = exp.DataType.Type
T_ARRAY, T_STRUCT, T_MAP = _T.ARRAY, _T.STRUCT, _T.MAP
# element types whose Trino = is Spark's = (NULL for a NULL operand)
_PLAIN = {_T.NULL, _T.BOOLEAN, _T.DATE, _T.TIMESTAMP, _T.VARCHAR, _T.TEXT, _T.VARBINARY, _T.BINARY}


def named_as(node: exp.Expression, name: str) -> exp.Expression:
    """``node`` (a rewrite's Spark form) with the Athena type ``typeof`` names for it (read
    by datetime.py's TYPEOFS case), and that type for type_of where sqlglot reads it."""
    node.meta["athena_typeof"] = name
    if name in ("boolean", "bigint", "varchar"):
        typed(node, name)
    return node


def not_supported(text: str) -> exp.Expression:
    """A Spark ``raise_error`` that fails the statement ``NOT_SUPPORTED: <text>`` (Trino's
    own NOT_SUPPORTED failures, such as ArrayContains's on an indeterminate comparison):
    its message carries udfs.ERROR_MARK, which aws/queries.py reports as it is."""
    return call("raise_error", exp.Literal.string(f"{ERROR_MARK}NOT_SUPPORTED: {text}{ERROR_END}"))


def row_fields(
    kind: exp.DataType, value: exp.Expression
) -> Optional[List[Tuple[str, exp.DataType]]]:
    """A row type's (field name, type) pairs. Fields without a name in the type (an
    anonymous row) take the names of the Spark struct ``value`` builds (row.py's field0,
    field1, ...); None when neither tells them."""
    built = unwrapped(value)
    names = (
        [
            getattr(e, "name", "") if isinstance(e, (exp.PropertyEQ, exp.Alias)) else ""
            for e in built.expressions
        ]
        if isinstance(built, exp.Struct)
        else []
    )
    fields = []
    for i, field in enumerate(kind.expressions):
        if isinstance(field, exp.ColumnDef) and isinstance(field.args.get("kind"), exp.DataType):
            name, sub = field.name, field.args["kind"]
        elif isinstance(field, exp.DataType) and i < len(names):
            name, sub = names[i], field
        else:
            return None
        if not name:
            return None
        fields.append((name, sub))
    return fields


def unwrapped(node: exp.Expression) -> exp.Expression:
    """``node`` without the parentheses around it."""
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def named_type(kind: Optional[exp.DataType], shape: exp.Expression) -> Optional[exp.DataType]:
    """``kind`` with the field names of its anonymous rows filled in from ``shape``, a value
    of that type (a row or array literal as row.py builds it), so that the values of a
    lambda over its elements can be compared field by field; unchanged where none is
    needed or known."""
    if kind is None:
        return None
    shape = unwrapped(shape)
    if kind.this == T_ARRAY and kind.expressions:
        first = (
            shape.expressions[0] if isinstance(shape, exp.Array) and shape.expressions else shape
        )
        element = named_type(kind.expressions[0], first)
        return (
            kind
            if element is None
            else exp.DataType(this=T_ARRAY, expressions=[element], nested=True)
        )
    if kind.this == T_STRUCT:
        fields = row_fields(kind, shape)
        if fields is None:
            return kind
        named = []
        for name, sub in fields:
            part = _struct_value(shape, name)
            sub = (named_type(sub, part) if part is not None else None) or sub
            named.append(exp.ColumnDef(this=exp.to_identifier(name), kind=sub))
        return exp.DataType(this=T_STRUCT, expressions=named, nested=True)
    return kind


def _struct_value(shape: exp.Expression, name: str) -> Optional[exp.Expression]:
    if isinstance(shape, exp.Struct):
        for e in shape.expressions:
            if isinstance(e, (exp.PropertyEQ, exp.Alias)) and e.name == name:
                return e.args.get("expression") if isinstance(e, exp.PropertyEQ) else e.this
    return None


def row_field(value: exp.Expression, name: str) -> exp.Expression:
    base = value if isinstance(value, exp.Column) else exp.paren(value.copy(), copy=False)
    return exp.Dot(this=base.copy(), expression=exp.to_identifier(name))


def _all_equal(
    parts: exp.Expression,
    left: exp.Expression,
    right: exp.Expression,
    depth: int,
    sized: bool = False,
) -> exp.Expression:
    """Trino's rule for a row's fields and an array's elements (RowType's and ArrayType's
    equalOperator): NULL for a NULL operand; arrays (``sized``) of different sizes are
    unequal; false when one pair is unequal, else NULL when one is indeterminate (a NULL on
    either side counts as one), else true: Spark's three-valued ``forall``."""
    sizes = "WHEN size(_0) <> size(_1) THEN false " if sized else ""
    return spark(
        f"CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL {sizes}"
        f"ELSE forall(_2, athena_eq{depth} -> athena_eq{depth}) END",
        left,
        right,
        parts,
    )


def type_text(kind: exp.DataType, unbounded: bool = False) -> Optional[str]:
    """The name typeof gives ``kind``, rows and maps of rows too (``row(double)``,
    ``row(a integer)``: conversion_types.athena_type_name names no row). ``unbounded``: a varchar
    of no known length is ``varchar`` (a column's; a literal's length is unknown to the
    annotation). None: a type the emulator cannot name."""
    if kind.this == _T.STRUCT:
        parts = []
        for field in kind.expressions:
            sub = field.args.get("kind") if isinstance(field, exp.ColumnDef) else field
            text = type_text(sub, unbounded) if isinstance(sub, exp.DataType) else None
            if text is None:
                return None
            parts.append(f"{field.name} {text}" if isinstance(field, exp.ColumnDef) else text)
        return f"row({', '.join(parts)})"
    if kind.this in (_T.ARRAY, T_MAP) and kind.expressions:
        inner = [type_text(k, unbounded) for k in kind.expressions]
        if None in inner:
            return None
        return f"{'array' if kind.this == _T.ARRAY else 'map'}({', '.join(inner)})"  # type: ignore[arg-type]
    if unbounded and kind.this in (_T.VARCHAR, _T.TEXT) and not kind.expressions:
        return "varchar"
    return athena_type_name(kind)


def element_type(array: exp.Expression) -> Optional[exp.DataType]:
    """The element type of ``array``: an array literal's from its values (Trino coerces
    them to a common type: sqlglot's annotation takes the first one's), else its
    annotation's."""
    whole = value_type(array) if isinstance(unwrapped(array), exp.Array) else None
    if whole is not None:
        return whole.expressions[0]
    kind = type_of(array)
    element = kind.expressions[0] if kind is not None and kind.expressions else None
    return element if isinstance(element, exp.DataType) else None


def merged_type(kinds: List[Optional[exp.DataType]]) -> Optional[exp.DataType]:
    """One type for the values of an array literal, field by field: a double or real where
    any value has one (Trino coerces the others to it), varchars the longest (unbounded if
    one is), else the first known one."""
    known = [k for k in kinds if k is not None and k.this != _T.UNKNOWN]
    if not known:
        return None
    if known[0].this == _T.STRUCT and all(k.this == _T.STRUCT for k in known):
        width = len(known[0].expressions)
        if any(len(k.expressions) != width for k in known):
            return None
        fields = []
        for i in range(width):
            parts = [k.expressions[i] for k in known]
            sub = merged_type(
                [p.args.get("kind") if isinstance(p, exp.ColumnDef) else p for p in parts]
            )
            if sub is None:
                return None
            named = parts[0]
            fields.append(
                exp.ColumnDef(this=named.this, kind=sub)
                if isinstance(named, exp.ColumnDef)
                else sub
            )
        return exp.DataType(this=_T.STRUCT, expressions=fields, nested=True)
    if known[0].this == _T.ARRAY and all(k.this == _T.ARRAY and k.expressions for k in known):
        sub = merged_type([k.expressions[0] for k in known])
        return None if sub is None else exp.DataType(this=_T.ARRAY, expressions=[sub], nested=True)
    if all(k.this == _T.VARCHAR for k in known) and len(known) > 1:
        return wider_varchar(known)
    floating = [k for k in known if k.this in (_T.DOUBLE, _T.FLOAT)]
    return floating[0] if floating else known[0]


def value_type(node: exp.Expression) -> Optional[exp.DataType]:
    """The type of a (translated) row or array literal from its values, where the
    annotation could not tell it (``ROW(nan())``): type_of of each value."""
    node = unwrapped(node)
    if isinstance(node, exp.Struct):
        kinds = [
            value_type(e.args.get("expression") or e.this)
            if isinstance(e, (exp.PropertyEQ, exp.Alias))
            else value_type(e)
            for e in node.expressions
        ]
        if any(k is None for k in kinds):
            return None
        return exp.DataType(this=_T.STRUCT, expressions=kinds, nested=True)
    if isinstance(node, exp.Array):
        element = merged_type([value_type(e) for e in node.expressions])
        return (
            None
            if element is None
            else exp.DataType(this=_T.ARRAY, expressions=[element], nested=True)
        )
    return type_of(node)


def known_type(node: exp.Expression) -> Optional[exp.DataType]:
    """The type of ``node``: an array or row literal's from its values (:func:`value_type`:
    the annotation takes the first value's type, or none for ``array[nan()]``), a map
    constructor's from its two arrays', else type_of's."""
    if isinstance(unwrapped(node), (exp.Array, exp.Struct)):
        return value_type(node) or type_of(node)
    built = unwrapped(node)
    if isinstance(built, exp.Map) and isinstance(built.args.get("keys"), exp.Array):
        parts = [value_type(built.args["keys"]), value_type(built.args.get("values") or built)]
        if all(p is not None and p.this == _T.ARRAY and p.expressions for p in parts):
            inner = [p.expressions[0] for p in parts if p is not None]
            return exp.DataType(this=T_MAP, expressions=inner, nested=True)
    return type_of(node)


def _nested(left: exp.Expression, right: exp.Expression) -> bool:
    """Whether both operands are arrays, rows or maps (their types known)."""
    kinds = [known_type(node) for node in (left, right)]
    return all(k is not None and k.this in (T_ARRAY, T_STRUCT, T_MAP) for k in kinds)


def equal_form(
    left: exp.Expression,
    left_kind: Optional[exp.DataType],
    right: exp.Expression,
    right_kind: Optional[exp.DataType],
    depth: int = 0,
) -> Optional[exp.Expression]:
    """Trino's ``left = right`` as a Spark boolean (NULL: indeterminate), for arrays and rows
    at any depth (ArrayType / RowType equalOperator: element by element, field by field,
    with Trino's rule for NULLs) and their elements (doubles and reals: NaN equals nothing,
    DoubleOperators). Spark's = holds NULL elements equal and NaN equal to NaN. None: a
    type whose = the emulator does not write (a char, a type it cannot tell). Maps:
    :func:`_map_equal`."""
    if left_kind is None or right_kind is None:
        return None
    kinds = (left_kind.this, right_kind.this)
    if kinds == (_T.ARRAY, _T.ARRAY):
        return _array_equal(left, left_kind, right, right_kind, depth)
    if kinds == (_T.STRUCT, _T.STRUCT):
        return _row_equal(left, left_kind, right, right_kind, depth)
    if kinds == (T_MAP, T_MAP):
        return _map_equal(left, left_kind, right, right_kind, depth)
    if is_double(left_kind) or is_double(right_kind):
        return spark(
            "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL "
            "WHEN isnan(_0) OR isnan(_1) THEN false ELSE _0 = _1 END",
            left,
            right,
        )
    if all(k.this in _PLAIN or is_integral(k) or is_decimal(k) for k in (left_kind, right_kind)):
        return exp.EQ(this=left.copy(), expression=right.copy())
    return None


def _array_equal(
    left: exp.Expression,
    left_kind: exp.DataType,
    right: exp.Expression,
    right_kind: exp.DataType,
    depth: int,
) -> Optional[exp.Expression]:
    if not left_kind.expressions or not right_kind.expressions:
        return None
    x, y = exp.column(f"athena_x{depth}"), exp.column(f"athena_y{depth}")
    inner = equal_form(x, left_kind.expressions[0], y, right_kind.expressions[0], depth + 1)
    if inner is None:
        return None
    pairs = spark(f"zip_with(_0, _1, ({x.name}, {y.name}) -> _2)", left, right, inner)
    return _all_equal(pairs, left, right, depth, sized=True)


def _row_equal(
    left: exp.Expression,
    left_kind: exp.DataType,
    right: exp.Expression,
    right_kind: exp.DataType,
    depth: int,
) -> Optional[exp.Expression]:
    left_fields, right_fields = row_fields(left_kind, left), row_fields(right_kind, right)
    if left_fields is None or right_fields is None or len(left_fields) != len(right_fields):
        return None
    parts = []
    for (left_name, left_type), (right_name, right_type) in zip(left_fields, right_fields):
        part = equal_form(
            row_field(left, left_name),
            left_type,
            row_field(right, right_name),
            right_type,
            depth + 1,
        )
        if part is None:
            return None
        parts.append(part)
    return _all_equal(exp.Array(expressions=parts), left, right, depth)


def empty_map(kind: exp.DataType) -> bool:
    """Whether ``kind`` is the type of an empty map literal (``map()``, ``map(ARRAY[],
    ARRAY[])``): keys of no type (Spark's void, which no function over keys takes)."""
    return not kind.expressions or kind.expressions[0].this in (_T.NULL, _T.UNKNOWN)


def _map_values(left: exp.DataType, right: exp.DataType) -> exp.DataType:
    """The type to compare two maps' values as (Trino coerces both to a common one):
    :func:`merged_type` of both (a double where either is one), either side's where the
    other's is unknown (``map(ARRAY[1], ARRAY[NULL])`` has values of no type)."""
    kinds = [k.expressions[1] for k in (left, right) if len(k.expressions) == 2]
    return merged_type([k for k in kinds if k.this != _T.NULL]) or exp.DataType(this=_T.NULL)


def _map_equal(
    left: exp.Expression,
    left_kind: exp.DataType,
    right: exp.Expression,
    right_kind: exp.DataType,
    depth: int,
) -> Optional[exp.Expression]:
    """Trino's ``=`` of maps (MapType.equalOperator): NULL for a NULL operand; maps of
    different sizes are unequal; a key of the left map the right one lacks makes them
    unequal; else key by key (in any order) the values' ``=``, a NULL value on either side
    being indeterminate: false when one key's values are unequal, else NULL when one is
    indeterminate, else true (Spark's three-valued ``forall``). Spark compares no maps."""
    if empty_map(left_kind) or empty_map(right_kind):  # equal when the other is empty too
        return spark(
            "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL ELSE size(_0) = size(_1) END", left, right
        )
    value = _map_values(left_kind, right_kind)
    key = f"athena_k{depth}"
    inner = equal_form(
        spark(f"element_at(_0, {key})", left),
        value,
        spark(f"element_at(_0, {key})", right),
        value,
        depth + 1,
    )
    if inner is None:
        return None
    return spark(
        "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL WHEN size(_0) <> size(_1) THEN false "
        f"ELSE forall(map_keys(_0), {key} -> "
        f"CASE WHEN array_contains(map_keys(_1), {key}) THEN _2 ELSE false END) END",
        left,
        right,
        inner,
    )


def holds_map(kind: Optional[exp.DataType]) -> bool:
    """Whether ``kind`` is a map or an array or row with a map in it."""
    if kind is None:
        return False
    if kind.this == T_MAP:
        return True
    parts = [e.args.get("kind") if isinstance(e, exp.ColumnDef) else e for e in kind.expressions]
    return any(isinstance(p, exp.DataType) and holds_map(p) for p in parts)


def _map_distinct(
    left: exp.Expression,
    left_kind: exp.DataType,
    right: exp.Expression,
    right_kind: exp.DataType,
    depth: int = 0,
) -> Optional[exp.Expression]:
    """Trino's ``IS DISTINCT FROM`` of maps (MapType.distinctFromOperator), never NULL: a
    NULL map is distinct from a map and not from a NULL one; maps of different sizes, or
    where the right one lacks a key of the left one, are distinct; else when one key's
    values are distinct (a NULL value is not distinct from a NULL value: the values' own
    IS DISTINCT FROM, Spark's ``<=>`` for values that hold no map). None: values of a type
    holding maps inside arrays or rows."""
    if empty_map(left_kind) or empty_map(right_kind):
        return spark(
            "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NOT (_0 IS NULL AND _1 IS NULL) "
            "ELSE size(_0) <> size(_1) END",
            left,
            right,
        )
    value = _map_values(left_kind, right_kind)
    key = f"athena_k{depth}"
    a, b = spark(f"element_at(_0, {key})", left), spark(f"element_at(_0, {key})", right)
    if value.this == T_MAP:
        inner = _map_distinct(a, value, b, value, depth + 1)
    elif holds_map(value):
        return None
    else:
        inner = spark("NOT (_0 <=> _1)", a, b)
    if inner is None:
        return None
    return spark(
        "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NOT (_0 IS NULL AND _1 IS NULL) "
        "WHEN size(_0) <> size(_1) THEN true "
        f"ELSE exists(map_keys(_0), {key} -> "
        f"NOT array_contains(map_keys(_1), {key}) OR _2) END",
        left,
        right,
        inner,
    )


def _row_order(node: exp.Expression, left: exp.Expression, right: exp.Expression) -> exp.Expression:
    """``<``, ``<=``, ``>``, ``>=`` of rows: field by field, as Spark's; but Trino's
    (RowType's chainComparison) fails NOT_SUPPORTED 'ROW comparison not supported for
    fields with null elements' when it reaches a field NULL on either side (the fields
    before it equal), where Spark orders NULL first. Arrays keep Spark's ordering."""
    left_kind, right_kind = known_type(left), known_type(right)
    if left_kind is None or right_kind is None or {left_kind.this, right_kind.this} != {T_STRUCT}:
        return node
    left_fields, right_fields = row_fields(left_kind, left), row_fields(right_kind, right)
    if left_fields is None or right_fields is None or len(left_fields) != len(right_fields):
        raise Refused(
            f"{node.sql('athena')} (a comparison of rows whose fields the emulator cannot tell)"
        )
    reached: List[exp.Expression] = []  # the fields before this one are equal
    stops = []
    for (left_name, _), (right_name, _) in zip(left_fields, right_fields):
        a, b = row_field(left, left_name), row_field(right, right_name)
        stops.append(
            exp.and_(
                exp.or_(
                    exp.Is(this=a, expression=exp.Null()), exp.Is(this=b, expression=exp.Null())
                ),
                *reached,
            )
        )
        reached.append(exp.EQ(this=a.copy(), expression=b.copy()))
    out = spark(
        "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL WHEN _2 THEN _3 ELSE _4 END",
        left,
        right,
        cast(exp.Expression, exp.or_(*stops)),
        not_supported("ROW comparison not supported for fields with null elements"),
        node.copy(),
    )
    return named_as(out, "boolean")


def compared(node: exp.Expression, op: str, on_nan: str) -> exp.Expression:
    """Trino's ``left op right`` (``node``) for ``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``:
    arrays and rows by :func:`equal_form` / :func:`_row_order`; char(n) values padded to a
    common length (CharType); doubles and reals with ``on_nan`` where either is NaN
    (DoubleOperators / RealOperators: NaN is equal to nothing, not even NaN, and neither
    less nor greater than anything, where Spark orders NaN above +Infinity and equal to
    itself). Of values whose types the emulator cannot tell, Spark's as they are."""
    instant_operands(node)  # timestamps with time zone: their instants
    left, right = node.this, node.expression
    maps = _map_operands(node, op, left, right)
    if op in ("=", "<>") and _nested(left, right):
        equal = equal_form(left, known_type(left), right, known_type(right))
        if equal is not None:  # (equal) = true for =, (equal) = false for <>: NULL stays
            out = exp.EQ(this=exp.paren(equal), expression=exp.Boolean(this=op == "="))
            return named_as(out, "boolean")
    if maps and any(isinstance(unwrapped(side), exp.Null) for side in (left, right)):
        return named_as(spark("CAST(NULL AS BOOLEAN)"), "boolean")
    if maps:
        raise Refused(
            f"{node.sql('athena')}",
            "Spark compares no maps, and the emulator writes Trino's comparison of maps only "
            "for maps, arrays and rows whose key and value types it can tell: cast the "
            "operands to their map types",
        )
    if op not in ("=", "<>") and _nested(left, right):
        return _row_order(node, left, right)
    if _char(left, right):
        return typed(spark(f"{_PADDED} {op} {_PADDED_1}", left, right), "boolean")
    if not _floating(left, right):
        return node
    text = (
        "CASE WHEN _0 IS NULL OR _1 IS NULL THEN NULL "
        f"WHEN isnan(_0) OR isnan(_1) THEN {on_nan} ELSE _0 {op} _1 END"
    )
    return typed(spark(text, left, right), "boolean")


def _map_operands(
    node: exp.Expression, op: str, left: exp.Expression, right: exp.Expression
) -> bool:
    """Whether either operand holds a map. Maps are comparable but not orderable in Trino
    (MapType): ``<`` and the like fail at analysis, TYPE_MISMATCH 'Cannot apply operator'
    (Trino reads ``a > b`` as ``b < a``, and names the operator and types so)."""
    kinds = [known_type(left), known_type(right)]
    if not any(holds_map(k) for k in kinds):
        return False
    if op in ("=", "<>"):
        return True
    first, second = (kinds[1], kinds[0]) if op in (">", ">=") else (kinds[0], kinds[1])
    names = [type_text(k, True) if k is not None else None for k in (first, second)]
    if None in names:
        raise Fails(f"TYPE_MISMATCH: Cannot apply operator {op} to maps ({node.sql('athena')})")
    shown = {">": "<", ">=": "<="}.get(op, op)
    raise Fails(f"TYPE_MISMATCH: Cannot apply operator: {names[0]} {shown} {names[1]}")


# char(n) operands right-padded with spaces to the longer one's length (CharType)
_PADDED = "rpad(_0, greatest(length(_0), length(_1)), ' ')"
_PADDED_1 = "rpad(_1, greatest(length(_0), length(_1)), ' ')"

for _cls, _name, _op, _on_nan in (
    (exp.EQ, "=", "=", "false"),
    (exp.NEQ, "<>", "<>", "true"),
    (exp.GT, ">", ">", "false"),
    (exp.GTE, ">=", ">=", "false"),
    (exp.LT, "<", "<", "false"),
    (exp.LTE, "<=", "<=", "false"),
):

    def _compare(node: exp.Expression, op: str = _op, on_nan: str = _on_nan) -> exp.Expression:
        return compared(node, op, on_nan)

    rewrites(_cls, _name)(_compare)

same(exp.Is, "is")


@rewrites(exp.Between, "between")
def between(node: exp.Expression) -> exp.Expression:
    """``x BETWEEN a AND b`` of doubles, reals or char(n) values: ``a <= x AND x <= b``
    with Trino's ``<=`` of them (:func:`compared`: NaN compares false with everything,
    DoubleOperators; char values without their padding, CharType). Trino's analyzer reads
    BETWEEN as that conjunction (its NULL rule too); Spark's BETWEEN orders NaN last and
    compares the padding. Other values: Spark's BETWEEN as it is."""
    instant_operands(node)
    value, low, high = node.this, node.args["low"], node.args["high"]
    if not (_floating(value, low, high) or _char(value, low, high)):
        return node
    above = compared(exp.LTE(this=low.copy(), expression=value.copy()), "<=", "false")
    below = compared(exp.LTE(this=value.copy(), expression=high.copy()), "<=", "false")
    return named_as(exp.paren(exp.and_(above, below)), "boolean")


def _distinct(node: exp.Expression, distinct: bool) -> exp.Expression:
    """``IS [NOT] DISTINCT FROM`` of char(n) values: Trino's CharType compares them without
    their padding ('foo' as char(3) is not distinct from 'foo' as char(5)), so both are
    padded to a common length; a NULL is distinct from a value and not from a NULL."""
    instant_operands(node)
    left, right = node.this, node.expression
    if any(holds_map(known_type(side)) for side in (left, right)):
        return named_as(_distinct_maps(node, left, right, distinct), "boolean")
    if not _char(left, right):
        return node
    same_value = f"{_PADDED} <=> {_PADDED_1}"
    text = f"NOT ({same_value})" if distinct else same_value
    return named_as(exp.paren(spark(text, left, right)), "boolean")


def _distinct_maps(
    node: exp.Expression, left: exp.Expression, right: exp.Expression, distinct: bool
) -> exp.Expression:
    """``IS [NOT] DISTINCT FROM`` where an operand holds a map (Spark's ``<=>`` takes no
    map): :func:`_map_distinct`; against a NULL literal, whether the other is NULL."""
    left_kind, right_kind = known_type(left), known_type(right)
    form: Optional[exp.Expression] = None
    if isinstance(unwrapped(left), exp.Null) or isinstance(unwrapped(right), exp.Null):
        form = spark("NOT (_0 IS NULL AND _1 IS NULL)", left, right)
    elif (
        left_kind is not None
        and right_kind is not None
        and left_kind.this == right_kind.this == T_MAP
    ):
        form = _map_distinct(left, left_kind, right, right_kind)
    if form is None:
        raise Refused(
            node.sql("athena"),
            "Spark compares no maps, and the emulator writes Trino's IS DISTINCT FROM only "
            "for two maps whose values hold no maps inside arrays or rows",
        )
    return exp.paren(form if distinct else exp.Not(this=exp.paren(form)))


@rewrites(exp.NullSafeEQ, "is not distinct from")
def not_distinct(node: exp.Expression) -> exp.Expression:
    return _distinct(node, False)


@rewrites(exp.NullSafeNEQ, "is distinct from")
def is_distinct(node: exp.Expression) -> exp.Expression:
    return _distinct(node, True)


def _in_check(node: exp.Expression) -> Optional[str]:
    """Spark answers ``x IN (subquery)`` false where SQL's answer is NULL (x NULL, or no
    match and a NULL in the subquery): the same only as a condition of WHERE / HAVING."""
    if node.args.get("query") is None:
        return None
    parent = node.parent
    if isinstance(parent, exp.Not):
        parent = parent.parent
    while isinstance(parent, (exp.And, exp.Paren)):
        parent = parent.parent
    if isinstance(parent, (exp.Where, exp.Having)):
        return None
    return f"{node.sql('athena')} outside a WHERE condition (Spark answers false for NULL)"


def _plain(item: exp.Expression) -> bool:
    """Whether ``item`` is a literal (a number, a string, a boolean, NULL, a negative
    number): nothing of it can fail, so whether it is evaluated changes no answer."""
    item = unwrapped(item)
    if isinstance(item, exp.Neg):
        item = unwrapped(item.this)
    return isinstance(item, (exp.Literal, exp.Null, exp.Boolean))


@rewrites(exp.In, "in", _in_check)
def in_list(node: exp.Expression) -> exp.Expression:
    """``x IN (items)`` whose items are constants (no column) not all literals: Trino
    evaluates every such item (its planner folds constant expressions before the IN runs:
    ``3 IN (2, 4, 3, 5 / 0)`` fails DIVISION_BY_ZERO, TestExpressions), where Spark stops at
    the first item equal to x. ``array_contains(array(items), x)`` evaluates them all and
    keeps IN's NULL rule (NULL for a NULL x; NULL where no item equals x and one is NULL).
    Lists of literals (dbt's long ones), of columns and subqueries: Spark's IN as it is."""
    items = _values_items(node)
    instant_operands(node)
    items = list(node.expressions)
    if holds_map(known_type(node.this)):
        return _in_maps(node, items)
    if node.args.get("query") is not None or node.args.get("unnest") is not None or not items:
        return node
    if all(_plain(i) for i in items) or any(i.find(exp.Column, exp.Select) for i in items):
        return node
    values = exp.Array(expressions=[i.copy() for i in items])
    if isinstance(unwrapped(node.this), exp.Null):  # Spark's array_contains takes no NULL type
        return typed(
            spark("CASE WHEN size(_0) >= 0 THEN CAST(NULL AS BOOLEAN) END", values), "boolean"
        )
    return typed(call("array_contains", values, node.this), "boolean")


def _values_items(node: exp.Expression) -> List[exp.Expression]:
    """The items of ``x IN (items)``; of ``x IN (VALUES a, b)``, the VALUES' one-column rows
    (set as the items): Trino's IN over the table VALUES makes gives IN's answer over its
    values (true when one equals x, else NULL when x or one is NULL, else false; TestJoin),
    where Spark cannot parse the VALUES there. Rows of several columns are refused."""
    items = list(node.expressions)
    if len(items) != 1 or not isinstance(unwrapped(items[0]), exp.Values):
        return items
    referenced = next(unwrapped(items[0]).find_all(exp.Column), None)
    if referenced is not None and _in_outer_join_criteria(node):
        raise Fails(
            f"NOT_SUPPORTED: Reference to column '{referenced.sql('athena')}' from outer scope "
            "not allowed in this context"
        )
    values = []
    for entry in unwrapped(items[0]).expressions:
        if isinstance(entry, exp.Tuple) and len(entry.expressions) != 1:
            raise Refused(
                f"IN (VALUES ...) of rows of {len(entry.expressions)} columns",
                "the emulator runs IN (VALUES ...) of one-column rows only: compare the "
                "row's fields one by one, or select from the VALUES in a subquery",
            )
        values.append((entry.expressions[0] if isinstance(entry, exp.Tuple) else entry).copy())
    node.set("expressions", values)
    return list(node.expressions)


def _in_outer_join_criteria(node: exp.Expression) -> bool:
    """``node`` is in the ON criteria of a LEFT, RIGHT or FULL join, where Trino's
    StatementAnalyzer analyzes the criteria without correlation: a subquery there (IN
    (VALUES t.x) too) may not reference the join's columns (ExpressionAnalyzer: "Reference
    to column ... from outer scope not allowed in this context", TestJoin)."""
    child: Any = node
    parent: Any = node.parent
    while parent is not None:
        if isinstance(parent, exp.Join):
            side = str(parent.args.get("side") or "").upper()
            return child is parent.args.get("on") and side in ("LEFT", "RIGHT", "FULL")
        child, parent = parent, parent.parent
    return False


def _in_maps(node: exp.Expression, items: List[exp.Expression]) -> exp.Expression:
    """``m IN (items)`` of maps: Trino's IN is the disjunction of ``m = item`` (with IN's
    NULL rule: true when one is true, else NULL when one is NULL), each by Trino's ``=`` of
    maps (:func:`compared`). Spark's IN compares no maps."""
    if node.args.get("query") is not None or node.args.get("unnest") is not None or not items:
        raise Refused(
            node.sql("athena"), "Spark compares no maps: IN over maps takes a list of values"
        )
    tests = [
        compared(exp.EQ(this=node.this.copy(), expression=i.copy()), "=", "false") for i in items
    ]
    return named_as(exp.paren(exp.or_(*tests)), "boolean")


# ---- comparison / conditional functions -------------------------------------------------------
def _null_if_any(node: exp.Expression, name: str) -> exp.Expression:
    args = [node.this, *node.expressions]
    test = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    holes = ", ".join(f"_{i}" for i in range(len(args)))
    return spark(f"CASE WHEN {test} THEN NULL ELSE {name}({holes}) END", *args)


@rewrites(exp.Greatest, "greatest")
def greatest(node: exp.Expression) -> exp.Expression:
    """Trino's greatest orders NaN first (COMPARISON_UNORDERED_FIRST): NaN only when every
    argument is; Spark's orders it last. least orders it last in both."""
    args = [node.this, *node.expressions]
    if not _floating(*args):
        return _null_if_any(node, "greatest")
    test = " OR ".join(f"_{i} IS NULL" for i in range(len(args)))
    values = ", ".join(f"nanvl(_{i}, NULL)" for i in range(len(args)))
    text = f"CASE WHEN {test} THEN NULL ELSE coalesce(greatest({values}), _0) END"
    return spark(text, *args)


@rewrites(exp.Least, "least")
def least(node: exp.Expression) -> exp.Expression:
    return _null_if_any(node, "least")


def _like_check(node: exp.Expression) -> Optional[str]:
    r"""Trino's LIKE has no escape character unless ESCAPE names one; Spark's is ``\``."""
    pattern = node.expression
    if isinstance(node.parent, exp.Escape):
        return None
    if isinstance(pattern, exp.Literal) and pattern.is_string and "\\" not in pattern.this:
        return None
    return f"LIKE with a pattern that is not a literal without backslashes ({node.sql('athena')})"


same(exp.Escape, "like ... escape")
same(exp.Like, "like", _like_check)
