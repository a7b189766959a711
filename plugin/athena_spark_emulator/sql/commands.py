"""The Athena (Hive DDL) statements sqlglot keeps as an opaque ``Command``, read with a small
parser over sqlglot's Hive tokens (Athena's DDL takes backquoted names): ``show
partitions``, ``show columns``, ``msck repair table``, ``alter table ... add
partition`` (several partitions), ``optimize``, ``vacuum``. Pure: no Spark,
no moto. Anything else raises :class:`Untranslatable` naming the statement.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import Token, TokenType

from athena_spark_emulator.sql.syntax import Name, Untranslatable


@dataclass
class Command:
    """One parsed command: ``what`` (e.g. ``"SHOW PARTITIONS"``), the table it names, and
    what follows, by command."""

    what: str
    name: Name
    partitions: List[Tuple[Dict[str, str], Optional[str]]] = field(default_factory=list)
    if_not_exists: bool = False
    location: Optional[str] = None
    rest: str = ""


class _Reader:
    def __init__(self, text: str, statement: str) -> None:
        self.tokens: List[Token] = Dialect.get_or_raise("hive").tokenize(text)
        self.at = 0
        self.statement = statement

    def peek(self, offset: int = 0) -> Optional[Token]:
        i = self.at + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def word(self, offset: int = 0) -> str:
        token = self.peek(offset)
        return token.text.lower() if token is not None else ""

    def take(self, *words: str) -> bool:
        """Consume ``words`` (case-insensitive) if they come next."""
        if all(self.word(i) == w for i, w in enumerate(words)):
            self.at += len(words)
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.take(*words):
            raise self.error(f"'{' '.join(words)}' expected")

    def error(self, detail: str) -> Untranslatable:
        near = self.word()
        return Untranslatable(
            "this statement", self.statement, f"{detail} near '{near}'" if near else detail
        )

    def name(self) -> Name:
        parts = [self.identifier()]
        while self.peek() is not None and self.peek().token_type == TokenType.DOT:  # type: ignore[union-attr]
            self.at += 1
            parts.append(self.identifier())
        if len(parts) > 3:
            raise self.error("a table name has at most three parts")
        padded: List[Optional[str]] = [None] * (3 - len(parts)) + list(parts)
        return Name(padded[0], padded[1], str(padded[2]))

    def identifier(self) -> str:
        token = self.peek()
        if token is None or token.token_type in (TokenType.L_PAREN, TokenType.STRING):
            raise self.error("a name expected")
        self.at += 1
        return token.text

    def string(self) -> str:
        token = self.peek()
        if token is None or token.token_type != TokenType.STRING:
            raise self.error("a quoted string expected")
        self.at += 1
        return token.text

    def value(self) -> str:
        token = self.peek()
        if token is None or token.token_type not in (TokenType.STRING, TokenType.NUMBER):
            raise self.error("a partition value (a literal) expected")
        self.at += 1
        return token.text

    def partition_spec(self) -> Dict[str, str]:
        self.expect("(")
        spec: Dict[str, str] = {}
        while True:
            key = self.identifier()
            self.expect("=")
            spec[key] = self.value()
            if self.take(")"):
                return spec
            self.expect(",")

    def done(self) -> bool:
        return self.peek() is None or (
            self.peek().token_type == TokenType.SEMICOLON and self.peek(1) is None  # type: ignore[union-attr]
        )

    def remainder(self) -> str:
        token = self.peek()
        return "" if token is None else " ".join(t.text for t in self.tokens[self.at :])


def text_of(tree: exp.Expression) -> Tuple[str, str]:
    """A Command's keyword(s) (lower case, e.g. ``"msck repair"``) and the text after them,
    without leading comments (dbt's query comment)."""
    assert isinstance(tree, exp.Command)
    rest = tree.expression
    if isinstance(rest, exp.Literal):
        body = rest.this
    else:
        body = rest if isinstance(rest, str) else (rest.sql() if rest is not None else "")
    return " ".join(str(tree.this).lower().split()), str(body).strip()


def _show(reader: _Reader) -> Command:
    if reader.take("partitions"):
        return Command("SHOW PARTITIONS", reader.name())
    if not reader.take("columns"):
        words = " ".join(t.text for t in reader.tokens[:1]).upper()
        raise Untranslatable(f"'SHOW {words}' statements", reader.statement)
    if not (reader.take("from") or reader.take("in")):
        raise reader.error("FROM or IN expected")
    name = reader.name()
    if reader.take("from") or reader.take("in"):
        if name.database:
            raise reader.error("a database given twice")
        name = Name(name.catalog, reader.identifier(), name.table)
    return Command("SHOW COLUMNS", name)


def _alter(reader: _Reader) -> Command:
    reader.expect("table")
    name = reader.name()
    if not reader.take("add"):
        raise Untranslatable(
            f"'ALTER TABLE {reader.remainder().upper()[:40]}' statements", reader.statement
        )
    found = Command("ADD PARTITION", name, if_not_exists=reader.take("if", "not", "exists"))
    while reader.take("partition"):
        spec = reader.partition_spec()
        location = reader.string() if reader.take("location") else None
        found.partitions.append((spec, location))
    if not found.partitions:
        raise reader.error("PARTITION expected")
    return found


def _optimize(reader: _Reader) -> Command:
    found = Command("OPTIMIZE", reader.name(), rest=reader.remainder())
    reader.at = len(reader.tokens)
    return found


def _msck(reader: _Reader) -> Command:
    reader.expect("table")
    return Command("MSCK REPAIR TABLE", reader.name())


_PARSERS = {
    "show": _show,
    "alter": _alter,
    "msck repair": _msck,
    "optimize": _optimize,
    "vacuum": lambda reader: Command("VACUUM", reader.name()),
}


def parse(tree: exp.Expression, statement: str) -> Command:
    """The :class:`Command` of a parsed ``Command`` tree."""
    head, body = text_of(tree)
    parser = _PARSERS.get(head)
    if parser is None:
        words = f"{head} {body}".split()[:2]
        raise Untranslatable(f"'{' '.join(words).upper()}' statements", statement)
    reader = _Reader(body, statement)
    found = parser(reader)
    if not reader.done():
        raise reader.error("end of statement expected")
    return found
