"""The type oracle: for every corpus entry that states its Trino type (``type:``, from Trino's
``assertFunction(expr, TYPE, value)`` / ``.hasType(...)``), three checks of the type Athena
would give, kept apart from the value outcome (harness.py's MATCH/WRONG/...):

1. ``typeof``: harness.check_types (run after a value MATCH); a difference there is already
   a WRONG of the value table, and is counted here too.
2. ``ColumnInfo``: GetQueryResults' ``ResultSetMetadata.ColumnInfo`` of the entry's own
   query (no extra query): ``Type``, ``Precision`` and ``Scale`` must be what Athena gives
   for the stated type (:func:`expected_column_info`).
3. ``CTAS`` (opt-in, a query per entry): for a one-column entry whose type a Hive table can
   hold, ``CREATE TABLE <schema>.<unique> AS SELECT <expr> AS c`` (or ``SELECT c FROM
   (<sql>) t(c)`` for a statement with clauses), the column's type read back from Glue
   (``get_table``) must be the Glue type Athena writes (:func:`hive_glue_type`); then
   ``DROP TABLE``.

Athena's ColumnInfo (:func:`expected_column_info`): ``Type`` is the type's base name
(``varchar(3)`` -> ``varchar``, ``decimal(5,2)`` -> ``decimal``, ``timestamp(3) with time
zone`` -> ``timestamp with time zone``, ``array(integer)`` -> ``array``, ``row(...)`` ->
``row``); ``Precision``/``Scale`` a decimal's precision and scale, a varchar(n)'s n. The
precisions of the other types are those PyAthena's test suite recorded from Athena
(``tests/pyathena/test_cursor.py``, ``description``): boolean 0, tinyint 3, smallint 5,
integer 10, bigint 19, float 17, double 17, varchar 2147483647, varchar(10) 10, timestamp 3,
date 0, varbinary 1073741824, array/map/row 0, decimal(10,1) 10 and 1. Not known for sure,
so Precision and Scale are not compared (``None``): time, timestamp(p) with p other than 3,
the zoned types, char(n), json, interval, ipaddress, uuid, unknown and the sketches. **REAL**:
PyAthena's recorded answer for a Hive ``float`` column (whose Trino type, and ``typeof``,
is ``real``) has ``Type`` ``float``; Athena's ColumnInfo is taken to name ``real`` the same
way (inferred from that record, not observed for a REAL expression).

Athena's CTAS Glue type (:func:`hive_glue_type`): Athena's CTAS writes a Hive table
(Parquet by default) with Trino's ``io.trino.plugin.hive.util.HiveTypeTranslator.toTypeInfo``:
boolean, tinyint, smallint, integer -> ``int``, bigint, real -> ``float``, double,
varchar -> ``string``, varchar(n) -> ``varchar(n)`` (n <= 65535), char(n) (n <= 255),
varbinary -> ``binary``, date, timestamp(p) -> ``timestamp``, decimal(p,s), array(T) ->
``array<T>``, map(K,V) -> ``map<K,V>``, row(name T, ...) -> ``struct<name:T,...>``.
Anything else (time, the zoned types, interval, json, ipaddress, uuid, unknown, an anonymous
row field, a longer varchar or char) fails there with NOT_SUPPORTED: such entries are not
CTAS-checked.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from tests.conformance.harness import (
    ERROR,
    MATCH,
    WRONG,
    Example,
    Outcome,
    _run,
    clean_not_supported,
    single_expression,
)

AGREE = "agree"
DIFFERS = "differs"
FAILED = "failed"
NOT_RUN = "not run"
NOT_HELD = "n/a"  # CTAS: a Hive table cannot hold the type
CHECKS = ("typeof", "ColumnInfo", "CTAS")


# ---------------------------------------------------------------------------------------
# Trino's type text, parsed


@dataclass(frozen=True)
class TrinoType:
    """A Trino type as ``typeof`` prints it: ``base`` (``varchar``, ``timestamp with time
    zone``, ``interval day to second``), integer ``params`` (precision, scale, length),
    ``children`` (array, map, row) and the row's field ``names`` (None: anonymous)."""

    base: str
    params: Tuple[int, ...] = ()
    children: Tuple[TrinoType, ...] = ()
    names: Tuple[Optional[str], ...] = ()


_BASES = frozenset(
    {
        *("boolean", "tinyint", "smallint", "integer", "bigint", "real", "double", "decimal"),
        *("varchar", "char", "varbinary", "json", "date", "time", "timestamp", "interval"),
        *("array", "map", "row", "ipaddress", "uuid", "unknown", "hyperloglog"),
        *("p4hyperloglog", "qdigest", "tdigest", "setdigest", "color"),
    }
)


