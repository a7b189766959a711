"""Just enough Java to read Trino's test assertions (tests/conformance/trino_tests.py): a
lexer, a splitter into statements (each with its line), and a parser of one statement's
expression into a small tree. Nothing is compiled or run; what the parser does not know
raises ``JavaSyntaxError`` and the statement is skipped with that reason."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple


class JavaSyntaxError(ValueError):
    """A construct outside the subset read here."""


@dataclass(frozen=True)
class Token:
    kind: str  # "str", "char", "num", "id", "op"
    text: str  # the source text; for "str" the string's value
    line: int


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<block>\"\"\"[ \t]*\n.*?\"\"\")
  | (?P<str>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])+')
  | (?P<num>0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][-+]?\d+)?[lLfFdD]?
        |(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?[lLfFdD]?)
  | (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>->|::|==|!=|<=|>=|&&|\|\||\+\+|--|[-+*/%=<>!?:;,.(){}\[\]@&|^~])
    """,
    re.S | re.X,
)

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "s": " ", '"': '"'}
_ESCAPES.update({"'": "'", "\\": "\\", "\n": ""})


def unescape(body: str) -> str:
    """A Java string literal's body as its value (\\uXXXX and octal escapes included)."""
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "u":
            j = i + 1
            while body[j] == "u":
                j += 1
            out.append(chr(int(body[j : j + 4], 16)))
            i = j + 4
        elif nxt in "01234567":
            octal = re.match(r"[0-3]?[0-7]{1,2}|[0-7]", body[i + 1 :])
            assert octal is not None
            out.append(chr(int(octal.group(0), 8)))
            i += 1 + len(octal.group(0))
        elif nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        else:
            raise JavaSyntaxError(f"unknown escape \\{nxt}")
    # a Java String is UTF-16: \uD801\uDC2D is one code point, not two lone surrogates
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


def text_block(source: str) -> str:
    """A Java text block (``\"\"\"`` ... ``\"\"\"``) as its value: incidental indentation
    stripped (JLS 3.10.6), trailing spaces removed, escapes processed."""
    body = source[3:-3]
    body = body[body.index("\n") + 1 :]
    lines = body.split("\n")
    closing_alone = lines[-1].strip() == ""
    significant = [ln for ln in lines[:-1] if ln.strip()] + [lines[-1]]
    indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in significant), default=0)
    stripped = [ln[indent:].rstrip(" \t") for ln in lines]
    text = "\n".join(stripped[:-1]) + "\n" if closing_alone else "\n".join(stripped)
    return unescape(text)


def tokenize(source: str) -> List[Token]:
    tokens: List[Token] = []
    line, pos = 1, 0
    while pos < len(source):
        m = _TOKEN.match(source, pos)
        if m is None:
            raise JavaSyntaxError(f"line {line}: cannot read {source[pos : pos + 20]!r}")
        kind, text = m.lastgroup or "", m.group(0)
        if kind == "block":
            tokens.append(Token("str", text_block(text), line))
        elif kind == "str":
            tokens.append(Token("str", unescape(text[1:-1]), line))
        elif kind in ("char", "num", "id", "op"):
            tokens.append(Token(kind, text, line))
        line += text.count("\n")
        pos = m.end()
    return tokens


# ---------------------------------------------------------------------------------------
# Statements

_HEADERS = {"for", "while", "if", "else", "try", "switch", "do", "catch", "finally", "synchronized"}


@dataclass(frozen=True)
class Statement:
    tokens: Tuple[Token, ...]
    line: int
    depth: int  # braces around it: 1 = a class member, 2+ = inside a method


def statements(tokens: List[Token]) -> Iterator[Statement]:
    """Top-level statements (ending in ``;`` outside parentheses), with control-flow headers
    (``for (...)``) and annotations dropped; braces inside parentheses (lambdas, array
    initialisers) stay in their statement."""
    current: List[Token] = []
    parens = braces = 0
    for tok in tokens:
        if tok.kind == "op" and tok.text in "([":
            parens += 1
        elif tok.kind == "op" and tok.text in ")]":
            parens -= 1
        if parens == 0 and tok.kind == "op" and tok.text in ";{}":
            if tok.text == ";" and current:
                yield Statement(tuple(current), current[0].line, braces)
            if tok.text == "{" and current and current[-1].text == "=":  # an array initialiser
                current.append(tok)
                parens += 1
                continue
            braces += {"{": 1, "}": -1}.get(tok.text, 0)
            current = []
            continue
        if not current and tok.kind == "id" and tok.text in _HEADERS:
            continue  # `for (...) stmt;` / `else stmt;`: the header's parentheses follow
        current.append(tok)
        if parens == 0 and len(current) >= 1 and _is_header_end(current):
            current = []


def _is_header_end(current: List[Token]) -> bool:
    """A parenthesised control-flow header just closed (`(...)` with nothing before it)."""
    return current[0].text == "(" and current[-1].text == ")"


