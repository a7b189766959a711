"""Athena's reason for a statement that Spark failed: the text of a Spark (or Py4J) exception
read for its innermost meaningful cause, in Athena's code and words.

A failure inside a Spark job reaches Python as ``Py4JJavaError: An error occurred while
calling o123.collectToPython`` (a query) or ``... o456.save`` (a CTAS), with Spark's own error
(``[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` ...``) several lines down, after
``Job aborted due to stage failure`` and before a Java stack trace; a Python UDF's failure
carries a Python worker traceback deeper still. The first line says nothing a user can act
on, so the whole text is searched: Spark's error class in brackets (the first one this module
knows), Java's ``RuntimeException`` of ``raise_error``, a Python traceback's last exception.

Athena's words are Trino 410's (``io.trino.spi.StandardErrorCode`` for the code; the message
of the class that raises it, named by each rule below). Where Spark's text lacks what Trino
prints (the operands of an overflow), the reason is Trino's text without them; where no
Trino text applies, Spark's message (without its advice about Spark settings an Athena query
cannot change) follows Athena's code. Pure: no Spark, testable on captured texts.
"""

from __future__ import annotations

import re
from typing import Callable, Dict, Optional, Tuple

# Spark's error classes (ANSI mode) whose failure Athena reports under a code of its own,
# with Spark's message kept (after its advice is cut) where no rule below words it.
ATHENA_CODES = {
    "CAST_INVALID_INPUT": "INVALID_CAST_ARGUMENT",
    "CAST_OVERFLOW": "INVALID_CAST_ARGUMENT",
    "DIVIDE_BY_ZERO": "DIVISION_BY_ZERO",
    "INVALID_ARRAY_INDEX": "INVALID_FUNCTION_ARGUMENT",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": "INVALID_FUNCTION_ARGUMENT",
    "MAP_KEY_DOES_NOT_EXIST": "INVALID_FUNCTION_ARGUMENT",
    "ARITHMETIC_OVERFLOW": "NUMERIC_VALUE_OUT_OF_RANGE",
    "BINARY_ARITHMETIC_OVERFLOW": "NUMERIC_VALUE_OUT_OF_RANGE",
    "NUMERIC_VALUE_OUT_OF_RANGE": "NUMERIC_VALUE_OUT_OF_RANGE",
    "CANNOT_PARSE_TIMESTAMP": "INVALID_FUNCTION_ARGUMENT",
    "USER_RAISED_EXCEPTION": "INVALID_FUNCTION_ARGUMENT",
    "UNRESOLVED_COLUMN": "COLUMN_NOT_FOUND",
    "TABLE_OR_VIEW_NOT_FOUND": "TABLE_NOT_FOUND",
    "SCHEMA_NOT_FOUND": "SCHEMA_NOT_FOUND",
}


class Coded(str):
    """A wording's whole reason, under another code than its Spark class maps to."""


# "[CLASS] message" or "[CLASS.SUBCLASS] message", anywhere in the text, to the line's end.
_SPARK_ERROR = re.compile(r"\[(?P<code>[A-Z][A-Z0-9_]*)(?:\.[A-Z0-9_.]+)?\]\s*(?P<message>.*)")
# Spark's names of the types a cast targets, in Trino's (VarcharOperators' cast messages)
_TRINO_TYPE = {"INT": "INT", "FLOAT": "REAL", "STRING": "VARCHAR"}
# Spark's advice names the operation that overflowed, in the words of Trino's IntegerOperators
_OPERATION = {
    "try_add": "addition",
    "try_subtract": "subtraction",
    "try_multiply": "multiplication",
}
_JAVA_TYPE = {"integer": "integer", "long": "bigint", "short": "smallint", "byte": "tinyint"}


def spark_reason(text: str, query: str = "") -> Optional[str]:
    """Athena's reason for the Spark failure ``text`` of the statement ``query``, or None
    when ``text`` holds no Spark error class this module maps."""
    for found in _SPARK_ERROR.finditer(text):
        code = found.group("code")
        if code in ATHENA_CODES:
            message = found.group("message").strip()
            words = _WORDING.get(code)
            athena = words(message, text[found.end() :], query) if words else None
            if isinstance(athena, Coded):
                return str(athena)
            return f"{ATHENA_CODES[code]}: {athena or without_spark_advice(message)}"
    negation = re.search(r"(?:^|Exception: )- (-?\d+) caused overflow", text, re.M)
    if negation:  # Spark's unary minus of a smallint or tinyint (no error class)
        return f"NUMERIC_VALUE_OUT_OF_RANGE: negation overflow: {negation.group(1)}"
    return None


