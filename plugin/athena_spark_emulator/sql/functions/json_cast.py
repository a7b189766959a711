"""CAST to and from JSON, json_array and json_object (Trino's ``functions/json.md``, with
json.py): a case of conversion.py's CASTS.
"""

from __future__ import annotations

import json
import math
import re
import uuid
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, List, Optional

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion import CASTS
from athena_spark_emulator.sql.functions.json import (
    _BYTES,
    _NULL_ON_NULL,
    JSON_TYPE,
    JsonSyntaxError,
    Num,
    Obj,
    _is_scalar,
    _json_literal,
    _json_type,
    _scalar_text,
    dump,
    java_double,
    json_double,
    parse,
    quote,
)
from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.java_hash import CAPACITY, LOAD, hash_map_order, string_hash
from athena_spark_emulator.sql.spark_forms import spark, type_of, typed
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

T = exp.DataType.Type


# ---- CAST to JSON, json_array, json_object -----------------------------------------------------
def descriptor(kind: Optional[exp.DataType], what: str) -> Any:
    """The Athena type ``kind`` as the UDFs read it: ``"j"`` json, ``"s"`` varchar, ``"b"``
    boolean, ``["i", bits]``, ``"d"`` double, ``"n"`` decimal, ``"date"``, ``["a", e]``,
    ``["m", k, v]``, ``["r", [[name, t], ...]]``; Refused for others."""
    if kind is None or kind.this in (T.UNKNOWN, T.NULL):
        raise Refused(what, "the emulator cannot tell the value's type")
    simple = {
        T.JSON: "j",
        T.VARCHAR: "s",
        T.CHAR: "s",
        T.TEXT: "s",
        T.BOOLEAN: "b",
        T.DOUBLE: "d",
        T.DECIMAL: "n",
        T.DATE: "date",
    }
    bits = {T.TINYINT: 8, T.SMALLINT: 16, T.INT: 32, T.BIGINT: 64}
    if kind.this in simple:
        return simple[kind.this]
    if kind.this in bits:
        return ["i", bits[kind.this]]
    params = [e for e in kind.expressions]
    if kind.this == T.ARRAY and len(params) == 1:
        return ["a", descriptor(params[0], what)]
    if kind.this == T.MAP and len(params) == 2:
        key = descriptor(params[0], what)
        if key not in ("s", "b", "d", "n") and not (isinstance(key, list) and key[0] == "i"):
            raise Refused(what, "a map key type JSON has no text for")
        return ["m", key, descriptor(params[1], what)]
    if kind.this == T.STRUCT and params and all(isinstance(p, exp.ColumnDef) for p in params):
        if any(p.name != p.name.lower() for p in params):  # Athena's names are lower case
            raise Refused(what, "row field names with capitals")
        return ["r", [[p.name, descriptor(p.args.get("kind"), what)] for p in params]]
    raise Refused(what, f"a cast between JSON and {kind.sql('athena')}")


def to_json(value: Any, kind: Any) -> Optional[str]:
    """A SQL value of Athena type ``kind`` (a descriptor) as Trino's JSON text (CAST(x AS
    JSON)); None for NULL."""
    if value is None:
        return None
    if kind == "j":
        return str(value)
    if kind == "s":
        return quote(str(value))
    if kind == "b":
        return "true" if value else "false"
    if kind == "d":
        return json_double(float(value))
    if kind == "n":
        return str(value)  # Jackson's writeNumber(BigDecimal): BigDecimal.toString, 0E-16 too
    if kind == "date":
        return quote(value.isoformat())
    tag = kind[0]
    if tag == "i":
        return str(int(value))
    if tag == "a":
        return "[" + ",".join(to_json(v, kind[1]) or "null" for v in value) + "]"
    if tag == "m":
        entries = sorted((_key_text(k, kind[1]), v) for k, v in value.items())
        return (
            "{" + ",".join(f"{quote(k)}:{to_json(v, kind[2]) or 'null'}" for k, v in entries) + "}"
        )
    if tag == "r":
        fields = kind[1]
        return (
            "{"
            + ",".join(
                f"{quote(name)}:{to_json(value[i], sub) or 'null'}"
                for i, (name, sub) in enumerate(fields)
            )
            + "}"
        )
    raise TypeError(f"no JSON for {kind!r}")


def _key_text(key: Any, kind: Any) -> str:
    if kind == "b":
        return "true" if key else "false"
    if kind == "d":
        return java_double(float(key))
    if kind == "n":
        return _decimal_text(key)
    return str(key)


