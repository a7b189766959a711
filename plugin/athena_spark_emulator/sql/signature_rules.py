"""The rules of signatures.py: Trino 410's result type of each function and operator
from its arguments' types, by the Trino class that declares the signature (imported by
translate.py, which records what they give). Pure."""

from __future__ import annotations

from typing import Any, List, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion_types import athena_type_name
from athena_spark_emulator.sql.signatures import (
    NAMED,
    RULES,
    UNKNOWN,
    Env,
    Kind,
    Rule,
    all_of,
    args_of,
    array_of,
    athena_type,
    common,
    element,
    is_varchar,
    key_value,
    lambda_type,
    map_of,
    named,
    named_type,
    returns,
    rule,
    same_as,
    size_of,
    varchar_of,
)
from athena_spark_emulator.sql.spark_forms import (
    arithmetic_type,
    decimal_division,
    is_decimal,
    is_double,
    is_integral,
    literal_int,
    literal_type,
    wider_integral,
)

T = exp.DataType.Type
_cls: type


# ---- predicates -------------------------------------------------------------------------
for _cls in (
    exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE, exp.NullSafeEQ, exp.NullSafeNEQ,
    exp.And, exp.Or, exp.Not, exp.Is, exp.In, exp.Between, exp.Like, exp.ILike,
    exp.Exists, exp.ArrayContains, exp.ArrayAll, exp.ArrayAny, exp.RegexpLike,
    exp.StartsWith,
):  # fmt: skip
    RULES[_cls] = returns("boolean")
named("arrays_overlap", "all_match", "any_match", "none_match", "is_json_scalar",
       "luhn_check", "contains_sequence", "json_array_contains")(returns("boolean"))  # fmt: skip


# ---- ArrayFunctions, ArraySubscriptOperator, MapSubscriptOperator -------------------------
@rule(exp.Array)
def _array_constructor(node: exp.Expression, env: Env) -> Kind:
    """ARRAY[...]: array of the elements' common super type; ARRAY[] is array(unknown)."""
    inner = common(all_of(node, env)) if node.expressions else UNKNOWN
    return array_of(inner) if inner is not None else None


@rule(exp.Bracket)
def _subscript(node: exp.Expression, env: Env) -> Kind:
    """a[i] and element_at(a, i): the element type; m[k]: the value type; r[i] of a row:
    its i-th field's type (RowType, 1-based)."""
    kind = athena_type(node.this, env)
    if kind is None or len(node.expressions) != 1:
        return None
    if kind.this == T.ARRAY or kind.this == T.NULL:
        return element(kind)
    if kind.this == T.MAP:
        return key_value(kind)[1]
    if kind.this == T.STRUCT:
        index = literal_int(node.expressions[0])
        fields = kind.expressions
        if index is None or not 1 <= index <= len(fields):
            return None
        field = fields[index - 1]
        found = field.args.get("kind") if isinstance(field, exp.ColumnDef) else field
        return found if isinstance(found, exp.DataType) else None
    return None


@rule(exp.Struct, exp.Tuple)
def _row(node: exp.Expression, env: Env) -> Kind:
    """ROW(a, b): row of the values' types, fields without names."""
    kinds = all_of(node, env)
    if not kinds or any(k is None or k.this == T.NULL for k in kinds):
        return None
    return exp.DataType(this=T.STRUCT, expressions=[k.copy() for k in kinds], nested=True)  # type: ignore[union-attr]


def _element_of_first(node: exp.Expression, env: Env) -> Kind:
    return element(athena_type(node.this, env))


RULES[exp.ArrayMin] = RULES[exp.ArrayMax] = _element_of_first
for _cls in (exp.ArraySize, exp.ArrayPosition, exp.DateDiff):
    RULES[_cls] = returns("bigint")
named("cardinality")(returns("bigint"))
for _cls in (exp.ArrayDistinct, exp.ArraySort, exp.ArraySlice, exp.ArrayFilter, exp.ArrayRemove):
    RULES[_cls] = same_as()
named("trim_array", "shuffle", "array_sort")(
    lambda node, env: athena_type(node.expressions[0], env) if node.expressions else None
)


@rule(exp.Reverse)
def _reverse(node: exp.Expression, env: Env) -> Kind:
    """reverse(array) and reverse(varchar(x)): the argument's type."""
    kind = athena_type(node.this, env)
    return kind if kind is not None and (kind.this == T.ARRAY or is_varchar(kind)) else None


