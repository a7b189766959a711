"""Formatting and reading dates and times as text (Trino's ``functions/datetime.md``, with
datetime.py): format_datetime (Joda's patterns), format() of dates (Java's %t conversions,
a case of conversion.py's format registered in its FORMATS), and ISO 8601 text:
to_iso8601, from_iso8601_date, from_iso8601_timestamp(_nanos); CAST(interval AS varchar)
(datetime.py's cast of times calls it).
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Optional, Tuple

from sqlglot import exp

from athena_spark_emulator.sql.functions.conversion import FORMATS
from athena_spark_emulator.sql.functions.datetime_zoned import (
    TSTZ,
    NotRun,
    _from_local,
    _leap,
    _micros,
    _parse_wall,
    _precision,
    _tstz_out,
    _wall_nanos,
    is_tstz,
    tstz,
    zone_id,
)
from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import call, is_date, is_timestamp, spark, type_of, typed
from athena_spark_emulator.sql.udfs import AthenaError, udf, udf_call

T = exp.DataType.Type

# ---- format_datetime (Joda's patterns) -----------------------------------------------------------
_JODA = re.compile(r"'(?:[^']|'')*'|([A-Za-z])\1*|[^A-Za-z']+")
_JODA_LETTERS = set("yMdHhmsSaEDk")
_MONTHS = [
    "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
]  # fmt: skip
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def joda_tokens(pattern: str) -> Optional[list]:
    """The pattern's tokens (None: a letter the emulator does not print, e.g. a zone)."""
    tokens = []
    position = 0
    for match in _JODA.finditer(pattern):
        if match.start() != position:
            return None
        position = match.end()
        token = match.group(0)
        if token[0].isalpha() and token[0] not in _JODA_LETTERS:
            return None
        tokens.append(token)
    return tokens if position == len(pattern) else None


def _joda_field(token: str, wall: datetime.datetime, fraction: int) -> str:
    letter, width = token[0], len(token)
    if letter == "y":
        return f"{wall.year % 100:02d}" if width == 2 else str(wall.year).zfill(width)
    if letter == "M":
        if width >= 4:
            return _MONTHS[wall.month - 1]
        return _MONTHS[wall.month - 1][:3] if width == 3 else str(wall.month).zfill(width)
    if letter == "E":
        name = _DAYS[wall.weekday()]
        return name if width >= 4 else name[:3]
    if letter == "a":
        return "AM" if wall.hour < 12 else "PM"
    if letter == "S":
        return f"{fraction:09d}"[:width] if width <= 9 else f"{fraction:09d}".ljust(width, "0")
    numbers = {
        "d": wall.day,
        "H": wall.hour,
        "k": wall.hour or 24,
        "h": wall.hour % 12 or 12,
        "m": wall.minute,
        "s": wall.second,
        "D": wall.timetuple().tm_yday,
    }
    return str(numbers[letter]).zfill(width)


def format_joda(wall: datetime.datetime, fraction: int, pattern: str) -> str:
    tokens = joda_tokens(pattern)
    if tokens is None:
        raise NotRun(f"format_datetime with the pattern '{pattern}'")
    out = []
    for token in tokens:
        if token.startswith("'"):
            out.append(token[1:-1].replace("''", "'") if token != "''" else "'")
        elif token[0].isalpha():
            out.append(_joda_field(token, wall, fraction))
        else:
            out.append(token)
    return "".join(out)


@udf("format_datetime_ts", "string")
def format_datetime_ts(micros: Optional[int], pattern: Optional[str]) -> Optional[str]:
    """format_datetime of a timestamp (its wall time, UTC)."""
    if micros is None or pattern is None:
        return None
    millis = (int(micros) + 500) // 1000  # Trino formats milliseconds, rounded half up
    wall, fraction = _wall_nanos(millis * 1000)
    return format_joda(wall, fraction, pattern)


@udf("format_datetime_tstz", "string")
def format_datetime_tstz(value: Any, pattern: Optional[str]) -> Optional[str]:
    """format_datetime of a timestamp with time zone (its wall time in its zone)."""
    if value is None or pattern is None:
        return None
    wall, fraction = _parse_wall(str(value[0]).rpartition(" ")[0])
    return format_joda(wall, fraction, pattern)