def raised_error(text: str) -> Optional[str]:
    """The message of ``raise_error('<Athena's text>')``, which the emulator's translations
    use for Trino's failures (Spark 3.5 throws a ``java.lang.RuntimeException``)."""
    raised = re.search(r"java\.lang\.RuntimeException: (.+)$", text, re.M)
    return f"INVALID_FUNCTION_ARGUMENT: {raised.group(1).strip()}" if raised else None


def athena_reason(text: str, query: str = "") -> Optional[str]:
    """Athena's reason for the failure ``text`` (a Spark, Py4J or Python exception's) of the
    statement ``query``: Spark's error class, else a Python traceback of the emulator's own
    code, else a ``raise_error``; None when the text holds none of them."""
    return (
        spark_reason(text, query) or python_failure(text) or raised_error(text) or spark_fault(text)
    )


# Java's "Caused by: <class>: <message>" lines, and the failure a job abort names
_CAUSE = re.compile(
    r"^(?:Caused by: |.*Lost task [^:]*: )(?P<cls>[\w.$]+(?:Exception|Error)): (?P<message>.+)$",
    re.M,
)


def spark_fault(text: str) -> Optional[str]:
    """The reason of a failure inside Spark that no rule maps (Py4J's first line, "An error
    occurred while calling o123.collectToPython.", says nothing): the innermost cause Java
    names, marked as the emulator's fault; None when ``text`` is no Py4J/Spark job failure."""
    if not text.startswith("An error occurred while calling"):
        return None
    causes = list(_CAUSE.finditer(text))
    if not causes:
        return None
    cause = causes[-1]  # the innermost
    return (
        "EMULATOR_ERROR: Spark failed while running this statement's translation "
        f"({cause.group('cls').rsplit('.', 1)[-1]}: {without_spark_advice(cause.group('message'))}). "
        "This is a fault of the emulator, not an answer Athena would give: report it with "
        "the statement, and check this query on Athena itself"
    )


def _cast(message: str, text: str, query: str) -> Optional[str]:
    """Trino's cast failures: ``VarcharOperators`` ("Cannot cast 'abc' to INT"),
    ``DecimalCasts.varcharToDecimal`` ("Cannot cast VARCHAR 'x' to DECIMAL(5, 2). Value is
    not a number."), and the timestamp and date parsers ("Value cannot be cast to timestamp:
    x")."""
    cast = re.search(r'The value (.*) of the type "([A-Z]+)" cannot be cast to "([^"]+)"', message)
    if not cast:
        return None
    value, source, target = cast.groups()
    literal = _literal(query, target, value)
    if literal:
        return literal
    if target in ("TIMESTAMP", "DATE"):
        return f"Value cannot be cast to {target.lower()}: {value}"
    decimal = re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", target)
    if decimal and source == "STRING":
        return (
            f"Cannot cast VARCHAR {value} to DECIMAL({decimal.group(1)}, {decimal.group(2)}). "
            "Value is not a number."
        )
    return f"Cannot cast {value} to {_TRINO_TYPE.get(target, target)}"


def _literal(query: str, target: str, value: str) -> Optional[str]:
    """Trino's ``ExpressionAnalyzer``: a ``DATE '...'`` or ``TIMESTAMP '...'`` literal that is
    no valid value fails analysis with INVALID_LITERAL, "line 1:8: '2013-02-30' is not a valid
    date literal" (the emulator translates the literal into a cast, which Spark fails as one)."""
    if target not in ("DATE", "TIMESTAMP") or not query:
        return None
    found = re.search(rf"\b{target}\s*{re.escape(value)}", query, re.IGNORECASE)
    if not found:
        return None
    line, column = _line_column(query, found.start())
    return Coded(
        f"INVALID_LITERAL: line {line}:{column}: {value} is not a valid {target.lower()} literal"
    )


def _overflow(message: str, text: str, query: str) -> Optional[str]:
    """Trino's ``IntegerOperators`` / ``BigintOperators``: "integer multiplication overflow:
    2 * 2147483647". Spark names the type ("integer overflow") and, in its advice ("Use
    'try_multiply'"), the operation, not the operands: they are left out."""
    kind = re.match(r"(integer|long|short|byte) overflow", message)
    if not kind:
        return None
    advice = re.search(r"Use '(try_\w+)'", message)
    name = _OPERATION.get(advice.group(1), "") if advice else ""
    return f"{_JAVA_TYPE[kind.group(1)]} {name + ' ' if name else ''}overflow"