def _set_operation(kinds: List[Kind]) -> Kind:
    """array_union, array_except, array_intersect: array of the elements' common type."""
    inner = common([element(k) for k in kinds])
    return array_of(inner) if inner is not None else None


RULES[exp.ArrayExcept] = lambda node, env: _set_operation(args_of(node, env, "this", "expression"))
RULES[exp.ArrayIntersect] = lambda node, env: _set_operation(all_of(node, env))
named("array_union", "array_except", "array_intersect")(
    lambda node, env: _set_operation(all_of(node, env))
)


@named("combinations", "ngrams")
def _combinations(node: exp.Expression, env: Env) -> Kind:
    """combinations(array(T), n) and ngrams(array(T), n): array(array(T))."""
    kind = athena_type(node.expressions[0], env) if node.expressions else None
    return array_of(kind) if kind is not None and kind.this == T.ARRAY else None


@rule(exp.ArrayToString)
def _array_join(node: exp.Expression, env: Env) -> Kind:
    return named_type("varchar") if element(athena_type(node.this, env)) is not None else None


@rule(exp.Repeat)
def _repeat(node: exp.Expression, env: Env) -> Kind:
    """repeat(x, n): array of x's type (RepeatFunction)."""
    kind = athena_type(node.this, env)
    return array_of(kind) if kind is not None else None


@rule(exp.Transform)
def _transform(node: exp.Expression, env: Env) -> Kind:
    """transform(array(T), T -> U): array(U) (ArrayTransformFunction)."""
    body = lambda_type(node.expression, env, [element(athena_type(node.this, env))])
    return array_of(body) if body is not None else None


@named("zip_with")
def _zip_with(node: exp.Expression, env: Env) -> Kind:
    """zip_with(array(T), array(U), (T, U) -> R): array(R) (ZipWithFunction)."""
    if len(node.expressions) != 3:
        return None
    left, right, fn = node.expressions
    body = lambda_type(fn, env, [element(athena_type(left, env)), element(athena_type(right, env))])
    return array_of(body) if body is not None else None


@rule(exp.Reduce)
def _reduce(node: exp.Expression, env: Env) -> Kind:
    """reduce(array(T), S, (S, T) -> S, S -> R): R (ReduceFunction; the state's type is
    the initial value's)."""
    state = athena_type(node.args.get("initial"), env)
    item = element(athena_type(node.this, env))
    merged = lambda_type(node.args.get("merge"), env, [state, item])
    if merged is not None and state is not None and merged != state:  # S: both coerce to it
        state = common([state, merged])
    finish = node.args.get("finish")
    if finish is None:
        return lambda_type(node.args.get("merge"), env, [state, item])
    return lambda_type(finish, env, [state])


# X'0A' (syntax.parse has made Trino's integer 0x0A a decimal number)
RULES[exp.HexString] = returns("varbinary")


@rule(exp.Concat, exp.DPipe)
def _concat(node: exp.Expression, env: Env) -> Kind:
    """concat / || of arrays (ArrayConcatFunction, and an element appended or prepended:
    ArrayConcatUtils): array of the common type; of varchars, varchar (ConcatFunction)."""
    parts = node.expressions if isinstance(node, exp.Concat) else [node.this, node.expression]
    kinds = [athena_type(p, env) for p in parts]
    if any(k is None for k in kinds):
        return None
    if all(is_varchar(k) for k in kinds):
        return named_type("varchar")
    if all(k is not None and k.this == T.VARBINARY for k in kinds):
        return named_type("varbinary")  # VarbinaryFunctions.concat
    if not any(k is not None and k.this == T.ARRAY for k in kinds):
        return None
    inner = common([element(k) if k is not None and k.this == T.ARRAY else k for k in kinds])
    return array_of(inner) if inner is not None else None


# ---- MapFunctions, MapConstructor, lambdas over maps --------------------------------------
@rule(exp.Map)
def _map_constructor(node: exp.Expression, env: Env) -> Kind:
    """map(array(K), array(V)): map(K, V); map(): map(unknown, unknown)."""
    keys, values = node.args.get("keys"), node.args.get("values")
    if keys is None and values is None:
        return map_of(UNKNOWN, UNKNOWN)
    key, value = element(athena_type(keys, env)), element(athena_type(values, env))
    return map_of(key, value) if key is not None and value is not None else None


