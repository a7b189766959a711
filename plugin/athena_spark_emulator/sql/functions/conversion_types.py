"""typeof and the names of Athena's types (part of conversion.md's page: conversion.py
holds the casts and format): :func:`athena_type_name` names a type as Trino's
Type.getDisplayName prints it, :func:`type_name` a translated value's type (the pages' own
cases first: :data:`TYPEOFS`, e.g. datetime.py's timestamps and intervals), and the
``typeof`` rewrite answers it, or refuses where the emulator cannot tell the type."""

from __future__ import annotations

import re
from typing import Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Hooks, Refused, rewrites
from athena_spark_emulator.sql.spark_forms import (
    SIGNATURE_TYPE,
    decimal_parts,
    is_decimal,
    is_text,
    spark,
    type_of,
    typed,
)

T = exp.DataType.Type

#: The cases of typeof other pages answer: fn(value) -> Athena's type name
TYPEOFS = Hooks("typeof")


@rewrites(exp.Typeof, "typeof")
def typeof(node: exp.Expression) -> exp.Expression:
    value = node.this
    # the translation's own type, else Trino's signatures' (translate.record_signatures)
    name = (node.meta.get(SIGNATURE_TYPE) if node._meta else None) or type_name(value)
    if name is None:
        raise Refused(f"{node.sql('athena')} (the emulator cannot tell this value's Athena type)")
    return _type_name(value, name)


def type_name(value: exp.Expression) -> Optional[str]:
    """The name typeof gives ``value`` (a translated value; None: the emulator cannot tell
    it): the pages' own cases first (timestamps, intervals: datetime.py), then the home's."""
    return TYPEOFS.first(value) or _type_name_of(value)


def _type_name(value: exp.Expression, name: str) -> exp.Expression:
    """The text ``name``, as the value of typeof(value). Trino's TypeOfFunction takes the
    value as its argument, so an aggregate (or a window function) in it is still computed:
    ``typeof(sum(k))`` is one row of an aggregated query, not a constant per input row. A
    value holding one stays in the Spark form, its result ignored."""
    if not value.find(exp.AggFunc, exp.Window):
        return typed(exp.Literal.string(name), "varchar")  # TypeOfFunction: varchar
    text = exp.Literal.string(name).sql("spark")
    return typed(spark(f"CASE WHEN _0 IS NULL THEN {text} ELSE {text} END", value), "varchar")


def _type_name_of(value: exp.Expression) -> Optional[str]:
    """typeof(value): a string literal is varchar(its length); an array or map constructor
    has its elements' type where they all agree (or are all varchar(n): the longest). A
    type holding an unbounded varchar is named only where nothing in ``value`` gives a
    length (:func:`unsized_text`)."""
    if isinstance(value, exp.Paren):
        return _type_name_of(value.this)
    if isinstance(value, exp.Literal) and value.is_string:
        unbounded = value.type is not None and athena_type_name(value.type) == "varchar"
        return "varchar" if unbounded else f"varchar({len(value.this)})"
    if isinstance(value, exp.Interval) and isinstance(value.args.get("unit"), exp.Var):
        return _interval_name(value.args["unit"].name.upper())
    if isinstance(value, (exp.Array, exp.Map)):
        return _constructor_name(value)
    if any(value.find_all(exp.Array, exp.Map)):
        return None
    kind = type_of(value)
    if _unsized_cast(value):  # CAST(x AS VARCHAR)
        return "varchar"
    cast = isinstance(value, (exp.Cast, exp.TryCast))  # of the type it names
    if not cast and holds_unbounded_text(kind) and not unsized_text(value):
        return None
    return athena_type_name(kind)


def _constructor_name(value: exp.Expression) -> Optional[str]:
    """An ARRAY[...] or MAP(ARRAY[...], ARRAY[...]) constructor's type: its elements'."""
    if isinstance(value, exp.Array):
        inner = _common_name([_type_name_of(e) for e in value.expressions])
        return f"array({inner})" if inner else None
    keys, values = value.args.get("keys"), value.args.get("values")
    if not (isinstance(keys, exp.Array) and isinstance(values, exp.Array)):
        return None
    key = _common_name([_type_name_of(e) for e in keys.expressions])
    item = _common_name([_type_name_of(e) for e in values.expressions])
    return f"map({key}, {item})" if key and item else None