def _binary_overflow(message: str, text: str, query: str) -> Optional[str]:
    """Trino's ``SmallintOperators`` / ``TinyintOperators``: "smallint addition overflow:
    32767 + 1". Spark gives the operands with its literal suffix ("32767S + 1S caused
    overflow"), computing a tinyint as a smallint: the type is left out, not guessed."""
    found = re.match(r"(-?\d+)[SYL]? ([-+*]) (-?\d+)[SYL]? caused overflow", message)
    if not found:
        return None
    left, operator, right = found.groups()
    name = {"+": "addition", "-": "subtraction", "*": "multiplication"}[operator]
    return f"{name} overflow: {left} {operator} {right}"


def _out_of_range(message: str, text: str, query: str) -> Optional[str]:
    """Trino's ``DecimalOperators``: an arithmetic result past its type's precision is
    "Decimal overflow"; a cast to a decimal too narrow for the value is INVALID_CAST_ARGUMENT,
    "Cannot cast BIGINT '10' to DECIMAL(38, 37)" (``DecimalCasts``; from a varchar, "... .
    Value too large."). Spark words both alike; its SQL context (the expression under its
    carets) tells a cast to that very type from arithmetic."""
    found = re.search(r"(\S+) cannot be represented as Decimal\((\d+), ?(\d+)\)", message)
    if not found:
        return None
    value, precision, scale = found.groups()
    expression = _failing_expression(text)
    target = f"AS DECIMAL({precision}, {scale}))"
    if not (expression.upper().startswith("CAST(") and expression.upper().endswith(target)):
        return "Decimal overflow"
    source = _cast_source(expression[len("CAST(") : -len(target)].strip())
    too_large = ". Value too large." if source == "VARCHAR" else ""
    shown = f"{source} " if source else ""
    return Coded(
        f"INVALID_CAST_ARGUMENT: Cannot cast {shown}'{value}' to "
        f"DECIMAL({precision}, {scale}){too_large}"
    )


def _failing_expression(text: str) -> str:
    """The expression Spark's SQL context marks with carets ("== SQL(line 1, position 8) ==",
    the statement's line, a line of ``^``), or ""."""
    context = re.match(r"[^\n]*\n== SQL[^\n]*==\n([^\n]*)\n( *)(\^+)", text)
    if not context:
        return ""
    line, start, width = context.group(1), len(context.group(2)), len(context.group(3))
    return line[start : start + width]


def _cast_source(operand: str) -> str:
    """Trino's name of the type a cast's operand has, as the emulator translates it: a
    string literal is VARCHAR, an integer literal INTEGER (BIGINT past 32 bits),
    ``CAST('10' AS BIGINT)`` a BIGINT, the finite check of a
    double or real names its type; "" when it cannot be told."""
    if operand.startswith("'"):
        return "VARCHAR"
    if re.fullmatch(r"-?\d+", operand):  # Trino's integer literal: INTEGER, past 2^31 BIGINT
        return "INTEGER" if -(2**31) <= int(operand) < 2**31 else "BIGINT"
    typed = re.fullmatch(r"CAST\('[^']*' AS (\w+(?:\(\d+, \d+\))?)\)", operand, re.IGNORECASE)
    if typed:
        return {"INT": "INTEGER", "FLOAT": "REAL", "STRING": "VARCHAR"}.get(
            typed.group(1).upper(), typed.group(1).upper()
        )
    finite = re.match(r"ATHENA_FINITE_FOR_DECIMAL\(.*, '(DOUBLE|REAL)', '[^']*'\)$", operand, re.I)
    return finite.group(1).upper() if finite else ""


def _column(message: str, text: str, query: str) -> Optional[str]:
    """Trino's ``SemanticExceptions.missingAttributeException``: "line 1:8: Column 'x'
    cannot be resolved", at the name's place in the statement as the user wrote it (Spark's
    position is in its own translation)."""
    name = re.search(r"name (`[^ ]*`) cannot be resolved", message)
    if not name:
        return None
    parts = re.findall(r"`((?:[^`]|``)*)`", name.group(1))
    shown = ".".join(p.replace("``", "`") for p in parts)
    return f"{position(query, parts)}Column '{shown}' cannot be resolved"