@rule(exp.MapKeys)
def _map_keys(node: exp.Expression, env: Env) -> Kind:
    key = key_value(athena_type(node.this, env))[0]
    return array_of(key) if key is not None else None


@named("map_keys", "map_values")
def _map_parts(node: exp.Expression, env: Env) -> Kind:
    if len(node.expressions) != 1:
        return None
    pair = key_value(athena_type(node.expressions[0], env))
    found = pair[0] if str(node.name).lower() == "map_keys" else pair[1]
    return array_of(found) if found is not None else None


@named("map_concat")
def _map_concat(node: exp.Expression, env: Env) -> Kind:
    kinds = all_of(node, env)  # a NULL argument (unknown) coerces to the maps' type
    maps = all(k is not None and k.this in (T.MAP, T.NULL) for k in kinds)
    return common(kinds) if maps and any(k.this == T.MAP for k in kinds if k) else None


@named("map_filter")
def _map_filter(node: exp.Expression, env: Env) -> Kind:
    return athena_type(node.expressions[0], env) if node.expressions else None


@named("transform_values", "transform_keys")
def _transform_map(node: exp.Expression, env: Env) -> Kind:
    """transform_values(map(K, V), (K, V) -> W): map(K, W); transform_keys: map(W, V)."""
    if len(node.expressions) != 2:
        return None
    key, value = key_value(athena_type(node.expressions[0], env))
    body = lambda_type(node.expressions[1], env, [key, value])
    if body is None or key is None or value is None:
        return None
    return (
        map_of(key, body) if str(node.name).lower() == "transform_values" else map_of(body, value)
    )


@named("map_zip_with")
def _map_zip_with(node: exp.Expression, env: Env) -> Kind:
    """map_zip_with(map(K, V1), map(K, V2), (K, V1, V2) -> R): map(K, R)."""
    if len(node.expressions) != 3:
        return None
    left, right = (key_value(athena_type(e, env)) for e in node.expressions[:2])
    body = lambda_type(node.expressions[2], env, [left[0], left[1], right[1]])
    return map_of(left[0], body) if body is not None and left[0] is not None else None


def _entries(node: exp.Expression, env: Env, multi: bool) -> Kind:
    """map_from_entries(array(row(K, V))): map(K, V); multimap_from_entries: map(K,
    array(V)); of NULL: map(unknown, unknown) (and map(unknown, array(unknown)))."""
    argument = node.this if not isinstance(node, exp.Anonymous) else node.expressions[0]
    kind = athena_type(argument, env)
    inner = element(kind)
    key: Any
    value: Any
    if inner is not None and inner.this == T.NULL:
        key = value = UNKNOWN
    elif inner is not None and inner.this == T.STRUCT and len(inner.expressions) == 2:
        fields = [
            f.args.get("kind") if isinstance(f, exp.ColumnDef) else f for f in inner.expressions
        ]
        key, value = fields
        if not (isinstance(key, exp.DataType) and isinstance(value, exp.DataType)):
            return None
    else:
        return None
    return map_of(key, array_of(value) if multi else value)


RULES[exp.MapFromEntries] = lambda node, env: _entries(node, env, False)
named("map_from_entries")(lambda node, env: _entries(node, env, False))
named("multimap_from_entries")(lambda node, env: _entries(node, env, True))
RULES[exp.StrToMap] = returns("map(varchar, varchar)")
named("split_to_map")(returns("map(varchar, varchar)"))
named("split_to_multimap")(returns("map(varchar, array(varchar))"))


# ---- StringFunctions, JoniRegexpFunctions, UrlFunctions -----------------------------------
def _text_of(node: Optional[exp.Expression], env: Env) -> Kind:
    """A varchar argument's type (None: not a varchar of known length or unbounded)."""
    kind = athena_type(node, env)
    return kind if is_varchar(kind) else None


def _same_text(name: str = "this") -> Rule:
    """``varchar(x)`` of a ``varchar(x)`` argument."""
    return lambda node, env: _text_of(node.args.get(name), env)


RULES[exp.RegexpExtract] = _same_text()
RULES[exp.Length] = returns("bigint")


