"""Athena's (Trino 410's) result types where sqlglot's type annotation gives others: the
one place the translation's type model learns them. ``translate.annotate`` passes
:data:`EXPRESSION_METADATA` (sqlglot's Athena annotators with these on top) to sqlglot's
``annotate_types``, so a CTE's or a subquery's column has the type Athena gives it, and
every output column of a query gets its Athena type (``typeof``, ``GetQueryResults``'
``ColumnInfo``, the Glue columns of a CTAS and its data files agree).

The rules, each from Trino 410's source (``core/trino-main``):

- ``+ - * / %``: ``DecimalOperators`` (an integral operand is a decimal of its digits:
  integer is decimal(10,0)); integers ``wider`` of the two; a double or real makes a double
  or real (spark_forms.arithmetic_type and decimal_division).
- aggregates, ``io.trino.operator.aggregation``: ``sum`` of a decimal(p,s) is
  decimal(38,s) (``DecimalSumAggregation``), of an integral type bigint
  (``LongSumAggregation``), of real real, of double double; ``avg`` of a decimal(p,s) is
  decimal(p,s) (``DecimalAverageAggregation``), of an integral type double
  (``AverageAggregations``), of real real; ``min``/``max``/``arbitrary``/``min_by``/
  ``max_by``: their (first) argument's type; ``map_agg(k, v)`` map(K,V),
  ``histogram(x)`` map(X,bigint), ``checksum`` varbinary.
- ``coalesce``, ``CASE``, ``IF``, ``greatest``, ``least``: the arguments' common super type
  (``TypeCoercion.getCommonSuperType``): decimals widen to max(integral digits) + max(scale)
  (at most 38), an integral type joins a decimal as decimal of its digits, any double makes
  a double, else real; varchar(n) and varchar(m) are varchar(max(n, m)).
- date and time fields (``DateTimeFunctions``: year, quarter, month, week, day,
  day_of_week, day_of_year, hour, minute, second, millisecond, year_of_week and extract)
  are bigint, where sqlglot says tinyint or integer; so is array_position
  (``ArrayFunctions``); ``sequence`` of integral types is array(bigint)
  (``SequenceFunction``); ``try(x)`` has x's type.
- text: a string literal is varchar(its length); ``upper``, ``lower``, ``trim``,
  ``substr`` keep their first argument's length (``StringFunctions``'
  varchar(x) signatures); ``concat`` and ``||`` of varchars are unbounded
  (``ConcatFunction``), of chars char of the lengths' sum (``CharConcatFunction``); ``chr`` is varchar(1); ``md5``/``sha1``/``sha256``/``sha512`` are
  varbinary. So a CTE's column has the length Trino gives it, and ``typeof`` names an
  unbounded varchar only where it is one (functions/conversion.py).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect

from athena_spark_emulator.sql.expanded_rows import annotate_unnest
from athena_spark_emulator.sql.spark_forms import (
    arithmetic_type,
    decimal_division,
    decimal_parts,
    is_decimal,
    is_double,
    is_integral,
    is_text,
    type_of,
    wider_integral,
    wider_varchar,
)

T = exp.DataType.Type
Annotator = Callable[[Any, exp.Expression], Any]


def _type(text: str) -> exp.DataType:
    return exp.DataType.build(text)


def _is_null(node: exp.Expression) -> bool:
    return isinstance(node, exp.Null) or (
        node.type is not None and node.type.this == T.NULL and not isinstance(node, exp.Column)
    )


def common_super_type(nodes: List[exp.Expression]) -> Optional[exp.DataType]:
    """Trino's common super type of ``nodes``' types (TypeCoercion.getCommonSuperType) for
    the numbers and text; None where one is unknown or the rule is not modelled here."""
    kinds = [type_of(n) for n in nodes if not _is_null(n)]
    if not kinds or any(k is None for k in kinds):
        return None
    first = kinds[0]
    assert first is not None
    if all(k is not None and k == first for k in kinds):
        return first
    if all(is_integral(k) for k in kinds):
        out = first
        for k in kinds[1:]:
            out = wider_integral(out, k)  # type: ignore[arg-type]
        return out
    if all(is_integral(k) or is_decimal(k) or is_double(k) for k in kinds):
        return number_super_type(kinds)  # type: ignore[arg-type]
    if all(is_text(k) and k is not None and k.this == T.VARCHAR for k in kinds):
        return wider_varchar(kinds)  # type: ignore[arg-type]
    return None


def number_super_type(kinds: List[exp.DataType]) -> Optional[exp.DataType]:
    """Numbers: any double makes a double, else any real a real; decimals (and integral
    types as decimals of their digits) widen to the most integral digits and the largest
    scale, at most 38 digits."""
    if any(k.this == T.DOUBLE for k in kinds):
        return _type("double")
    if any(is_double(k) for k in kinds):
        return _type("real")
    parts = [decimal_parts(k) for k in kinds]
    if any(p is None for p in parts):
        return None
    scale = max(s for _, s in parts)  # type: ignore[misc]
    digits = max(p - s for p, s in parts)  # type: ignore[misc]
    return _type(f"decimal({min(38, digits + scale)},{scale})")


def _set(annotator: Any, node: exp.Expression, kind: Optional[exp.DataType]) -> None:
    annotator._set_type(node, kind if kind is not None else exp.DataType.Type.UNKNOWN)


def _of_common(*args: str) -> Annotator:
    def annotate(annotator: Any, node: exp.Expression) -> None:
        values: List[exp.Expression] = []
        for name in args:
            found = node.args.get(name)
            values.extend(found if isinstance(found, list) else [found] if found else [])
        _set(annotator, node, common_super_type(values))

    return annotate


def _case(annotator: Any, node: exp.Expression) -> None:
    values = [when.args["true"] for when in node.args.get("ifs") or []]
    if node.args.get("default") is not None:
        values.append(node.args["default"])
    _set(annotator, node, common_super_type(values))


def _arithmetic(annotator: Any, node: exp.Expression) -> None:
    _set(annotator, node, arithmetic_type(node))


def _division(annotator: Any, node: exp.Expression) -> None:
    left, right = type_of(node.this), type_of(node.expression)
    if is_integral(left) and is_integral(right):
        _set(annotator, node, wider_integral(left, right))  # type: ignore[arg-type]
    elif is_double(left) or is_double(right):
        double = any(k is not None and k.this == T.DOUBLE for k in (left, right))
        both = left is not None and right is not None
        _set(annotator, node, _type("double" if double or not both else "real"))
    else:
        _set(annotator, node, decimal_division(left, right))


def _sum(annotator: Any, node: exp.Expression) -> None:
    kind = type_of(node.this)
    if is_decimal(kind):
        parts = decimal_parts(kind)  # type: ignore[arg-type]
        _set(annotator, node, _type(f"decimal(38,{parts[1]})") if parts else None)
    elif is_integral(kind):
        _set(annotator, node, _type("bigint"))
    elif is_double(kind):
        _set(annotator, node, kind)
    else:
        _set(annotator, node, None)


def _avg(annotator: Any, node: exp.Expression) -> None:
    kind = type_of(node.this)
    if is_decimal(kind) and kind is not None and kind.expressions:
        _set(annotator, node, kind)
    elif is_integral(kind):
        _set(annotator, node, _type("double"))
    elif is_double(kind):
        _set(annotator, node, kind)
    else:
        _set(annotator, node, None)


def _first_argument(annotator: Any, node: exp.Expression) -> None:
    _set(annotator, node, type_of(node.this))


def _anonymous(annotator: Any, node: exp.Expression) -> None:
    """Functions sqlglot parses as Anonymous, by name (map_agg, histogram, checksum)."""
    name = str(node.name).lower()
    args = node.expressions
    kinds = [type_of(a) for a in args]
    found: Optional[exp.DataType] = None
    if name == "map_agg" and len(args) == 2 and all(kinds):
        found = exp.DataType(this=T.MAP, expressions=[kinds[0], kinds[1]], nested=True)
    elif name == "histogram" and len(args) == 1 and kinds[0] is not None:
        found = exp.DataType(this=T.MAP, expressions=[kinds[0], _type("bigint")], nested=True)
    elif name == "checksum" and len(args) == 1:
        found = _type("varbinary")
    if found is not None:
        _set(annotator, node, found)
    else:
        _set(annotator, node, None)


def _sequence(annotator: Any, node: exp.Expression) -> None:
    """sequence(start, stop[, step]) of integral types is array(bigint) (Trino's
    SequenceFunction: its bigint form, the integers coerced); of dates or timestamps
    sqlglot's type (an array of the arguments' type)."""
    if is_integral(type_of(node.args["start"])):
        _set(annotator, node, exp.DataType.build("array<bigint>"))
        return
    _ATHENA[exp.GenerateSeries]["annotator"](annotator, node)


def _literal(annotator: Any, node: exp.Expression) -> None:
    """A string literal is varchar(its length) (Trino's LiteralInterpreter: 'abc' is
    varchar(3)), so a CTE's or subquery's column of one has that length; other literals
    as sqlglot types them."""
    if isinstance(node, exp.Literal) and node.is_string:
        _set(annotator, node, _type(f"varchar({len(node.this)})"))
    else:
        _ATHENA[exp.Literal]["annotator"](annotator, node)


def _sized(kind: Optional[exp.DataType]) -> Optional[int]:
    """n of a varchar(n) or char(n) (None: unbounded, or not text)."""
    if not is_text(kind) or kind is None or not kind.expressions:
        return None
    size = kind.expressions[0]
    value = size.this.this if isinstance(size, exp.DataTypeParam) else None
    return int(value) if value is not None and str(value).isdigit() else None


def _text_of_first(annotator: Any, node: exp.Expression) -> None:
    """upper, lower, trim, substr (StringFunctions' ``varchar(x)`` signatures): the
    result has its first argument's length; of a char(x) upper and lower are char(x)
    (charUpper, charLower), substr and trim varchar(x) (charSubstr, charTrim); unbounded
    where the argument is unbounded or not known to be text."""
    kind = type_of(node.this)
    size = _sized(kind)
    if size is None or kind is None:
        _set(annotator, node, _type("varchar"))
    elif kind.this == T.CHAR and not isinstance(node, (exp.Upper, exp.Lower)):
        _set(annotator, node, _type(f"varchar({size})"))
    else:
        _set(annotator, node, kind)


def _concatenated(annotator: Any, node: exp.Expression) -> None:
    """concat and ``||`` of text: of varchars an unbounded varchar (Trino's ConcatFunction
    returns ``varchar`` whatever its arguments' lengths: TestStringFunctions, TestTypeOfFunction
    ``typeof(CONCAT('ala','ma','kota'))`` is ``varchar``); where a char(x) is among them and
    every argument has a length, char of the lengths' sum (CharConcatFunction, a varchar(x)
    coerced to char(x): ``concat('ab ', cast(' ' as char(1)))`` is char(4)); of other types
    (arrays) sqlglot's varchar, as before."""
    parts = node.expressions if isinstance(node, exp.Concat) else [node.this, node.expression]
    kinds = [type_of(p) for p in parts]
    sizes = [_sized(k) for k in kinds]
    chars = any(k is not None and k.this == T.CHAR for k in kinds)
    if chars and all(is_text(k) for k in kinds) and None not in sizes:
        _set(annotator, node, _type(f"char({sum(sizes)})"))  # type: ignore[arg-type]
    else:
        _set(annotator, node, _type("varchar"))