@rewrites("format_datetime", "format_datetime")
def format_datetime(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 2:
        raise Refused(node.sql("athena"))
    value, pattern = node.expressions
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise Refused(f"{node.sql('athena')} (a pattern that is not a literal)")
    if joda_tokens(pattern.this) is None:
        raise Refused(f"{node.sql('athena')} (the pattern '{pattern.this}')")
    kind = type_of(value)
    if is_tstz(kind) and _precision(kind) <= 3:
        out = udf_call("format_datetime_tstz", value, pattern)
    elif is_timestamp(kind):
        out = udf_call("format_datetime_ts", _micros(value), pattern)
    else:
        raise Refused(f"{node.sql('athena')}", "the emulator cannot tell its argument's type")
    return typed(out, "varchar")


# ---- format() of dates (Java's %t conversions) ---------------------------------------------------
_JAVA_FORMAT = re.compile(r"%(?:(\d+)\$)?([tT])([AaBbhedYymjFD])|%%|%n|[^%]+")


def _java_date_tokens(pattern: str) -> Optional[list]:
    position, tokens = 0, []
    for match in _JAVA_FORMAT.finditer(pattern):
        if match.start() != position:
            return None
        position = match.end()
        tokens.append(match)
    return tokens if position == len(pattern) else None


def _java_date_field(day: datetime.date, conversion: str) -> str:
    fields = {
        "A": _DAYS[day.weekday()],
        "a": _DAYS[day.weekday()][:3],
        "B": _MONTHS[day.month - 1],
        "b": _MONTHS[day.month - 1][:3],
        "h": _MONTHS[day.month - 1][:3],
        "e": str(day.day),
        "d": f"{day.day:02d}",
        "Y": f"{day.year:04d}",
        "y": f"{day.year % 100:02d}",
        "m": f"{day.month:02d}",
        "j": f"{day.timetuple().tm_yday:03d}",
        "F": f"{day.year:04d}-{day.month:02d}-{day.day:02d}",
        "D": f"{day.month:02d}/{day.day:02d}/{day.year % 100:02d}",
    }
    return fields[conversion]


@udf("format_dates", "string")
def format_dates(pattern: Optional[str], *days: Optional[datetime.date]) -> Optional[str]:
    """Trino's format() (Java's Formatter) of dates with %t conversions, English names."""
    if pattern is None:
        return None
    tokens = _java_date_tokens(pattern)
    if tokens is None:
        raise NotRun(f"format('{pattern}', ...) of dates")
    out, ordinary = [], 0
    for token in tokens:
        text = token.group(0)
        if text == "%%":
            out.append("%")
        elif text == "%n":
            out.append("\n")
        elif not text.startswith("%"):
            out.append(text)
        else:
            if token.group(1):
                index = int(token.group(1)) - 1
            else:
                index, ordinary = ordinary, ordinary + 1
            if not 0 <= index < len(days):
                raise AthenaError(
                    f"INVALID_FUNCTION_ARGUMENT: Format specifier '{text}' has no argument"
                )
            day = days[index]
            field = "null" if day is None else _java_date_field(day, token.group(3))
            out.append(field.upper() if token.group(2) == "T" else field)
    return "".join(out)


def format_dates_form(node: exp.Expression) -> exp.Expression:
    """format(pattern, date, ...) (a case of conversion.py's format): %t conversions of dates only."""
    pattern = node.this
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise Refused(f"{node.sql('athena')} (a pattern that is not a literal)")
    if _java_date_tokens(pattern.this) is None or not all(
        is_date(type_of(a)) for a in node.expressions
    ):
        raise Refused(f"{node.sql('athena')} (format of dates with conversions other than %t)")
    out = udf_call("format_dates", pattern, *node.expressions)
    return typed(out, "varchar")


@FORMATS.register(10, "dates (Java's %t conversions)")
def _format_of_dates(node: exp.Expression) -> Optional[exp.Expression]:
    if node.expressions and all(is_date(type_of(a)) for a in node.expressions):
        return format_dates_form(node)
    return None


# ---- date_format (MySQL's % codes, Trino's DateTimeFunctions.createDateTimeFormatter) -----------
# sqlglot reads Athena's format into strftime codes (%i -> %M, %W -> %A, %k -> %-H, %x -> %G,
# %u -> %W, ...); each such code as Spark's pattern letters (Joda's fields Trino appends)
_DATE_FORMAT_CODES = {
    "a": "EEE", "b": "MMM", "-m": "M", "m": "MM", "d": "dd", "-d": "d", "f": "SSSSSS",
    "H": "HH", "I": "hh", "M": "mm", "j": "DDD", "-H": "H", "-I": "h", "B": "MMMM", "p": "a",
    "S": "ss", "A": "EEEE", "Y": "yyyy", "y": "yy",
}  # fmt: skip
_DATE_FORMAT_FORMS = {  # Joda's week of weekyear (ISO, 2 digits) and weekyear (4 digits)
    "v": "lpad(CAST(weekofyear(_0) AS STRING), 2, '0')",
    "G": "lpad(CAST(year(date_add(CAST(_0 AS DATE), 3 - weekday(_0))) AS STRING), 4, '0')",
}
# the codes Trino refuses (sqlglot's strftime code: Trino's letter)
_DATE_FORMAT_REFUSED = {"w": "w", "U": "U", "W": "u", "V": "V", "X": "X", "D": "D"}
_STRFTIME = re.compile(r"%(-[mdHI]|.)|%$|[^%]+")


def _spark_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'" if text else ""


def date_format_pieces(fmt: str) -> list:
    """``fmt`` (sqlglot's strftime reading of Trino's format) as pieces: ("pattern", Spark's
    pattern letters), ("form", a Spark form of the value ``_0``) or ("error", Trino's text)."""
    pieces: list = []
    pattern = ""
    literal = ""
    for match in _STRFTIME.finditer(fmt):
        token, code = match.group(0), match.group(1)
        if not token.startswith("%"):
            literal += token
            continue
        if code in _DATE_FORMAT_CODES:
            pattern += _spark_literal(literal) + _DATE_FORMAT_CODES[code]
            literal = ""
        elif code in _DATE_FORMAT_FORMS or code in _DATE_FORMAT_REFUSED:
            pattern += _spark_literal(literal)
            literal = ""
            if pattern:
                pieces.append(("pattern", pattern))
                pattern = ""
            if code in _DATE_FORMAT_REFUSED:
                text = f"%{_DATE_FORMAT_REFUSED[code]} not supported in date format string"
                return [("error", text)]
            pieces.append(("form", _DATE_FORMAT_FORMS[code]))
        elif code is not None:  # %<x>: the literal character x ('%%': '%')
            literal += code
    pattern += _spark_literal(literal)
    if pattern:
        pieces.append(("pattern", pattern))
    return pieces


@rewrites(exp.TimeToStr, "date_format")
def date_format(node: exp.Expression) -> exp.Expression:
    """date_format(timestamp, format): the value rounded half up to milliseconds (Trino's
    DateFormat), then Trino's % codes one by one."""
    fmt = node.args.get("format")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        raise Refused(f"{node.sql('athena')} with a format that is not a literal")
    if "%%" in fmt.this:  # sqlglot reads '%%k' as '%%-H': the codes after %% are not known
        raise Refused(f"{node.sql('athena')} (a format with %%)")
    kind = type_of(node.this)
    if kind is not None and not (is_timestamp(kind) or is_date(kind) or is_tstz(kind)):
        raise Refused(f"{node.sql('athena')} (of a value other than a date or timestamp)")
    value = spark(
        "timestamp_millis(CAST(floor((unix_micros(CAST(_0 AS TIMESTAMP)) + 500) / 1000) AS BIGINT))",
        node.this,
    )
    parts = []
    for kind_of, text in date_format_pieces(fmt.this):
        if kind_of == "error":
            fails = f"CASE WHEN _0 IS NULL THEN NULL ELSE raise_error({_spark_literal(text)}) END"
            return typed(spark(fails, value), "varchar")
        if kind_of == "pattern":
            parts.append(call("date_format", value, exp.Literal.string(text)))
        else:
            parts.append(spark(text, value))
    if not parts:
        return typed(spark("CASE WHEN _0 IS NULL THEN NULL ELSE '' END", value), "varchar")
    out = parts[0] if len(parts) == 1 else exp.Anonymous(this="concat", expressions=parts)
    return typed(out, "varchar")


# ---- ISO 8601 text: to_iso8601, from_iso8601_* ----------------------------------------------
_ISO_DATE = re.compile(
    r"^(?P<year>[+-]?\d{4,9})(?:-(?:W(?P<week>\d{2})(?:-(?P<wday>\d))?"
    r"|(?P<yday>\d{3})|(?P<month>\d{2})(?:-(?P<day>\d{2}))?))?$"
)
_ISO_TIME = re.compile(
    r"^(?P<hour>\d{2})(?::(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d+))?)?)?"
    r"(?P<zone>Z|[+-]\d{2}(?::?\d{2})?)?$"
)


def _iso_date(text: str) -> Optional[datetime.date]:
    match = _ISO_DATE.match(text)
    if not match:
        return None
    year = int(match.group("year"))
    try:
        if match.group("week"):
            return datetime.date.fromisocalendar(
                year, int(match.group("week")), int(match.group("wday") or 1)
            )
        if match.group("yday"):
            day = int(match.group("yday"))
            if not 1 <= day <= (366 if _leap(year) else 365):
                return None
            return datetime.date(year, 1, 1) + datetime.timedelta(days=day - 1)
        return datetime.date(year, int(match.group("month") or 1), int(match.group("day") or 1))
    except ValueError:
        return None


def _invalid_format(text: str) -> Exception:
    """Athena's failure for text that is no ISO 8601 date or time at all; text that starts
    like one but that this parser does not read (Joda reads more forms) is not run."""
    if re.match(r"^\s*([+-]?\d|T)", text):
        return NotRun(f"the ISO 8601 text '{text}' (a form the emulator does not read)")
    return AthenaError(f'INVALID_FUNCTION_ARGUMENT: Invalid format: "{text}"')


@udf("from_iso8601_date", "date")
def from_iso8601_date(text: Optional[str]) -> Optional[datetime.date]:
    """Trino's from_iso8601_date (Joda's ISO date element parser): ``2020``, ``2020-05``,
    ``2020-05-11``, ``2020-W10``, ``2020-W10-2``, ``2020-123``."""
    if text is None:
        return None
    found = _iso_date(text)
    if found is None:
        raise _invalid_format(text)
    return found


def _iso_timestamp(text: str, precision: int) -> Tuple[str, int]:
    date_text, sep, time_text = text.partition("T")
    day = _iso_date(date_text)
    if day is None:
        raise _invalid_format(text)
    wall = datetime.datetime(day.year, day.month, day.day)
    fraction, zone = 0, "UTC"
    if sep:
        match = _ISO_TIME.match(time_text)
        if not match:
            raise _invalid_format(text)
        hour, minute = int(match.group("hour")), int(match.group("minute") or 0)
        second = int(match.group("second") or 0)
        if hour > 23 or minute > 59 or second > 59:
            raise _invalid_format(text)
        digits = match.group("fraction") or ""
        if len(digits) > 9:
            raise _invalid_format(text)
        fraction = int((digits + "000000000")[:9])
        if precision == 3:  # Joda keeps milliseconds, dropping the rest
            fraction = fraction // 10**6 * 10**6
        wall = wall.replace(hour=hour, minute=minute, second=second)
        if match.group("zone"):
            found = zone_id(match.group("zone"))
            if found is None:
                raise _invalid_format(text)
            zone = found
    return tstz(_from_local(wall, fraction, zone), zone, precision)


@udf("from_iso8601_timestamp", TSTZ)
def from_iso8601_timestamp(text: Optional[str]) -> Any:
    """Trino's from_iso8601_timestamp: a zone in the text, else the session's (UTC)."""
    return None if text is None else _iso_timestamp(text, 3)


@udf("from_iso8601_timestamp_nanos", TSTZ)
def from_iso8601_timestamp_nanos(text: Optional[str]) -> Any:
    if text is None:
        return None
    if "T" not in text:  # java.time's ISO_DATE_TIME needs a time
        raise AthenaError(
            f"INVALID_FUNCTION_ARGUMENT: Text '{text}' could not be parsed at index {len(text)}"
        )
    if not re.match(
        r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$", text
    ):
        raise NotRun(f"the ISO 8601 text '{text}' (a form the emulator does not read)")
    return _iso_timestamp(text, 9)


@rewrites("to_iso8601", "to_iso8601")
def to_iso8601(node: exp.Expression) -> exp.Expression:
    if len(node.expressions) != 1:
        raise Refused(node.sql("athena"))
    [value] = node.expressions
    kind = type_of(value)
    if is_tstz(kind):
        out = udf_call("tstz_iso8601", value, exp.Literal.number(_precision(kind)))
    elif is_date(kind):
        out = spark("date_format(_0, 'yyyy-MM-dd')", value)
    elif is_timestamp(kind) and kind is not None and kind.expressions and _precision(kind) <= 6:
        digits = _precision(kind)
        fraction = "." + "S" * digits if digits else ""
        out = exp.Anonymous(
            this="date_format",
            expressions=[value, exp.Literal.string(f"yyyy-MM-dd'T'HH:mm:ss{fraction}")],
        )
    else:
        raise Refused(f"{node.sql('athena')} (of a value other than a date or a zoned timestamp)")
    return typed(out, "varchar")


@rewrites(exp.FromISO8601Timestamp, "from_iso8601_timestamp")
def from_iso8601_timestamp_(node: exp.Expression) -> exp.Expression:
    return _tstz_out(node, udf_call("from_iso8601_timestamp", node.this), 3)


@rewrites(exp.FromISO8601TimestampNanos, "from_iso8601_timestamp_nanos")
def from_iso8601_timestamp_nanos_(node: exp.Expression) -> exp.Expression:
    return _tstz_out(node, udf_call("from_iso8601_timestamp_nanos", node.this), 9)


@rewrites(exp.FromISO8601Date, "from_iso8601_date")
def from_iso8601_date_(node: exp.Expression) -> exp.Expression:
    out = udf_call("from_iso8601_date", node.this)
    return typed(out, "date")


# ---- CAST(interval AS varchar) ----------------------------------------------------------
def _interval_family(value: exp.Expression) -> Optional[str]:
    """ "year" (an interval year to month), "day" (day to second) or None (unknown)."""
    while isinstance(value, (exp.Paren, exp.Neg)):
        value = value.this
    if isinstance(value, exp.Interval) and value.args.get("unit") is not None:
        return "year" if value.args["unit"].name.upper() in ("YEAR", "MONTH") else "day"
    if isinstance(value, (exp.Add, exp.Sub)):
        left, right = _interval_family(value.this), _interval_family(value.expression)
        return left if left == right else None
    return None


def interval_text(node: exp.Expression, value: exp.Expression) -> Optional[exp.Expression]:
    """CAST(interval AS varchar) as Trino writes it (IntervalDayTime.formatMillis:
    ``2 03:00:00.000``; IntervalYearMonth.formatMonths: ``3-5``); None: not an interval."""
    family = _interval_family(value)
    if family is None:
        kind = type_of(value)
        if kind is not None and kind.this == T.INTERVAL:
            raise Refused(f"{node.sql('athena')} (an interval whose kind the emulator cannot tell)")
        return None
    fields = ("YEAR", "MONTH") if family == "year" else ("DAY", "HOUR", "MINUTE", "SECOND")
    whole = "INTERVAL YEAR TO MONTH" if family == "year" else "INTERVAL DAY TO SECOND"
    parts = [f"extract({field} FROM CAST(_0 AS {whole}))" for field in fields]
    sign = "CASE WHEN " + " OR ".join(f"{p} < 0" for p in parts) + " THEN '-' ELSE '' END"
    pattern = "%s%d-%d" if family == "year" else "%s%d %02d:%02d:%06.3f"
    args = ", ".join([sign, *(f"abs({p})" for p in parts)])
    if family == "day":  # Spark's seconds are a decimal: %f wants a double
        args = args.rsplit("abs(", 1)[0] + f"CAST(abs({parts[-1]}) AS DOUBLE)"
    return typed(spark(f"format_string('{pattern}', {args})", value), "varchar")