def _split_args(text: str) -> List[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    parts.append(current.strip())
    return parts


def _field(arg: str) -> Tuple[Optional[str], str]:
    """A row argument: (its field name or None, its type's text)."""
    quoted = re.fullmatch(r'"((?:[^"]|"")*)"\s+(.+)', arg, re.S)
    if quoted:
        return quoted.group(1).replace('""', '"'), quoted.group(2)
    named = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_$]*)\s+([a-z0-9]+)(.*)", arg, re.S)
    if named and named.group(2) in _BASES:  # a type's name follows: a named field
        return named.group(1), named.group(2) + named.group(3)
    return None, arg


def _closing(text: str) -> int:
    """The index of the parenthesis that closes the one ``text`` starts with."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i
    raise ValueError(f"unbalanced parentheses in a type: {text!r}")


def parse_type(text: str) -> TrinoType:
    """``decimal(5, 2)``, ``array(row(x integer, varchar(3)))``, ``time(6) with time zone``."""
    text = " ".join(text.strip().lower().split())
    head = re.match(r"[a-z0-9_ ]+", text)
    if head is None:
        raise ValueError(f"not a Trino type: {text!r}")
    name = head.group(0).strip()
    rest = text[head.end() :].strip()
    if not rest:
        return TrinoType(name)
    if not rest.startswith("("):
        raise ValueError(f"not a Trino type: {text!r}")
    end = _closing(rest)
    args, suffix = _split_args(rest[1:end]), rest[end + 1 :].strip()
    base = f"{name} {suffix}".strip()
    if all(a.isdigit() for a in args):
        return TrinoType(base, tuple(int(a) for a in args))
    if name == "row":
        fields = [_field(a) for a in args]
        return TrinoType(
            base, (), tuple(parse_type(t) for _, t in fields), tuple(n for n, _ in fields)
        )
    return TrinoType(base, (), tuple(parse_type(a) for a in args))


# ---------------------------------------------------------------------------------------
# What Athena gives for a Trino type

#: ColumnInfo's Precision as PyAthena's recorded Athena answers give it (module docstring)
_RECORDED_PRECISION = {
    "boolean": 0,
    "tinyint": 3,
    "smallint": 5,
    "integer": 10,
    "bigint": 19,
    "real": 17,
    "double": 17,
    "varchar": 2147483647,
    "timestamp": 3,
    "date": 0,
    "varbinary": 1073741824,
    "array": 0,
    "map": 0,
    "row": 0,
}


def _decimal(t: TrinoType) -> Tuple[int, int]:
    """A decimal's precision and scale (``decimal`` is decimal(38,0), ``decimal(p)``
    decimal(p,0))."""
    return (t.params[0], t.params[1] if len(t.params) > 1 else 0) if t.params else (38, 0)


#: ColumnInfo's Type where it is not the type's base name
_COLUMN_INFO_NAME = {"real": "float"}


def expected_column_info(text: str) -> Tuple[str, Optional[int], Optional[int]]:
    """(Type, Precision, Scale) of ColumnInfo for a column of Trino type ``text``; None where
    Athena's answer is not known for sure (not compared)."""
    t = parse_type(text)
    kind = _COLUMN_INFO_NAME.get(t.base, t.base)
    if t.base == "decimal":
        return (kind, *_decimal(t))
    if t.base == "varchar" and t.params:
        return kind, t.params[0], 0
    if t.base == "timestamp" and t.params:
        return (kind, 3, 0) if t.params[0] == 3 else (kind, None, None)
    if t.base in _RECORDED_PRECISION:
        return kind, _RECORDED_PRECISION[t.base], 0
    return kind, None, None


_HIVE_SCALARS = {
    "boolean": "boolean",
    "tinyint": "tinyint",
    "smallint": "smallint",
    "integer": "int",
    "bigint": "bigint",
    "real": "float",
    "double": "double",
    "varbinary": "binary",
    "date": "date",
    "timestamp": "timestamp",
}


def hive_glue_type(text: str) -> Optional[str]:
    """The Glue type Athena's CTAS writes for a column of Trino type ``text``
    (HiveTypeTranslator.toTypeInfo); None when a Hive table cannot hold it."""
    return _hive(parse_type(text))