def _decimal_text(value: Any) -> str:
    """A decimal map key as Trino writes it in JSON (JsonUtil.createObjectKeyProvider:
    Decimals.toString, plain with the type's scale: ``0.0000000000000000`` for a
    decimal(36,16) zero, where Python's str gives ``0E-16``)."""
    return format(value, "f") if isinstance(value, Decimal) else str(value)


@udf("to_json", "string")
def to_json_udf(value: Any, kind: Optional[str]) -> Optional[str]:
    return to_json(value, json.loads(kind or '"j"'))


def _to_json_call(value: exp.Expression, what: str) -> exp.Expression:
    if isinstance(value, exp.Null):
        return typed(spark("CAST(NULL AS STRING)"), JSON_TYPE)
    kind = descriptor(_json_type(value), what)
    if kind == "j":
        return value
    if kind == "s" and isinstance(value, exp.Literal) and value.is_string:
        return _json_literal(quote(value.this))
    out = typed(udf_call("to_json", value, exp.Literal.string(json.dumps(kind))), JSON_TYPE)
    out.meta["athena_typeof"] = "json"  # what typeof names it (datetime._time_typeof)
    return out


_MEMBER_TYPES = {T.BOOLEAN, T.TINYINT, T.SMALLINT, T.INT, T.BIGINT, T.DOUBLE, T.VARCHAR, T.CHAR}
_MEMBER_TYPES |= {T.TEXT, T.DATE}


def _json_member(node: exp.Expression, what: str) -> exp.Expression:
    """A json_array/json_object member as JSON text: booleans, numbers and strings as JSON
    literals, a json_query result as the JSON it holds (FORMAT JSON implied), a date as
    its text (Trino casts other values to varchar); anything else refused."""
    if node.meta.get("athena_json_query") if node._meta else False:
        return udf_call("json_member", node)
    if isinstance(node, exp.Null):
        return spark("CAST(NULL AS STRING)")
    kind = _json_type(node)
    if isinstance(node, exp.Literal) and node.is_string:
        kind = exp.DataType.build("varchar")
    if kind is None or kind.this not in _MEMBER_TYPES:
        shown = kind.sql("athena") if kind is not None else "a value of unknown type"
        raise Refused(f"{what} (a member of type {shown})")
    return _to_json_call(node, what)


@udf("json_member", "string")
def json_member(text: Optional[str]) -> Optional[str]:
    """A json_query result (JSON text) inside json_array/json_object: inserted as JSON."""
    if text is None:
        return None
    try:
        return dump(parse(text))
    except JsonSyntaxError:
        raise AthenaError("JSON_INPUT_CONVERSION_ERROR: malformed JSON") from None


_UUID_TEXT = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _uuid_literals(members: List[exp.Expression]) -> None:
    """``UUID '...'`` members of json_array/json_object: Trino casts them to varchar, its
    lower-case text; that text stands in for the literal (the emulator has no uuid type)."""
    for member in members:
        # other texts keep their cast, which the type check refuses
        if (
            isinstance(member, exp.Cast)
            and member.to.this == T.UUID
            and isinstance(member.this, exp.Literal)
            and member.this.is_string
            and _UUID_TEXT.fullmatch(member.this.this)
        ):
            member.replace(exp.Literal.string(str(uuid.UUID(member.this.this))))


def _json_array_check(node: exp.Expression) -> Optional[str]:
    _uuid_literals(list(node.expressions))
    return None


@rewrites("json_array", "json_array", _json_array_check)
def json_array_(node: exp.Expression) -> exp.Expression:
    return _json_array(node, null_on_null=False)


def _json_array(node: exp.Expression, null_on_null: bool) -> exp.Expression:
    what = f"{node.sql('athena')}"
    members = [_json_member(a, what) for a in node.expressions]
    if null_on_null:
        members = [spark("coalesce(_0, 'null')", m) for m in members]
    if not members:
        return _json_text(spark("CAST('[]' AS STRING)"))
    # ABSENT ON NULL (json_array's default): concat_ws leaves NULLs out
    out = spark(
        "concat('[', _0, ']')",
        exp.Anonymous(this="concat_ws", expressions=[exp.Literal.string(","), *members]),
    )
    return _json_text(out)


def _json_text(out: exp.Expression) -> exp.Expression:
    """A json_array/json_object result: varchar (unbounded, also when the text is known),
    marked as JSON text so that json_array/json_object around it insert it as JSON, not
    as a string (Trino's JSON_ARRAY(JSON_ARRAY(1)) is [[1]]: the analyzer passes the
    inner result FORMAT JSON, as a json_query's)."""
    out.meta["athena_json_query"] = True
    return typed(out, "varchar")


