"""Trino 410's function signatures: the Athena type of a call from its arguments' Athena
types, where sqlglot's type annotation does not know it or gives another (an array's
element, a lambda's result, a varchar's length). Pure.

:func:`athena_type` types an expression of the *Athena* tree (before its rewrite into Spark
forms) bottom-up from :data:`RULES` (signature_rules.py holds them), each rule named after the Trino class that declares
the signature (``ArrayFunctions``, ``JoniRegexpFunctions``, ...). It answers only where
every part of the expression is typed by a rule or is a leaf of known type (a literal, a
cast, a column of known type): None otherwise, and then the translation's other type
rules stand (or ``typeof`` refuses). Trino's ``unknown`` type (of ``NULL``, of
``ARRAY[]``'s elements) is ``DataType(NULL)``.

translate.annotate records the answer on each ``typeof`` argument and each result column
(:data:`SIGNATURE_TYPE`), which ``typeof``, ``GetQueryResults``' ColumnInfo and a CTAS's
Glue columns use where the translation's own types cannot tell.
"""

from __future__ import annotations

from functools import reduce
from typing import Callable, Dict, List, Mapping, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion_types import type_name
from athena_spark_emulator.sql.return_types import number_super_type
from athena_spark_emulator.sql.spark_forms import (
    build_type,
    is_decimal,
    is_double,
    is_integral,
    literal_type,
    type_of,
    wider_integral,
    wider_varchar,
)

T = exp.DataType.Type
Kind = Optional[exp.DataType]
Env = Mapping[str, exp.DataType]


UNKNOWN = exp.DataType(this=T.NULL)  # Trino's unknown: the type of NULL


def named_type(text: str) -> exp.DataType:
    return build_type(text)


def array_of(kind: exp.DataType) -> exp.DataType:
    return exp.DataType(this=T.ARRAY, expressions=[kind.copy()], nested=True)


def map_of(key: exp.DataType, value: exp.DataType) -> exp.DataType:
    return exp.DataType(this=T.MAP, expressions=[key.copy(), value.copy()], nested=True)


def varchar_of(size: Optional[int]) -> exp.DataType:
    return named_type("varchar" if size is None else f"varchar({min(size, 2147483647)})")


def element(kind: Kind) -> Kind:
    """An array's element type (None: not an array of known element)."""
    if kind is not None and kind.this == T.NULL:
        return UNKNOWN
    if kind is None or kind.this != T.ARRAY or len(kind.expressions) != 1:
        return None
    inner = kind.expressions[0]
    return inner if isinstance(inner, exp.DataType) else None


def key_value(kind: Kind) -> tuple:
    if kind is not None and kind.this == T.NULL:
        return UNKNOWN, UNKNOWN
    if kind is None or kind.this != T.MAP or len(kind.expressions) != 2:
        return None, None
    key, value = kind.expressions
    ok = isinstance(key, exp.DataType) and isinstance(value, exp.DataType)
    return (key, value) if ok else (None, None)


def size_of(kind: Kind) -> Optional[int]:
    """n of varchar(n) (None: unbounded)."""
    if kind is None or not kind.expressions:
        return None
    param = kind.expressions[0]
    value = param.this.this if isinstance(param, exp.DataTypeParam) else None
    return int(value) if value is not None and str(value).isdigit() else None


def is_varchar(kind: Kind) -> bool:
    return kind is not None and kind.this in (T.VARCHAR, T.TEXT)


def common(kinds: List[Kind]) -> Kind:
    """Trino's common super type (TypeCoercion.getCommonSuperType) of ``kinds``: unknown
    joins anything; varchar(n) and varchar(m) are varchar(max), with an unbounded varchar
    varchar; numbers widen (integers to the wider, decimals to the most integral digits and
    the largest scale, any double to double, else real); arrays and maps element-wise;
    None where one is not known or the rule is not modelled."""
    if not kinds or any(k is None for k in kinds):
        return None
    known = [k for k in kinds if k is not None and k.this != T.NULL]
    if not known:
        return UNKNOWN
    first = known[0]
    if all(k == first for k in known):
        return first
    if all(is_varchar(k) for k in known):
        return wider_varchar(known)
    if all(is_integral(k) for k in known):
        return reduce(wider_integral, known)
    if all(is_integral(k) or is_decimal(k) or is_double(k) for k in known):
        return number_super_type(known)
    if all(k.this == T.ARRAY for k in known):
        inner = common([element(k) for k in known])
        return array_of(inner) if inner is not None else None
    if all(k.this == T.MAP for k in known):
        pairs = [key_value(k) for k in known]
        key, value = common([p[0] for p in pairs]), common([p[1] for p in pairs])
        return map_of(key, value) if key is not None and value is not None else None
    return None