@rule(exp.Upper, exp.Lower, exp.Trim, exp.Substring)
def _text_of_first(node: exp.Expression, env: Env) -> Kind:
    """upper, lower, trim, substr (StringFunctions' varchar(x) signatures): the first
    argument's varchar(x); of a char(x) upper and lower keep char(x), substr and trim
    are varchar(x)."""
    kind = athena_type(node.this, env)
    if is_varchar(kind):
        return kind
    if kind is not None and kind.this == T.CHAR and kind.expressions:
        if isinstance(node, (exp.Upper, exp.Lower)):
            return kind
        return varchar_of(size_of(kind))
    return None


RULES[exp.SplitPart] = _same_text()


@rule(exp.RegexpReplace)
def _regexp_replace(node: exp.Expression, env: Env) -> Kind:
    """regexp_replace(varchar(x), pattern): varchar(x); with a replacement varchar(y):
    varchar(min(2147483647, x + max(x * y / 2, y) * (x + 1))) (JoniRegexpFunctions); with
    a lambda: varchar."""
    source = _text_of(node.this, env)
    replacement = node.args.get("replacement")
    if source is None:
        return None
    if replacement is None:
        return source
    if isinstance(replacement, exp.Lambda):
        return named_type("varchar")
    kind = _text_of(replacement, env)
    if kind is None:
        return None
    x, y = size_of(source), size_of(kind)
    if x is None or y is None:
        return named_type("varchar")
    return varchar_of(x + max(x * y // 2, y) * (x + 1))


@rule(exp.Replace)
def _replace(node: exp.Expression, env: Env) -> Kind:
    """replace(varchar(x), search): varchar(x); with a replacement varchar(z):
    varchar(min(2147483647, x + z * (x + 1))) (StringFunctions)."""
    source = _text_of(node.this, env)
    replacement = node.args.get("replacement")
    if source is None or replacement is None:
        return source
    kind = _text_of(replacement, env)
    if kind is None:
        return None
    x, z = size_of(source), size_of(kind)
    return named_type("varchar") if x is None or z is None else varchar_of(x + z * (x + 1))


def _array_of_text(name: str = "this") -> Rule:
    def typed(node: exp.Expression, env: Env) -> Kind:
        kind = _text_of(node.args.get(name), env)
        return array_of(kind) if kind is not None else None

    return typed


for _cls in (exp.Split, exp.RegexpSplit, exp.RegexpExtractAll):
    RULES[_cls] = _array_of_text()
named("regexp_split", "regexp_extract_all", "split")(
    lambda node, env: (
        array_of(k) if node.expressions and (k := _text_of(node.expressions[0], env)) else None
    )
)
for _cls in (exp.RegexpCount,):
    RULES[_cls] = returns("bigint")
named("regexp_count", "bit_count")(returns("bigint"))
named("regexp_position")(returns("integer"))
named("nan", "infinity", "pi", "e")(returns("double"))
for _cls in (exp.ConcatWs, exp.Pad, exp.Translate, exp.TimeToStr, exp.JSONValue):
    RULES[_cls] = returns("varchar")
named(
    "format_number", "human_readable_seconds", "json_array", "json_object",
    "concat_ws", "translate", "lpad", "rpad", "date_format", "json_value", "json_query",
)(returns("varchar"))  # fmt: skip
RULES[exp.JSONObject] = returns("varchar")


@rule(exp.JSONExtract)
def _json_query(node: exp.Expression, env: Env) -> Kind:
    """json_query(...) is varchar; json_extract(json, path) is json."""
    return named_type("varchar") if node.args.get("json_query") else None


@named("url_extract_parameter", "url_extract_host", "url_extract_path", "url_extract_query",
        "url_extract_fragment", "url_extract_protocol", "url_decode")  # fmt: skip
def _url_part(node: exp.Expression, env: Env) -> Kind:
    return _text_of(node.expressions[0], env) if node.expressions else None


@rule(exp.Pad)
def _pad(node: exp.Expression, env: Env) -> Kind:
    """lpad/rpad of varchar: varchar; of varbinary: varbinary (StringFunctions,
    VarbinaryFunctions)."""
    kind = athena_type(node.this, env)
    if kind is not None and kind.this == T.VARBINARY:
        return kind
    return named_type("varchar") if is_varchar(kind) else None


# ---- BitwiseFunctions -------------------------------------------------------------------
@named("bitwise_left_shift", "bitwise_right_shift", "bitwise_right_shift_arithmetic")
def _shift(node: exp.Expression, env: Env) -> Kind:
    """The shifts keep their first argument's integral type (BitwiseFunctions)."""
    kind = athena_type(node.expressions[0], env) if node.expressions else None
    return kind if is_integral(kind) else None


# ---- conditionals and numbers -----------------------------------------------------------
@rule(exp.Nullif)
def _nullif(node: exp.Expression, env: Env) -> Kind:
    """nullif(a, b): a's type (NullIfExpression)."""
    return athena_type(node.this, env)


@rule(exp.Coalesce)
def _coalesce(node: exp.Expression, env: Env) -> Kind:
    return common([athena_type(node.this, env), *all_of(node, env)])


@rule(exp.If)
def _if(node: exp.Expression, env: Env) -> Kind:
    false = node.args.get("false")
    return common(
        [athena_type(node.args.get("true"), env), *([athena_type(false, env)] if false else [])]
    )


@rule(exp.Case)
def _case(node: exp.Expression, env: Env) -> Kind:
    values = [athena_type(w.args.get("true"), env) for w in node.args.get("ifs") or []]
    default = node.args.get("default")
    return common(values + ([athena_type(default, env)] if default is not None else []))


@rule(exp.Try)
def _try(node: exp.Expression, env: Env) -> Kind:
    return athena_type(node.this, env)


@rule(exp.Add, exp.Sub, exp.Mul, exp.Mod)
def _arithmetic(node: exp.Expression, env: Env) -> Kind:
    """Integers and decimals as the translation types them (spark_forms.arithmetic_type),
    over operands this module types."""
    left, right = athena_type(node.this, env), athena_type(node.expression, env)
    if left is not None and right is not None:  # unknown (NULL) coerces to the other
        left, right = (
            (right if left.this == T.NULL else left),
            (left if right.this == T.NULL else right),
        )
    temporal = _temporal_arithmetic(node, left, right)
    if temporal is not None:
        return temporal
    if not all(is_integral(k) or is_decimal(k) or is_double(k) for k in (left, right)):
        return None
    return arithmetic_type(node, left, right)


def _temporal_arithmetic(node: exp.Expression, left: Kind, right: Kind) -> Kind:
    """date +/- interval: date; timestamp(p) (with time zone) +/- interval day to second:
    of precision max(3, p), +/- interval year to month: p (the DateTimeOperators and
    TimestampOperators families); interval +/- interval: the interval."""
    if left is None or right is None or isinstance(node, (exp.Mul, exp.Mod)):
        return None
    interval = [k for k in (left, right) if isinstance(k.this, exp.Interval)]
    other = [k for k in (left, right) if not isinstance(k.this, exp.Interval)]
    if not interval:
        return None
    if not other:
        return left if left == right else None
    base, span = other[0], interval[0]
    if isinstance(node, exp.Sub) and base is right:
        return None  # interval - timestamp
    if base.this == T.DATE:
        return base
    if base.this in (T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME) and base.expressions:
        p = size_of(base)
        day_time = "DAY" in span.sql("trino").upper()
        if p is None:
            return None
        digits = max(3, p) if day_time else p
        return exp.DataType(
            this=base.this, expressions=[exp.DataTypeParam(this=exp.Literal.number(digits))]
        )
    return None


@rule(exp.Interval)
def _interval(node: exp.Expression, env: Env) -> Kind:
    """INTERVAL '1' DAY: interval day to second; YEAR, MONTH: interval year to month."""
    unit = node.args.get("unit")
    first = unit.this if isinstance(unit, exp.IntervalSpan) else unit
    if not isinstance(first, exp.Expression):
        return None
    name = first.name.upper()
    if name in ("YEAR", "MONTH"):
        return exp.DataType.build("interval year to month", dialect="trino")
    if name in ("DAY", "HOUR", "MINUTE", "SECOND"):
        return exp.DataType.build("interval day to second", dialect="trino")
    return None


@rule(exp.Div)
def _division(node: exp.Expression, env: Env) -> Kind:
    """Integers divide as the wider integer, a double or real makes one, decimals as
    DecimalOperators.divide (spark_forms.decimal_division)."""
    left, right = athena_type(node.this, env), athena_type(node.expression, env)
    if is_integral(left) and is_integral(right):
        return wider_integral(left, right)  # type: ignore[arg-type]
    if is_double(left) or is_double(right):
        if not all(is_integral(k) or is_decimal(k) or is_double(k) for k in (left, right)):
            return None
        double = any(k is not None and k.this == T.DOUBLE for k in (left, right))
        return named_type("double" if double else "real")
    return decimal_division(left, right)


@rule(exp.Neg)
def _negative(node: exp.Expression, env: Env) -> Kind:
    kind = athena_type(node.this, env)
    return kind if is_integral(kind) or is_decimal(kind) or is_double(kind) else None


def _decimal_literal(text: str) -> Kind:
    """DECIMAL '...': its digits (leading zeros dropped) and scale (Decimals.parse)."""
    body = text.strip().lstrip("+-")
    if not body.replace(".", "", 1).isdigit():
        return None
    if "." in body:
        return literal_type(body)
    return named_type(f"decimal({max(len(body.lstrip('0')), 1)},0)")


@rule(exp.AtTimeZone)
def _at_time_zone(node: exp.Expression, env: Env) -> Kind:
    """x AT TIME ZONE z: timestamp(p) with time zone of x's precision."""
    kind = athena_type(node.this, env)
    if kind is None or kind.this not in (T.TIMESTAMP, T.TIMESTAMPTZ) or not kind.expressions:
        return None
    return exp.DataType(this=T.TIMESTAMPTZ, expressions=[kind.expressions[0].copy()])


@named("to_iso8601")
def _to_iso8601(node: exp.Expression, env: Env) -> Kind:
    """to_iso8601 (DateTimeFunctions, ToIso8601 of the timestamps): of a date varchar(16);
    of a timestamp(p) varchar(22 + p + 1 if p); with time zone varchar(28 + p + 1 if p)."""
    kind = athena_type(node.expressions[0], env) if node.expressions else None
    if kind is not None and kind.this == T.DATE:
        return named_type("varchar(16)")
    if kind is None or kind.this not in (T.TIMESTAMP, T.TIMESTAMPTZ):
        return None
    p = size_of(kind)
    if p is None:
        return None
    base = 22 if kind.this == T.TIMESTAMP else 28
    return varchar_of(base + p + (1 if p else 0))


@rule(exp.Cast, exp.TryCast)
def _cast(node: exp.Expression, env: Env) -> Kind:
    """CAST(x AS T): T, a bare timestamp or time of precision 3, a bare varchar
    unbounded, a bare char char(1), a bare decimal decimal(38,0); the typed literals
    ``DECIMAL '1.50'`` of its digits, ``CHAR 'ab'`` of its length."""
    to = node.args.get("to")
    if not isinstance(to, exp.DataType) or to.this == T.UNKNOWN:
        return None
    # a typed literal (DECIMAL '1.5', CHAR 'ab': sqlglot's Cast without CAST's ``safe``)
    literal = isinstance(node.this, exp.Literal) and node.this.is_string and "safe" not in node.args
    if literal and to.this == T.CHAR and not to.expressions:
        return named_type(f"char({len(node.this.this)})")  # CharLiteral
    if to.this == T.DECIMAL and not to.expressions:
        return _decimal_literal(node.this.this) if literal else named_type("decimal(38,0)")
    annotated = node.type
    if annotated is not None and annotated.this == to.this and annotated.expressions:
        return annotated  # the literal's own precision or length (syntax.py)
    if to.this == T.CHAR and not to.expressions:
        return named_type("char(1)")
    if to.this in (T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME, T.TIMETZ) and not to.expressions:
        param = exp.DataTypeParam(this=exp.Literal.number(3))
        return exp.DataType(this=to.this, expressions=[param])
    return to


def signature_name(node: exp.Expression) -> Optional[str]:
    """The name typeof gives ``node``'s type by these rules (None: cannot tell)."""
    while isinstance(node, exp.Paren):
        node = node.this
    ruled = isinstance(node, (exp.Null, exp.Boolean, exp.Literal, exp.Column)) or (
        NAMED.get(str(node.name).lower())
        if isinstance(node, exp.Anonymous)
        else RULES.get(type(node))
    )
    if not ruled:  # the translation's own rules name it (its rewrite may type it)
        return None
    kind = athena_type(node)
    return athena_type_name(kind) if kind is not None else None