_ENCODINGS = {"UTF8": "utf-8", "UTF16": "utf-16-le", "UTF32": "utf-32-le"}


def _returning_name(returning: Any) -> str:
    if isinstance(returning, exp.DataType):
        return returning.sql("athena").upper()
    if isinstance(returning, (exp.Anonymous, exp.Column)):
        return str(returning.name).upper()
    return ""


def _json_object_check(node: exp.Expression) -> Optional[str]:
    """Reads ``RETURNING varchar(n) | varbinary [FORMAT JSON] [ENCODING UTFn]`` (which
    sqlglot keeps as a function call or a column) into the node's meta, so that the check
    of its parts does not see them as a function or column of the query."""
    returning, encoding = node.args.get("return_type"), node.args.get("encoding")
    if returning and type(returning).__name__ == "FormatJson":
        returning = returning.this
    name = _returning_name(returning) if returning else "VARCHAR"
    if name not in ("VARCHAR", "VARBINARY"):
        return f"{node.sql('athena')} (RETURNING {name})"
    code = str(encoding.name).upper() if isinstance(encoding, exp.Expression) else "UTF8"
    if code not in _ENCODINGS or (encoding and name != "VARBINARY"):
        return f"{node.sql('athena')} (ENCODING {code})"
    if any(type(e).__name__ == "FormatJson" for e in node.expressions):
        return f"{node.sql('athena')} (FORMAT JSON)"
    _uuid_literals([p.expression for p in node.expressions if isinstance(p, exp.JSONKeyValue)])
    node.meta["athena_returning"] = (name, _ENCODINGS[code])
    node.set("return_type", None)
    node.set("encoding", None)
    return None


@udf("json_fail", "string")
def json_fail(text: str) -> Optional[str]:
    """Athena's failure ``text`` when the row is evaluated (NULL under try)."""
    raise AthenaError(text)


@udf("json_bytes", "binary")
def json_bytes(text: Optional[str], encoding: str) -> Optional[bytes]:
    return None if text is None else text.encode(encoding)


def _returning(node: exp.Expression, text: exp.Expression) -> exp.Expression:
    name, encoding = node.meta.get("athena_returning", ("VARCHAR", "utf-8"))
    if name == "VARBINARY":
        out = udf_call("json_bytes", text, exp.Literal.string(encoding))
        return typed(out, "varbinary")
    return _json_text(text)


@rewrites(exp.JSONObject, "json_object", _json_object_check)
def json_object_(node: exp.Expression) -> exp.Expression:
    what = f"{node.sql('athena')}"
    if node.args.get("unique_keys"):
        keys = [p.this.this for p in node.expressions if isinstance(p, exp.JSONKeyValue)]
        if len(set(keys)) != len(keys):
            text = "INVALID_FUNCTION_ARGUMENT: duplicate key passed to JSON_OBJECT function"
            return udf_call("json_fail", exp.Literal.string(text))
    handling = str(node.args.get("null_handling") or "NULL ON NULL").upper()
    absent = handling == "ABSENT ON NULL"
    keys = [p.this.this for p in node.expressions if isinstance(p, exp.JSONKeyValue)]
    if len(set(keys)) != len(keys):
        text = "NOT_SUPPORTED: cannot construct a JSON object with duplicate key"
        return udf_call("json_fail", exp.Literal.string(text))  # JsonObjectFunction's own
    if absent and len(keys) > LOAD * CAPACITY:
        raise Refused(
            f"{what} (ABSENT ON NULL with more than 12 members: the order of the members "
            "depends on how many are NULL)"
        )
    members = []
    for pair in _hash_map_order(node.expressions, what):
        if not isinstance(pair, exp.JSONKeyValue):
            raise Refused(what)
        key, value = pair.this, pair.expression
        if not (isinstance(key, exp.Literal) and key.is_string):
            raise Refused(f"{what} (a key that is not a string literal)")
        member = _json_member(value, what)
        text = f"{quote(key.this)}:"
        if absent:
            members.append(spark(f"concat({_sql_string(text)}, _0)", member))
        else:
            members.append(spark(f"concat({_sql_string(text)}, coalesce(_0, 'null'))", member))
    if not members:
        return _returning(node, spark("CAST('{}' AS STRING)"))
    joined = exp.Anonymous(this="concat_ws", expressions=[exp.Literal.string(","), *members])
    return _returning(node, spark("concat('{', _0, '}')", joined))