def _unsized_cast(node: exp.Expression) -> bool:
    """``node`` is a cast to varchar without a length: its value is ``varchar`` whatever
    it casts (Trino's CAST(x AS varchar) is unbounded)."""
    if not isinstance(node, (exp.Cast, exp.TryCast)):
        return False
    kind = type_of(node)
    return kind is not None and kind.this == T.VARCHAR and not kind.expressions


#: The nodes an unbounded varchar passes through keeping it unbounded, and the arguments
#: its text comes from: upper, lower, trim, substr (StringFunctions' varchar(x)
#: signatures: the first argument's), concat and ``||`` (ConcatFunction: unbounded if one
#: part is), CASE/IF/COALESCE (the common super type of varchar and varchar(n) is
#: varchar), min, max, arbitrary, max_by, min_by (their argument's type).
_TEXT_PARTS: dict[type, tuple[str, ...]] = {
    exp.Upper: ("this",),
    exp.Lower: ("this",),
    exp.Trim: ("this",),
    exp.Substring: ("this",),
    exp.Case: ("ifs", "default"),
    exp.If: ("true", "false"),
    exp.Coalesce: ("this", "expressions"),
    exp.Min: ("this",),
    exp.Max: ("this",),
    exp.AnyValue: ("this",),
    exp.ArgMax: ("this",),
    exp.ArgMin: ("this",),
    exp.Paren: ("this",),
}


def unsized_text(value: exp.Expression) -> bool:
    """``value``'s varchar is unbounded as Trino types it: its text comes only through
    nodes that keep an unbounded varchar unbounded (:data:`_TEXT_PARTS`) from columns of
    known types and casts to varchar (unbounded whatever they cast), with no text of a
    known length on the way (a string literal of the query is varchar(its length):
    return_types.py). Anything else (a rewrite's Spark form, a function not listed) may
    give its result a length: not named."""
    if _unsized_cast(value):
        return True
    kind = value.type if isinstance(value, exp.Literal) else type_of(value)
    if is_text(kind) and kind is not None and kind.expressions:
        return False
    if isinstance(value, exp.Column) or (isinstance(value, exp.Literal) and value.is_string):
        return kind is not None  # a column of known type; typeof's own unbounded text
    if isinstance(value, (exp.Literal, exp.Null, exp.Boolean)):
        return True
    if isinstance(value, (exp.Concat, exp.DPipe)):  # ConcatFunction: varchar, any lengths
        args = value.expressions if isinstance(value, exp.Concat) else value.args.values()
        kinds = [type_of(a) for a in args if isinstance(a, exp.Expression)]
        return bool(kinds) and all(is_text(k) and k is not None and k.this != T.CHAR for k in kinds)
    parts = _TEXT_PARTS.get(type(value))
    if parts is None:
        return False
    found = [value.args.get(name) for name in parts]
    args = [a for f in found for a in (f if isinstance(f, list) else [f]) if a is not None]
    return all(unsized_text(a) for a in args)


def holds_unbounded_text(kind: Optional[exp.DataType]) -> bool:
    """``kind`` is, or holds at any depth, a varchar without a length."""
    if kind is None:
        return False
    return any(
        k.this in (T.VARCHAR, T.TEXT) and not k.expressions for k in kind.find_all(exp.DataType)
    )


def _common_name(names: list) -> Optional[str]:
    if not names or None in names:
        return None
    if len(set(names)) == 1:
        return str(names[0])
    sizes = [re.fullmatch(r"varchar\((\d+)\)", n) for n in names]
    if all(sizes):
        return f"varchar({max(int(m.group(1)) for m in sizes if m)})"
    return None


#: The names Trino gives its types without parameters (their getDisplayName)
_SIMPLE_NAMES = {
    T.INT: "integer",
    T.BIGINT: "bigint",
    T.SMALLINT: "smallint",
    T.TINYINT: "tinyint",
    T.DOUBLE: "double",
    T.FLOAT: "real",
    T.BOOLEAN: "boolean",
    T.DATE: "date",
    T.VARBINARY: "varbinary",
    T.IPADDRESS: "ipaddress",
    T.UUID: "uuid",
    T.JSON: "json",
    T.NULL: "unknown",  # UnknownType: the type of NULL (signatures.UNKNOWN)
}