def _table(message: str, text: str, query: str) -> Optional[str]:
    """Trino's ``SemanticExceptions``: "Table 'schema.table' does not exist"."""
    name = re.search(r"The table or view (`.+?`) cannot be found", message)
    if not name:
        return None
    parts = re.findall(r"`((?:[^`]|``)*)`", name.group(1))
    return f"{position(query, parts)}Table '{'.'.join(parts)}' does not exist"


def _schema(message: str, text: str, query: str) -> Optional[str]:
    """Trino's ``SemanticExceptions``: "Schema 'name' does not exist"."""
    name = re.search(r"The schema `(.+?)` cannot be found", message)
    return f"Schema '{name.group(1)}' does not exist" if name else None


_WORDING: Dict[str, Callable[[str, str, str], Optional[str]]] = {
    "CAST_INVALID_INPUT": _cast,
    "ARITHMETIC_OVERFLOW": _overflow,
    "BINARY_ARITHMETIC_OVERFLOW": _binary_overflow,
    "NUMERIC_VALUE_OUT_OF_RANGE": _out_of_range,
    "UNRESOLVED_COLUMN": _column,
    "TABLE_OR_VIEW_NOT_FOUND": _table,
    "SCHEMA_NOT_FOUND": _schema,
}


def position(query: str, parts: list[str]) -> str:
    """Trino's "line L:C: " (from 1) of the first place ``query`` names ``parts`` (a dotted
    name, case-insensitively, outside string literals), or "" when it does not."""
    if not query or not parts:
        return ""
    blanked = re.sub(r"'(?:[^']|'')*'", lambda m: " " * len(m.group(0)), query)
    dotted = r"\s*\.\s*".join(rf'(?:"{re.escape(p)}"|{re.escape(p)})' for p in parts)
    found = re.search(rf"(?<![\w.\"]){dotted}(?![\w\"])", blanked, re.IGNORECASE)
    if not found:
        return ""
    line, column = _line_column(query, found.start())
    return f"line {line}:{column}: "


def _line_column(text: str, offset: int) -> Tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


def without_spark_advice(message: str) -> str:
    """Spark's error text without its ``[CODE]`` and its advice (use `try_divide`, set
    spark.sql.ansi.enabled), which names Spark settings an Athena query cannot change:
    "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` ..." is "Division by zero."."""
    text = re.sub(r"^\[[A-Z_.]+\]\s*", "", message)
    text = re.split(
        r"\s+(?:Use (?:the SQL function )?[`']|If necessary set |To return NULL|== SQL)", text
    )[0]
    index = re.match(r"The index (\d+) is out of bounds\. The array has (\d+) elements", text)
    if index and int(index.group(1)) >= int(index.group(2)):  # Spark counts from 0
        return (
            "Array subscript must be less than or equal to array length: "
            f"{int(index.group(1)) + 1} > {index.group(2)}"
        )
    return text.strip() or message


# The last frame and the exception of a Python traceback inside Spark's (or Py4J's) text.
_TRACEBACK = re.compile(
    r"Traceback \(most recent call last\):\n(?:.*\n)*?"
    r'\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)\n'
    r"(?:(?!\s*File ).*\n)*?(?P<error>[A-Za-z_][\w.]*(?:Error|Exception)\b.*)$",
    re.M,
)


def python_failure(text: str) -> Optional[str]:
    """The reason of a statement whose Python code (a UDF of the emulator's SQL engine) raised
    inside Spark, which Spark reports as ``PythonException: An exception was thrown from the
    Python worker`` or ``Py4JJavaError: An error occurred while calling o505.save``, with the
    Python error and where it was raised; None when ``text`` holds no Python traceback.

    A UDF that fails with an error of Athena's own is answered by ``udfs.athena_error``
    before this; what reaches here is a fault of the emulator, so the reason says so."""
    tracebacks = list(_TRACEBACK.finditer(text))
    if not tracebacks:
        return None
    found = tracebacks[-1]  # the innermost (last) traceback is the cause
    where = found.group("file").replace("\\", "/")
    where = where.split("site-packages/", 1)[-1].split("plugin/", 1)[-1]
    return (
        f"EMULATOR_ERROR: the emulator's own Python code failed while running this statement "
        f"({found.group('error').strip()}, in {found.group('function')} at {where}:"
        f"{found.group('line')}). This is a fault of the emulator, not an answer Athena would "
        "give: report it with the statement, and check this query on Athena itself"
    )