# ---------------------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True)
class Node:
    """``kind``: lit (value = Token), name (value = identifier), field (target.value),
    call (target.value(args); target None for a bare call), new (value = type text, args),
    cast (value = type text, args = [operand]), unary (value = op, args = [operand]),
    binary (value = op, args = [l, r]), lambda (args = [body]), ref (target::value),
    array (args = elements)."""

    kind: str
    value: object = None
    target: Optional[Node] = None
    args: Tuple[Node, ...] = ()


_BINARY = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4}
_BINARY.update({"+": 5, "-": 5, "*": 6, "/": 6, "%": 6})
_PRIMITIVES = {"byte", "short", "int", "long", "float", "double", "char", "boolean", "Object"}


class Parser:
    def __init__(self, tokens: Tuple[Token, ...]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self, offset: int = 0) -> Optional[Token]:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def at(self, text: str, offset: int = 0) -> bool:
        tok = self.peek(offset)
        return tok is not None and tok.kind in ("op", "id") and tok.text == text

    def take(self, text: Optional[str] = None) -> Token:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text):
            raise JavaSyntaxError(f"expected {text!r}, got {tok.text if tok else 'end'!r}")
        self.pos += 1
        return tok

    def parse(self) -> Node:
        node = self.expression()
        if self.peek() is not None:
            raise JavaSyntaxError(f"unexpected {self.peek().text!r}")  # type: ignore[union-attr]
        return node

    def expression(self, level: int = 0) -> Node:
        if self._lambda_ahead():
            return self.lambda_()
        left = self.unary()
        while True:
            tok = self.peek()
            if tok is None or tok.kind != "op":
                return left
            if tok.text == "?" and level == 0:
                raise JavaSyntaxError("conditional expression")
            prec = _BINARY.get(tok.text)
            if prec is None or prec <= level:
                return left
            self.take()
            left = Node("binary", tok.text, None, (left, self.expression(prec)))

    def _lambda_ahead(self) -> bool:
        if self.peek() is not None and self.peek().kind == "id" and self.at("->", 1):  # type: ignore[union-attr]
            return True
        if not self.at("("):
            return False
        depth, i = 0, 0
        while (tok := self.peek(i)) is not None:
            depth += {"(": 1, ")": -1}.get(tok.text, 0) if tok.kind == "op" else 0
            if depth == 0:
                return self.at("->", i + 1)
            i += 1
        return False

    def lambda_(self) -> Node:
        if self.at("("):
            while not self.at(")"):
                self.take()
            self.take(")")
        else:
            self.take()
        self.take("->")
        if self.at("{"):
            self.take("{")
            body = self.expression()
            if self.at(";"):
                self.take(";")
            self.take("}")
            return Node("lambda", None, None, (body,))
        return Node("lambda", None, None, (self.expression(),))

    def unary(self) -> Node:
        if self.at("-") or self.at("!") or self.at("+"):
            op = self.take().text
            return Node("unary", op, None, (self.unary(),))
        if self.at("(") and self._cast_ahead():
            self.take("(")
            type_name = self.take().text
            self.take(")")
            return Node("cast", type_name, None, (self.unary(),))
        return self.postfix(self.primary())

    def _cast_ahead(self) -> bool:
        name, close = self.peek(1), self.peek(2)
        return (
            name is not None
            and name.kind == "id"
            and name.text in _PRIMITIVES
            and close is not None
            and close.text == ")"
        )

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind in ("str", "num", "char"):
            return Node("lit", tok)
        if tok.kind == "id" and tok.text in ("true", "false", "null"):
            return Node("lit", tok)
        if tok.kind == "id" and tok.text == "new":
            return self.new()
        if tok.kind == "id":
            if self.at("("):
                return Node("call", tok.text, None, tuple(self.arguments()))
            return Node("name", tok.text)
        if tok.text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        raise JavaSyntaxError(f"unexpected {tok.text!r}")

    def new(self) -> Node:
        parts = [self.take().text]
        while self.at("."):
            self.take(".")
            parts.append(self.take().text)
        if self.at("<"):
            while not self.at(">"):
                self.take()
            self.take(">")
        if self.at("["):
            raise JavaSyntaxError("array creation")
        args = tuple(self.arguments())
        if self.at("{"):
            raise JavaSyntaxError("anonymous class")
        return Node("new", ".".join(parts), None, args)

    def arguments(self) -> List[Node]:
        self.take("(")
        args: List[Node] = []
        while not self.at(")"):
            args.append(self.expression())
            if not self.at(")"):
                self.take(",")
        self.take(")")
        return args

    def postfix(self, node: Node) -> Node:
        while True:
            if self.at("."):
                self.take(".")
                if self.at("<"):  # explicit type arguments: Foo.<T>bar()
                    while not self.at(">"):
                        self.take()
                    self.take(">")
                name = self.take().text
                if self.at("("):
                    node = Node("call", name, node, tuple(self.arguments()))
                else:
                    node = Node("field", name, node)
            elif self.at("::"):
                self.take("::")
                node = Node("ref", self.take().text, node)
            elif self.at("["):
                raise JavaSyntaxError("array access")
            else:
                return node


def parse_expression(tokens: Tuple[Token, ...]) -> Node:
    return Parser(tokens).parse()