def _parameter(kind: exp.DataType) -> Optional[int]:
    """The first (numeric) parameter of ``kind``: varchar(5)'s 5, timestamp(6)'s 6."""
    size = kind.expressions[0] if kind.expressions else None
    found = size.this if isinstance(size, exp.DataTypeParam) else None
    text = found.this if isinstance(found, exp.Literal) else None
    return int(text) if text is not None and str(text).isdigit() else None


def athena_type_name(kind: Optional[exp.DataType]) -> Optional[str]:
    """The name typeof gives ``kind`` as Trino's Type.getDisplayName prints it (None: the
    emulator cannot tell it): ``varchar`` (a varchar without a length is unbounded),
    ``varchar(5)``, ``char(3)``, ``decimal(10,2)``, ``timestamp(3)`` and ``timestamp(6)
    with time zone`` (TimestampType, TimestampWithTimeZoneType: a timestamp without a
    precision is not named: Athena's has one), ``array(integer)``, ``map(varchar,
    bigint)`` (ArrayType, MapType) and ``row(x integer, y varchar)`` (RowType: a field's
    name, then its type; a field without a name is its type alone)."""
    if kind is None:
        return None
    if kind.this in (T.VARCHAR, T.CHAR):
        return _text_name(kind)
    if kind.this in (T.TIMESTAMP, T.TIMESTAMPTZ):
        digits = _parameter(kind) if kind.expressions else None
        if digits is None:
            return None
        zoned = " with time zone" if kind.this == T.TIMESTAMPTZ else ""
        return f"timestamp({digits}){zoned}"
    if is_decimal(kind):
        parts = decimal_parts(kind)
        return f"decimal({parts[0]},{parts[1]})" if parts is not None else None
    if kind.this in (T.ARRAY, T.MAP):
        inner = [
            athena_type_name(k) if isinstance(k, exp.DataType) else None for k in kind.expressions
        ]
        if len(inner) != (1 if kind.this == T.ARRAY else 2) or None in inner:
            return None
        return f"{'array' if kind.this == T.ARRAY else 'map'}({', '.join(inner)})"  # type: ignore[arg-type]
    if kind.this == T.STRUCT:
        return _row_name(kind)
    if isinstance(kind.this, exp.Interval):  # sqlglot's interval type: its unit, or span
        unit = kind.this.args.get("unit")
        first = unit.this if isinstance(unit, exp.IntervalSpan) else unit
        return _interval_name(first.name.upper()) if isinstance(first, exp.Expression) else None
    return _SIMPLE_NAMES.get(kind.this)


def _text_name(kind: exp.DataType) -> Optional[str]:
    """varchar(n), char(n); a varchar without a length is unbounded: ``varchar``."""
    if not kind.expressions:
        return "varchar" if kind.this == T.VARCHAR else None
    size = _parameter(kind)
    return f"{kind.this.value.lower()}({size})" if size is not None else None


def _interval_name(unit: str) -> Optional[str]:
    """Trino's two interval types: IntervalYearMonthType and IntervalDayTimeType."""
    if unit in ("YEAR", "MONTH"):
        return "interval year to month"
    return "interval day to second" if unit in ("DAY", "HOUR", "MINUTE", "SECOND") else None


def _row_name(kind: exp.DataType) -> Optional[str]:
    """``row(x integer, y varchar)``: RowType.getDisplayName, each field's (lower-case)
    name and its type, or its type alone where it has no name."""
    fields = []
    for field in kind.expressions:
        sub = field.args.get("kind") if isinstance(field, exp.ColumnDef) else field
        text = athena_type_name(sub) if isinstance(sub, exp.DataType) else None
        if text is None:
            return None
        named = isinstance(field, exp.ColumnDef) and field.name
        fields.append(f"{field.name.lower()} {text}" if named else text)
    return f"row({', '.join(fields)})" if fields else None