# ---- the walk ---------------------------------------------------------------------------
Rule = Callable[[exp.Expression, Env], Kind]
RULES: Dict[type, Rule] = {}
_cls: type
NAMED: Dict[str, Rule] = {}  # functions sqlglot parses as Anonymous, by name


def rule(*classes: type) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for cls in classes:
            RULES[cls] = fn
        return fn

    return register


def named(*names: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for name in names:
            NAMED[name] = fn
        return fn

    return register


def athena_type(node: Optional[exp.Expression], env: Optional[Env] = None) -> Kind:
    """Trino's type of ``node`` (an annotated Athena expression; ``env``: the types of the
    lambda parameters in scope), or None where it cannot be told."""
    if node is None:
        return None
    env = env or {}
    if isinstance(node, exp.Paren):
        return athena_type(node.this, env)
    if isinstance(node, (exp.Null, exp.Boolean, exp.Literal)):
        return _literal(node)
    unqualified = not (isinstance(node, exp.Column) and node.table)
    if isinstance(node, (exp.Column, exp.Identifier)) and unqualified and node.name in env:
        return env[node.name]
    if isinstance(node, exp.Anonymous):
        rule = NAMED.get(str(node.name).lower())
    else:
        rule = RULES.get(type(node))
    if rule is not None:
        return rule(node, env)
    if isinstance(node, exp.Column) and not env:
        return known(node)
    if not env and not node.find(exp.Lambda):
        return _translation_type(node)
    return None


def _translation_type(node: exp.Expression) -> Kind:
    """A scalar whose type the translation's own rules name (typeof's name for it: a
    number, boolean or date from sqlglot's annotation with return_types.py's Trino rules)."""
    kind = type_of(node)
    if kind is None or kind.this not in _SCALARS:
        return None
    name = type_name(node)
    return named_type(name) if name is not None else None


_SCALARS = {T.TINYINT, T.SMALLINT, T.INT, T.BIGINT, T.DOUBLE, T.FLOAT, T.BOOLEAN, T.DATE,
            T.DECIMAL, T.VARBINARY}  # fmt: skip


def _literal(node: exp.Expression) -> Kind:
    """NULL is unknown; 'abc' varchar(3) (LiteralInterpreter); numbers as Trino types them."""
    if isinstance(node, exp.Null):
        return UNKNOWN
    if isinstance(node, exp.Boolean):
        return named_type("boolean")
    return named_type(f"varchar({len(node.this)})") if node.is_string else literal_type(node.this)


def known(node: exp.Expression) -> Kind:
    """A column's or a cast's type as the annotation knows it."""
    kind = type_of(node)
    if kind is None or kind.this == T.UNKNOWN:
        return None
    if kind.this in (T.TIMESTAMP, T.TIMESTAMPTZ) and not kind.expressions:
        return None  # Athena's has a precision
    return kind


def args_of(node: exp.Expression, env: Env, *names: str) -> List[Kind]:
    return [athena_type(node.args.get(n), env) for n in names]


def all_of(node: exp.Expression, env: Env) -> List[Kind]:
    return [athena_type(a, env) for a in node.expressions]


def lambda_type(fn: Optional[exp.Expression], env: Env, params: List[Kind]) -> Kind:
    """The type of a lambda's body with its parameters of ``params``' types."""
    if not isinstance(fn, exp.Lambda) or any(p is None for p in params):
        return None
    names = [e.name for e in fn.expressions]
    if len(names) != len(params):
        return None
    scope = {**env, **{n: p for n, p in zip(names, params) if p is not None}}
    return athena_type(fn.this, scope)


def returns(text: str) -> Rule:
    return lambda node, env: named_type(text)


def same_as(name: str = "this") -> Rule:
    return lambda node, env: athena_type(node.args.get(name), env)