def _hash_map_order(pairs: List[exp.Expression], what: str) -> List[exp.Expression]:
    """json_object's members in the order Trino writes them: JsonObjectFunction puts them
    into a java.util.HashMap, whose iteration Jackson's ObjectNode follows
    (java_hash.hash_map_order). Members whose order is a HashMap tree bin's are refused."""
    keys = [str(p.this.this) if isinstance(p, exp.JSONKeyValue) else "" for p in pairs]
    order = hash_map_order([string_hash(k) for k in keys])
    if order is None:
        raise Refused(f"{what} (more than 8 members in one bucket of Trino's HashMap)")
    return [pairs[i] for i in order]


def _sql_string(text: str) -> str:
    return exp.Literal.string(text).sql("spark")


@rewrites(_NULL_ON_NULL, "json_array ... NULL ON NULL", _json_array_check)
def json_array_null_on_null(node: exp.Expression) -> exp.Expression:
    return _json_array(node, null_on_null=True)


for _code, _encoding in _ENCODINGS.items():

    def _bytes(node: exp.Expression, encoding: str = _encoding) -> exp.Expression:
        out = udf_call("json_bytes", node.expressions[0], exp.Literal.string(encoding))
        return typed(out, "varbinary")

    rewrites(f"{_BYTES}{_code.lower()}", "json_array ... RETURNING VARBINARY")(_bytes)

# ---- CAST from JSON ----------------------------------------------------------------------------
_INT_RANGES = {8: "tinyint", 16: "smallint", 32: "integer", 64: "bigint"}


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
_DOUBLE_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class CastError(Exception):
    pass


def _round_half_away(value: float) -> int:
    if math.isnan(value) or math.isinf(value):
        raise CastError("not a finite number")
    return int(Decimal(value).to_integral_value(ROUND_HALF_UP))


def from_json(value: Any, kind: Any) -> Any:
    """A parsed JSON value as the SQL value of type ``kind`` (a descriptor), Trino's
    rules (JsonUtil.currentTokenAs*): Python values; CastError where Trino fails."""
    if value is None:
        return None
    if kind == "j":
        return dump(value)
    if kind == "s":
        if isinstance(value, Num) and value.is_float:
            raise Refused("a cast of a JSON number with a fraction to varchar")
        if not _is_scalar(value):
            raise CastError("not a scalar")
        return _scalar_text(value)
    if kind == "b":
        if isinstance(value, bool):
            return value
        if isinstance(value, Num) and not value.is_float:
            number = int(value.text)  # JsonUtil.currentTokenAsBoolean: getLongValue() != 0
            if not -(2**63) <= number < 2**63:
                raise CastError("out of range of bigint")
            return number != 0
        if isinstance(value, Num):
            return float(value.text) != 0
        if isinstance(value, str):
            lowered = value.lower()
            if lowered in ("true", "t", "1"):
                return True
            if lowered in ("false", "f", "0"):
                return False
        raise CastError("not a boolean")
    if kind == "d":
        if isinstance(value, bool):
            return 1.0 if value else 0.0
        if isinstance(value, Num):
            return float(value.text)
        if isinstance(value, str) and _DOUBLE_TEXT.fullmatch(value.strip()):
            return float(value.strip())
        raise CastError("not a number")
    if kind == "date":
        if isinstance(value, str):
            return value
        raise CastError("Cannot cast JSON value to date; expected a JSON string")
    if isinstance(kind, list) and kind[0] == "i":
        if isinstance(value, bool):
            number = 1 if value else 0
        elif isinstance(value, Num):
            number = _round_half_away(float(value.text)) if value.is_float else int(value.text)
        elif isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip()):
            number = int(value.strip())
        else:
            raise CastError("not an integer")
        bits = kind[1]
        if not -(2 ** (bits - 1)) <= number < 2 ** (bits - 1):
            raise CastError("out of range")
        return number
    if isinstance(kind, list) and kind[0] == "a":
        if not isinstance(value, list) or isinstance(value, Obj):
            raise CastError("not an array")
        return [from_json(v, kind[1]) for v in value]
    if isinstance(kind, list) and kind[0] == "m":
        if not isinstance(value, Obj):
            raise CastError("not an object")
        out = {}
        for k, v in value:
            key = from_json(k, kind[1]) if kind[1] != "s" else k
            if key in out:
                raise CastError(f"Duplicate map keys ({key}) are not allowed")
            out[key] = from_json(v, kind[2])
        return out
    if isinstance(kind, list) and kind[0] == "r":
        fields = kind[1]
        if isinstance(value, Obj):
            found = {k.lower(): v for k, v in value}
            return {name: from_json(found.get(name.lower()), sub) for name, sub in fields}
        if isinstance(value, list):
            if len(value) != len(fields):
                raise CastError("row size mismatch")
            return {name: from_json(v, sub) for (name, sub), v in zip(fields, value)}
        raise CastError("not a row")
    if kind == "n":
        raise Refused("a cast of JSON to decimal")
    raise CastError(f"no cast to {kind!r}")