def _returns(kind: str) -> Annotator:
    def annotate(annotator: Any, node: exp.Expression) -> None:
        _set(annotator, node, _type(kind))

    return annotate


_BIGINT_FIELDS = (
    exp.Year,
    exp.Quarter,
    exp.Month,
    exp.Week,
    exp.WeekOfYear,
    exp.Day,
    exp.DayOfMonth,
    exp.DayOfWeek,
    exp.DayOfWeekIso,
    exp.DayOfYear,
    exp.Hour,
    exp.Minute,
    exp.Second,
    exp.YearOfWeek,
    exp.YearOfWeekIso,
    exp.Extract,
)

_ATHENA = Dialect.get_or_raise("athena").EXPRESSION_METADATA

OVERRIDES: Dict[type, Dict[str, Any]] = {
    # ArrayFunctions.arrayPosition is bigint
    **{cls: {"returns": T.BIGINT} for cls in (*_BIGINT_FIELDS, exp.ArrayPosition)},
    **{cls: {"annotator": _arithmetic} for cls in (exp.Add, exp.Sub, exp.Mul, exp.Mod)},
    exp.Div: {"annotator": _division},
    exp.Sum: {"annotator": _sum},
    exp.Avg: {"annotator": _avg},
    **{
        cls: {"annotator": _first_argument}
        for cls in (exp.Min, exp.Max, exp.ArgMin, exp.ArgMax, exp.AnyValue, exp.Nullif, exp.Try)
    },
    exp.GenerateSeries: {"annotator": _sequence},
    exp.Coalesce: {"annotator": _of_common("this", "expressions")},
    exp.Greatest: {"annotator": _of_common("this", "expressions")},
    exp.Least: {"annotator": _of_common("this", "expressions")},
    exp.If: {"annotator": _of_common("true", "false")},
    exp.Case: {"annotator": _case},
    exp.Anonymous: {"annotator": _anonymous},
    exp.Literal: {"annotator": _literal},
    **{
        cls: {"annotator": _text_of_first}
        for cls in (exp.Upper, exp.Lower, exp.Trim, exp.Substring)
    },
    # x LIKE p ESCAPE e is boolean (sqlglot types the Escape node as its escape's text)
    exp.Escape: {"returns": T.BOOLEAN},
    exp.Concat: {"annotator": _concatenated},
    exp.DPipe: {"annotator": _concatenated},
    # StringFunctions.chr is varchar(1); md5, sha1, sha256 and sha512 are varbinary
    exp.Chr: {"annotator": _returns("varchar(1)")},
    # UNNEST of arrays of rows, or of several arrays: a row named by the alias's columns
    exp.Unnest: {"annotator": annotate_unnest},
    **{cls: {"annotator": _returns("varbinary")} for cls in (exp.MD5Digest, exp.SHA, exp.SHA2)},
}

#: sqlglot's annotators of the Athena dialect with Trino's result types on top.
EXPRESSION_METADATA: Dict[type, Dict[str, Any]] = {**_ATHENA, **OVERRIDES}

__all__ = ["EXPRESSION_METADATA", "common_super_type"]
