"""Trino 410's aggregate result types, generated from its source: for every aggregate that
``docs/src/main/sphinx/functions/aggregate.rst`` documents, each signature (argument types
-> result type) that ``io.trino.operator.aggregation`` declares.

Trino builds an aggregate's signatures from annotations (``AggregationFromAnnotationsParser``):
a class annotated ``@AggregationFunction("name", alias = ...)`` (or a class whose output
methods carry their own ``@AggregationFunction``, as ``VarianceAggregation``), whose
``@InputFunction`` methods give the argument types (their parameters' ``@SqlType``; a
``@TypeParameter`` or ``@LiteralParameters`` variable is a pattern) and whose
``@OutputFunction("type")`` gives the result type. This module reads those annotations
from the Trino mirror at :data:`COMMIT` (``git show``, tokens by java_source.tokenize).
The one documented aggregate whose signature is built in code, reduce_agg
(``ReduceAggregationFunction``, a SqlAggregationFunction), is in :data:`HAND_WRITTEN`.

Run ``python -m tests.conformance.trino_aggregates`` to rewrite
``tests/conformance/trino_aggregates.json`` (it records the commit; do not edit it by hand).
Types are lower case with no spaces; single letters are variables: ``t``, ``k``, ``v``
type variables, ``p``, ``s``, ``x`` literal parameters (decimal(p,s), varchar(x)).
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from tests.conformance.java_source import Token, tokenize

COMMIT = "9300afd0a417"
MIRROR = Path("/work/.mirror/martint+trino/repo")
PACKAGE = "core/trino-main/src/main/java/io/trino/operator/aggregation/"
STANDARD_TYPES = "core/trino-spi/src/main/java/io/trino/spi/type/StandardTypes.java"
DOCS = "docs/src/main/sphinx/functions/aggregate.rst"
OUTPUT = Path(__file__).with_name("trino_aggregates.json")

#: Documented aggregates whose signature Trino builds in code, not from annotations.
HAND_WRITTEN: Dict[str, List[dict]] = {
    "reduce_agg": [
        {
            "arguments": ["t", "s", "function(s,t,s)", "function(s,s,s)"],
            "returns": "s",
            "class": "ReduceAggregationFunction",
        }
    ],
}


@dataclass(frozen=True)
class Annotation:
    name: str
    args: Dict[str, object]  # "value" for the single unnamed argument


@dataclass(frozen=True)
class Member:
    """A class member's header: its annotations and, for a method, its parameters (each
    a list of its annotations)."""

    annotations: Tuple[Annotation, ...]
    parameters: Tuple[Tuple[Annotation, ...], ...]


def git_show(path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(MIRROR), "show", f"{COMMIT}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def constants(source: str) -> Dict[str, str]:
    """``public static final String NAME = "value";`` of a Java source."""
    found = re.findall(r'static final String (\w+) = "([^"]*)";', source)
    return dict(found)


def normalize(kind: str) -> str:
    """A type's text as this table writes it: lower case, no spaces after commas or
    parentheses (``map(T, BIGINT)`` is ``map(t,bigint)``; ``interval day to second``
    keeps its inner spaces)."""
    text = re.sub(r"\s*([(),])\s*", r"\1", kind.strip().lower())
    return re.sub(r"\s+", " ", text)


def _value(tokens: List[Token], names: Dict[str, str]) -> object:
    """An annotation argument: a string (literals and constants joined by ``+``), a list
    (``{...}``), or the raw text of anything else (``true``, ``Foo.class``)."""
    if tokens and tokens[0].text == "{" and tokens[-1].text == "}":
        return [_value(part, names) for part in _split(tokens[1:-1]) if part]
    parts = _split(tokens, "+")
    if all((len(p) == 1 and p[0].kind == "str") or _constant(p, names) for p in parts):
        return "".join(p[0].text if p[0].kind == "str" else _constant(p, names) for p in parts)  # type: ignore[misc]
    return "".join(t.text for t in tokens)


def _constant(part: List[Token], names: Dict[str, str]) -> Optional[str]:
    """``StandardTypes.BIGINT`` or a statically imported ``BIGINT``."""
    if part and part[-1].kind == "id" and all(t.kind == "id" or t.text == "." for t in part):
        return names.get(part[-1].text)
    return None


def _split(tokens: List[Token], sep: str = ",") -> List[List[Token]]:
    """``tokens`` split at ``sep`` outside brackets."""
    parts: List[List[Token]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == "op" and tok.text in "({[":
            depth += 1
        elif tok.kind == "op" and tok.text in ")}]":
            depth -= 1
        if depth == 0 and tok.kind == "op" and tok.text == sep:
            parts.append([])
        else:
            parts[-1].append(tok)
    return parts


def _closing(tokens: List[Token], start: int) -> int:
    """The index of the bracket closing the one at ``start``."""
    depth = 0
    for i in range(start, len(tokens)):
        if tokens[i].kind == "op" and tokens[i].text in "({[":
            depth += 1
        elif tokens[i].kind == "op" and tokens[i].text in ")}]":
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced brackets")


def annotations(tokens: List[Token], names: Dict[str, str]) -> List[Annotation]:
    """The annotations among ``tokens`` (a header), nested ones (inside another's
    arguments) not repeated."""
    found, i = [], 0
    while i < len(tokens):
        if tokens[i].text == "@" and i + 1 < len(tokens) and tokens[i + 1].kind == "id":
            name, i = tokens[i + 1].text, i + 2
            args: Dict[str, object] = {}
            if i < len(tokens) and tokens[i].text == "(":
                end = _closing(tokens, i)
                for part in _split(tokens[i + 1 : end]):
                    if len(part) > 2 and part[0].kind == "id" and part[1].text == "=":
                        args[part[0].text] = _value(part[2:], names)
                    elif part:
                        args["value"] = _value(part, names)
                i = end + 1
            found.append(Annotation(name, args))
        else:
            i += 1
    return found


@dataclass(frozen=True)
class JavaClass:
    name: str
    annotations: Tuple[Annotation, ...]
    members: Tuple[Member, ...]


def classes(tokens: List[Token], names: Dict[str, str]) -> List[JavaClass]:
    """The top-level class and the classes nested in it (QuantileDigestAggregationFunction
    holds one aggregation class per type): each with its annotations and its members'
    headers (methods' bodies skipped)."""
    start = _class_keyword(tokens)
    assert start is not None, "no class"
    head_from = max((i + 1 for i, t in enumerate(tokens[:start]) if t.text == ";"), default=0)
    return _class(tokens, start, annotations(tokens[head_from:start], names), names)


def _class_keyword(tokens: List[Token]) -> Optional[int]:
    """Where the ``class`` keyword is (not ``Foo.class``)."""
    return next(
        (i for i, t in enumerate(tokens) if t.text == "class" and tokens[i - 1].text != "."),
        None,
    )


def _class(
    tokens: List[Token], start: int, owner: List[Annotation], names: Dict[str, str]
) -> List[JavaClass]:
    """The class whose ``class`` keyword is at ``start``, then its nested classes."""
    body = next(i for i in range(start, len(tokens)) if tokens[i].text == "{")
    found: List[Member] = []
    nested: List[JavaClass] = []
    header: List[Token] = []
    i = body + 1
    while i < len(tokens) and tokens[i].text != "}":
        tok = tokens[i]
        if tok.text == "(":  # an annotation's or the method's parameters
            end = _closing(tokens, i)
            header.extend(tokens[i : end + 1])
            i = end + 1
            continue
        keyword = _class_keyword(header)
        if tok.text == "{" and keyword is not None:
            inner = annotations(header[:keyword], names)
            nested.extend(_class(tokens, i - len(header) + keyword, inner, names))
            i, header = _closing(tokens, i) + 1, []
            continue
        if tok.text in (";", "{"):
            if tok.text == "{":
                i = _closing(tokens, i)
            found.append(_member(header, names))
            header = []
        else:
            header.append(tok)
        i += 1
    return [JavaClass(tokens[start + 1].text, tuple(owner), tuple(found)), *nested]


def _member(header: List[Token], names: Dict[str, str]) -> Member:
    """A header's annotations (before its name) and its parameters' annotations."""
    name_at = None
    for i in range(1, len(header)):
        if (
            header[i].text == "("
            and header[i - 1].kind == "id"
            and (i < 2 or header[i - 2].text != "@")
        ):
            name_at = i
    if name_at is None:
        return Member(tuple(annotations(header, names)), ())
    end = _closing(header, name_at)
    params = tuple(
        tuple(annotations(part, names)) for part in _split(header[name_at + 1 : end]) if part
    )
    return Member(tuple(annotations(header[:name_at], names)), params)


def _names(annotation: Annotation) -> List[str]:
    alias = annotation.args.get("alias", [])
    aliases = alias if isinstance(alias, list) else [alias]
    return [str(annotation.args["value"]), *map(str, aliases)]


def _find(found: Iterable[Annotation], name: str) -> Optional[Annotation]:
    return next((a for a in found if a.name == name), None)


def signatures(source: str, cls: str, names: Dict[str, str]) -> Iterator[Tuple[str, dict]]:
    """(aggregate name, {arguments, returns, class}) of one source file's aggregation
    classes (a nested one is named ``Outer.Inner``)."""
    names = {**names, **constants(source)}
    for java in classes(tokenize(source), names):
        label = cls if java.name == cls.rsplit(".", 1)[-1] else f"{cls}.{java.name}"
        yield from _class_signatures(java, label)


def _input_types(member: Member) -> List[str]:
    """An input function's argument types: its parameters' ``@SqlType`` (not the state's)."""
    arguments = []
    for param in member.parameters:
        kind = _find(param, "SqlType")
        if kind is not None and _find(param, "AggregationState") is None:
            arguments.append(normalize(str(kind.args["value"])))
    return arguments


def _class_signatures(java: JavaClass, cls: str) -> Iterator[Tuple[str, dict]]:
    class_name = _find(java.annotations, "AggregationFunction")
    inputs: List[List[str]] = []
    for member in java.members:
        if _find(member.annotations, "InputFunction") is not None:
            arguments = _input_types(member)
            if arguments not in inputs:
                inputs.append(arguments)
    for member in java.members:
        output = _find(member.annotations, "OutputFunction")
        if output is None:
            continue
        named = _find(member.annotations, "AggregationFunction") or class_name
        if named is None or "value" not in named.args:
            raise ValueError(f"{cls}: an output function with no aggregate name")
        for name in _names(named):
            for arguments in inputs:
                yield (
                    name,
                    {
                        "arguments": arguments,
                        "returns": normalize(str(output.args["value"])),
                        "class": cls,
                    },
                )


def documented(rst: str) -> List[str]:
    """The aggregates ``aggregate.rst`` documents (``.. function:: name(...)``), in order."""
    out: List[str] = []
    for name in re.findall(r"^\.\. function:: (\w+)\(", rst, re.M):
        if name not in out:
            out.append(name)
    return out


def _aggregation_classes() -> List[str]:
    listing = subprocess.run(
        ["git", "-C", str(MIRROR), "ls-tree", "-r", "--name-only", COMMIT, PACKAGE],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return [p for p in listing if p.endswith(".java")]


def generate() -> dict:
    """The table: documented aggregate -> its signatures; what the source declares and
    the docs do not (skipped, with the class), and the commit."""
    names = constants(git_show(STANDARD_TYPES))
    docs = documented(git_show(DOCS))
    table: Dict[str, List[dict]] = {}
    undocumented: Dict[str, List[str]] = {}
    for path in _aggregation_classes():
        source = git_show(path)
        if "@AggregationFunction" not in source:
            continue
        cls = path[len(PACKAGE) : -len(".java")].replace("/", ".")
        for name, signature in signatures(source, cls, names):
            if name not in docs:
                undocumented.setdefault(name, [])
                if cls not in undocumented[name]:
                    undocumented[name].append(cls)
            elif signature not in table.setdefault(name, []):
                table[name].append(signature)
    for name, rows in HAND_WRITTEN.items():
        table.setdefault(name, []).extend(r for r in rows if r not in table.get(name, []))
    missing = [name for name in docs if name not in table]
    if missing:
        raise ValueError(f"documented aggregates with no signature found: {missing}")
    return {
        "generated": "by tests/conformance/trino_aggregates.py from the Trino mirror; do not edit",
        "trino_commit": COMMIT,
        "sources": [PACKAGE, DOCS],
        "hand_written": {k: [r["class"] for r in v] for k, v in HAND_WRITTEN.items()},
        "skipped_not_documented": {k: sorted(v) for k, v in sorted(undocumented.items())},
        "aggregates": {name: table[name] for name in docs},
    }


# ---- resolving a call: Trino's FunctionResolver over the table ---------------------------
_VARIABLES = {"t", "k", "v", "e", "s"}  # the type variables the aggregation classes declare
_INTEGRAL_DIGITS = {"tinyint": 3, "smallint": 5, "integer": 10, "bigint": 19}
_DECIMAL = re.compile(r"decimal\((\d+),(\d+)\)")
_VARCHAR = re.compile(r"varchar(?:\((\d+)\))?")
_TIMESTAMP = re.compile(r"timestamp\((\d+)\)")


def can_coerce(actual: str, declared: str) -> bool:
    """Trino's implicit coercion (TypeCoercion.canCoerce) of the scalar types in this
    table: an integral type to a wider one, to decimal of its digits, to real and double;
    a decimal to a wider decimal, real and double; real to double; varchar(n) to a longer
    or unbounded varchar; timestamp(p) to a finer one; unknown (NULL) to anything."""
    if actual == declared or actual == "unknown":
        return True
    if declared in ("real", "double") and (
        actual in _INTEGRAL_DIGITS or _DECIMAL.fullmatch(actual)
    ):
        return True
    if actual == "real":
        return declared == "double"
    order = list(_INTEGRAL_DIGITS)
    if actual in _INTEGRAL_DIGITS:
        if declared in _INTEGRAL_DIGITS:
            return order.index(declared) > order.index(actual)
        actual = f"decimal({_INTEGRAL_DIGITS[actual]},0)"
    a, d = _DECIMAL.fullmatch(actual), _DECIMAL.fullmatch(declared)
    if a and d:
        (ap, as_), (dp, ds) = map(int, a.groups()), map(int, d.groups())
        return ds >= as_ and dp - ds >= ap - as_
    a, d = _VARCHAR.fullmatch(actual), _VARCHAR.fullmatch(declared)
    if a and d:
        return d.group(1) is None or (a.group(1) is not None and int(a.group(1)) <= int(d.group(1)))
    a, d = _TIMESTAMP.fullmatch(actual), _TIMESTAMP.fullmatch(declared)
    return bool(a and d and int(a.group(1)) <= int(d.group(1)))


def type_parts(kind: str) -> Tuple[str, List[str]]:
    """``map(k,array(v))`` as ("map", ["k", "array(v)"]); a type with no parameters as
    (itself, [])."""
    if not kind.endswith(")") or "(" not in kind:
        return kind, []
    base, _, inner = kind.partition("(")
    params, depth, current = [], 0, ""
    for ch in inner[:-1]:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            params.append(current)
            current = ""
        else:
            current += ch
    return base, [*params, current]


def _bind_one(want: str, have: str, found: Dict[str, str], coerce: bool) -> bool:
    if want in _VARIABLES:
        return found.setdefault(want, have) == have
    if want.startswith("function("):
        return have.startswith("function")
    if want == "decimal(p,s)":
        if coerce and have in _INTEGRAL_DIGITS:
            have = f"decimal({_INTEGRAL_DIGITS[have]},0)"
        decimal = _DECIMAL.fullmatch(have)
        if decimal is not None:
            found["p"], found["s"] = decimal.groups()
        return decimal is not None
    if want == "varchar(x)":
        varchar = _VARCHAR.fullmatch(have)
        if varchar is not None:
            found["x"] = varchar.group(1) or ""
        return varchar is not None
    (base, params), (have_base, have_params) = type_parts(want), type_parts(have)
    if params and base in ("array", "map", "qdigest") and base == have_base:
        return len(params) == len(have_params) and all(
            _bind_one(w, h, found, False) for w, h in zip(params, have_params)
        )
    return have == want or (coerce and can_coerce(have, want))


def bind(declared: List[str], actual: List[str], coerce: bool) -> Optional[Dict[str, str]]:
    """The variables' values binding ``actual`` argument types to a signature's
    ``declared`` ones (SignatureBinder), None when they do not bind. A variable binds any
    type, decimal(p,s) any decimal (an integral type, with coercion, as decimal of its
    digits), varchar(x) any varchar, map(k,v) and array(t) a map and an array whose
    parameters bind; a function type binds a lambda (given as ``function``)."""
    if len(declared) != len(actual):
        return None
    found: Dict[str, str] = {}
    ok = all(_bind_one(w, h, found, coerce) for w, h in zip(declared, actual))
    return found if ok else None


def substitute(kind: str, values: Dict[str, str]) -> str:
    """A signature's type with its variables replaced (``decimal(38,s)`` with s=2 is
    ``decimal(38,2)``)."""
    return re.sub(r"\b[a-z]\b", lambda m: values.get(m.group(0), m.group(0)), kind)


def resolve(table: Dict[str, List[dict]], name: str, actual: List[str]) -> Optional[str]:
    """The result type of ``name(actual...)`` as Trino's FunctionResolver picks the
    signature: an exact binding first; else, of those that bind with coercion, the most
    specific (one whose bound argument types bind to every other's declared ones;
    FunctionResolver.selectMostSpecificFunctions). None: no signature applies, or no
    single most specific one (AMBIGUOUS_FUNCTION_CALL)."""
    rows = table.get(name, [])
    for coerce in (False, True):
        applicable = []
        for row in rows:
            values = bind(row["arguments"], actual, coerce)
            if values is not None:
                bound = [substitute(a, values) for a in row["arguments"]]
                applicable.append((row, values, bound))
        best = [
            a
            for a in applicable
            if all(bind(b[0]["arguments"], a[2], True) is not None for b in applicable)
        ]
        if applicable:
            results = {substitute(row["returns"], values) for row, values, _ in best}
            return results.pop() if len(results) == 1 else None
    return None


def load() -> dict:
    """The generated table (tests/conformance/trino_aggregates.json)."""
    return dict(json.loads(OUTPUT.read_text()))


def main() -> None:
    OUTPUT.write_text(json.dumps(generate(), indent=1) + "\n")
    table = load()["aggregates"]
    print(f"{len(table)} aggregates, {sum(map(len, table.values()))} signatures -> {OUTPUT}")


if __name__ == "__main__":
    main()