def _type_name(kind: Any) -> str:
    names = {"j": "json", "s": "varchar", "b": "boolean", "d": "double", "date": "date"}
    if isinstance(kind, str):
        return names.get(kind, kind)
    if kind[0] == "i":
        return _INT_RANGES[kind[1]]
    if kind[0] == "a":
        return f"array({_type_name(kind[1])})"
    if kind[0] == "m":
        return f"map({_type_name(kind[1])}, {_type_name(kind[2])})"
    return "row(" + ", ".join(f"{n} {_type_name(t)}" for n, t in kind[1]) + ")"


@udf("json_cast", "string")
def json_cast(text: Optional[str], kind_text: Optional[str]) -> Optional[str]:
    """CAST(json AS t): the value as text Spark reads exactly (a scalar's text for CAST, a
    structured value as JSON for from_json); Athena's INVALID_CAST_ARGUMENT where it fails."""
    if text is None:
        return None
    kind = json.loads(kind_text or '"s"')
    try:
        value = from_json(parse(text), kind)
    except (CastError, JsonSyntaxError) as exc:
        detail = str(exc)
        if detail.startswith("Cannot cast JSON value"):
            raise AthenaError(f"INVALID_CAST_ARGUMENT: {detail}") from None
        raise AthenaError(
            f"INVALID_CAST_ARGUMENT: Cannot cast '{text}' to {_type_name(kind).upper()}"
        ) from None
    except Refused as refused:
        raise AthenaError(
            f"NOT_SUPPORTED: the Athena emulator cannot run {refused.construct}"
        ) from None
    if value is None:
        return None
    if isinstance(kind, list) and kind[0] in ("a", "m", "r"):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _spark_ddl(kind: Any) -> str:
    simple = {"j": "string", "s": "string", "b": "boolean", "d": "double", "date": "date"}
    if isinstance(kind, str):
        return simple[kind]
    if kind[0] == "i":
        return {8: "tinyint", 16: "smallint", 32: "int", 64: "bigint"}[kind[1]]
    if kind[0] == "a":
        return f"array<{_spark_ddl(kind[1])}>"
    if kind[0] == "m":
        return f"map<{_spark_ddl(kind[1])},{_spark_ddl(kind[2])}>"
    return "struct<" + ",".join(f"`{n}`:{_spark_ddl(t)}" for n, t in kind[1]) + ">"


def cast(node: exp.Expression, safe: bool) -> exp.Expression:
    """CAST/TRY_CAST to or from JSON (conversion.py's cast hands these over: _json_cast)."""
    value, target = node.this, node.args["to"]
    what = node.sql("athena")
    if target.this == T.JSON:
        out = _to_json_call(value, what)
    else:
        kind = descriptor(target, what)
        if isinstance(kind, list) and kind[0] == "m" and kind[1] != "s":
            raise Refused(what, "a map from JSON with keys other than varchar")
        if kind == "n":
            raise Refused(what, "a cast of JSON to decimal")
        if target.this in (T.VARCHAR, T.CHAR) and target.expressions:
            raise Refused(what, "a cast of JSON to varchar(n)")
        text = udf_call("json_cast", value, exp.Literal.string(json.dumps(kind)))
        ddl = _spark_ddl(kind)
        if isinstance(kind, list) and kind[0] in ("a", "m", "r"):
            out = spark(f"from_json(_0, '{ddl}')", text)
        elif kind in ("s", "j"):
            out = text
        else:
            out = spark(f"CAST(_0 AS {ddl.upper()})", text)
    if safe:
        from athena_spark_emulator.sql.udfs import try_form

        out = out.transform(try_form)
    return typed(out, target)


@CASTS.register(20, "to and from JSON")
def _json_cast(node: Any, value: Any, target: exp.DataType, safe: bool) -> Any:
    source = type_of(value)
    if target.this == T.JSON or (source is not None and source.this == T.JSON):
        return cast(node, safe)
    return None