def _hive(t: TrinoType) -> Optional[str]:
    if t.base in _HIVE_SCALARS:
        return _HIVE_SCALARS[t.base]
    if t.base == "varchar":
        if not t.params:
            return "string"
        return f"varchar({t.params[0]})" if t.params[0] <= 65535 else None
    if t.base == "char":
        length = t.params[0] if t.params else 1
        return f"char({length})" if length <= 255 else None
    if t.base == "decimal":
        return "decimal({},{})".format(*_decimal(t))
    children = [_hive(c) for c in t.children]
    if None in children or not children:
        return None
    if t.base == "array":
        return f"array<{children[0]}>"
    if t.base == "map":
        return f"map<{children[0]},{children[1]}>"
    if t.base == "row" and None not in t.names:
        return "struct<" + ",".join(f"{n}:{c}" for n, c in zip(t.names, children)) + ">"
    return None


def normal_glue(text: str) -> str:
    return re.sub(r"\s+", "", text.lower())


# ---------------------------------------------------------------------------------------
# Checking one entry


@dataclass
class TypeCheck:
    """The three type checks of one entry: each AGREE, DIFFERS, FAILED (its statement
    failed), NOT_RUN or (CTAS) NOT_HELD; ``found`` what was read where it differs or
    failed."""

    example: Example
    typeof: str = NOT_RUN
    column_info: str = NOT_RUN
    ctas: str = NOT_RUN
    ctas_clean: bool = False  # a failed CTAS: a NOT_SUPPORTED naming the construct
    found: Dict[str, Any] = field(default_factory=dict)

    def status(self, check: str) -> str:
        return {"typeof": self.typeof, "ColumnInfo": self.column_info, "CTAS": self.ctas}[check]

    def differing(self) -> List[str]:
        return [c for c in CHECKS if self.status(c) == DIFFERS]

    def as_dict(self) -> Dict[str, Any]:
        return {
            "id": self.example.id,
            "type": self.example.type,
            **{c: self.status(c) for c in CHECKS},
            "found": self.found,
        }


def checks_types(example: Example, values: Outcome) -> bool:
    """An entry the oracle checks: it states its types and its query succeeded where a
    value was expected."""
    return bool(example.type) and example.expect is not None and values.outcome in (MATCH, WRONG)


def check_column_info(example: Example, info: Sequence[Dict[str, Any]]) -> Optional[Any]:
    """None when ColumnInfo is what Athena gives for the stated types, else (expected,
    found) per column."""
    stated = example.type or []
    got = [(c.get("Type"), c.get("Precision"), c.get("Scale")) for c in info]
    want = [expected_column_info(t) for t in stated]
    if len(got) == len(want) and all(_agrees(w, g) for w, g in zip(want, got)):
        return None
    return {"expected": want, "ColumnInfo": got}


def _agrees(want: Sequence[Any], got: Sequence[Any]) -> bool:
    """One column's (Type, Precision, Scale) as expected (None: not compared)."""
    return want[0] == got[0] and all(w in (None, g) for w, g in zip(want[1:], got[1:]))


_TABLES = itertools.count()
_ALIASED = re.compile(r"(?is).*\bas\s+(?:\w+|\"[^\"]+\")\s*$")


def ctas_statement(sql: str, table: str) -> str:
    """``CREATE TABLE <table> AS SELECT <expr> AS c``, or ``... AS SELECT c FROM (<sql>)
    t(c)`` when the statement is no bare one-expression SELECT."""
    expression = single_expression(sql)
    if expression is not None and not _ALIASED.match(expression):
        return f"CREATE TABLE {table} AS SELECT {expression} AS c"
    return f"CREATE TABLE {table} AS SELECT c FROM ({sql}) t(c)"


def check_ctas(athena: Any, glue: Any, schema: str, example: Example, check: TypeCheck) -> None:
    """Runs the CTAS of a one-column entry whose type a Hive table holds, reads the column's
    Glue type, drops the table; records the verdict in ``check``."""
    stated = example.type or []
    want = hive_glue_type(stated[0]) if len(stated) == 1 else None
    if want is None:
        check.ctas = NOT_HELD
        return
    name = f"t{next(_TABLES)}"
    sql = ctas_statement(example.sql, f"{schema}.{name}")
    run = _run(athena, sql)
    if not run.succeeded:
        check.ctas, check.ctas_clean = FAILED, clean_not_supported(run.reason, sql)
        check.found["CTAS"] = run.reason
        return
    try:
        table = glue.get_table(DatabaseName=schema, Name=name)["Table"]
        got = [c["Type"] for c in table["StorageDescriptor"]["Columns"]]
    finally:
        _run(athena, f"DROP TABLE IF EXISTS {schema}.{name}")
    if [normal_glue(g) for g in got] == [normal_glue(want)]:
        check.ctas = AGREE
    else:
        check.ctas, check.found["CTAS"] = DIFFERS, {"expected": want, "Glue": got}


def check_entry(
    example: Example,
    values: Outcome,
    literal: Outcome,
    athena: Any = None,
    glue: Any = None,
    schema: Optional[str] = None,
) -> Optional[TypeCheck]:
    """The type checks of one entry (None: not checked, see :func:`checks_types`) from its
    value outcome and its outcome after ``typeof`` (harness.run_example_with_values); the
    CTAS too when ``schema`` names a schema of the emulator for its tables."""
    if not checks_types(example, values):
        return None
    check = TypeCheck(example)
    if values.outcome == MATCH:
        check.typeof = {MATCH: AGREE, WRONG: DIFFERS, ERROR: FAILED}[literal.outcome]
        if literal.outcome != MATCH:
            found = literal.actual
            check.found["typeof"] = found.get("types") if isinstance(found, dict) else found
    column_info = check_column_info(example, values.column_info)
    check.column_info = AGREE if column_info is None else DIFFERS
    if column_info is not None:
        check.found["ColumnInfo"] = column_info
    if schema is not None:
        check_ctas(athena, glue, schema, example, check)
    return check


# ---------------------------------------------------------------------------------------
# Figures

SUMMARY = ("checked", "agree", "typeof differs", "ColumnInfo differs", "CTAS differs")
FAILURES = ("typeof failed", "CTAS failed (clean)", "CTAS failed (other)", "CTAS n/a")


def summary(checks: Sequence[TypeCheck]) -> Counter:
    counts: Counter = Counter(checked=len(checks))
    for c in checks:
        counts["agree"] += not c.differing()
        for name in c.differing():
            counts[f"{name} differs"] += 1
        counts["typeof failed"] += c.typeof == FAILED
        counts["CTAS failed (clean)"] += c.ctas == FAILED and c.ctas_clean
        counts["CTAS failed (other)"] += c.ctas == FAILED and not c.ctas_clean
        counts["CTAS n/a"] += c.ctas == NOT_HELD
    return counts


def types_table(checks: Sequence[TypeCheck], ctas: bool) -> str:
    """The type outcome, apart from the value table: entries checked, entries where every
    check agrees, and per check the entries whose type differs (and failed)."""
    counts = summary(checks)
    columns = [*SUMMARY, *(FAILURES if ctas else FAILURES[:1])]
    width = max(len(c) for c in columns) + 2
    lines = ["types".ljust(6) + "".join(f"{c:>{width}}" for c in columns)]
    lines.append("".ljust(6) + "".join(f"{counts[c]:>{width}}" for c in columns))
    if not ctas:
        lines.append("(CTAS not run: --types ctas)")
    return "\n".join(lines)


def _shape(text: str) -> str:
    """A type's text with its lengths, precisions and scales as ``n``: ``array(varchar(3))``
    -> ``array(varchar(n))``."""
    return re.sub(r"\(\d+(?:\s*,\s*\d+)?\)", "(n)", normal_glue(text))


def cause(check: TypeCheck, name: str) -> str:
    """A difference's cause: the check, the stated type's shape and what was found instead
    (one type's answer, not the values)."""
    found = check.found.get(name)
    stated = ",".join(_shape(t) for t in check.example.type or [])
    if name == "typeof":
        return f"typeof {stated} -> {','.join(_shape(t or '') for t in found or [])}"
    if name == "ColumnInfo":
        if len(found["expected"]) != len(found["ColumnInfo"]):
            return f"ColumnInfo {stated}: column count"
        kinds = [
            f"Type {w[0]} -> {g[0]}" if w[0] != g[0] else f"{w[0]} Precision/Scale"
            for w, g in zip(found["expected"], found["ColumnInfo"])
            if not _agrees(w, g)
        ]
        return f"ColumnInfo {'; '.join(dict.fromkeys(kinds))}"
    return f"CTAS {_shape(found['expected'])} -> {','.join(_shape(g) for g in found['Glue'])}"


def type_causes(checks: Sequence[TypeCheck]) -> str:
    """Each check's differences grouped by cause, largest first, with one example each."""
    groups: Dict[str, List[TypeCheck]] = defaultdict(list)
    for c in checks:
        for name in c.differing():
            groups[cause(c, name)].append(c)
        if c.ctas == FAILED and not c.ctas_clean:
            reason = str(c.found.get("CTAS", "")).split(":", 1)[0][:40]
            groups[f"CTAS failed: {reason}"].append(c)
    lines = []
    for key, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        first = members[0]
        check = key.split(" ", 1)[0]
        lines.append(f"{len(members):5}  {key}")
        lines.append(f"       e.g. {first.example.id}: {' '.join(first.example.sql.split())[:140]}")
        lines.append(f"            stated {first.example.type}; found {first.found.get(check)}")
    return "\n".join(lines)
