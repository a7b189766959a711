"""The scalar functions the emulator implements itself (athena_spark_emulator/sql/
functions/: string, regexp, math, binary, url, ipaddress, ...) and the literal syntax read before parsing (syntax.plain_numbers):
pure helpers and UDFs, checked against Trino's documented values and its source's rules.
Their runs on Spark are the conformance corpus's."""

from __future__ import annotations

from decimal import Decimal

import pytest

pytest.importorskip("sqlglot")

from athena_spark_emulator.sql import syntax, translate, udfs
from athena_spark_emulator.sql.functions import (
    binary,
    conversion,
    ipaddress,
    math,
    regexp,
    setdigest,
    string,
    url,
    uuid,
)
from athena_spark_emulator.sql.functions import decimal as decimal_fns


def _spark(sql: str) -> str:
    return translate.to_spark(syntax.parse(sql), {})


def _refused(sql: str) -> str:
    with pytest.raises(syntax.Untranslatable) as caught:
        _spark(sql)
    return str(caught.value)


# ---- literals ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("SELECT 0x0A, 0X11", "SELECT 10, 17"),
        ("SELECT 0o40, 0b1001, 0b101010", "SELECT 32, 9, 42"),
        ("SELECT 123_456.789_123, 10_000_000", "SELECT 123456.789123, 10000000"),
        ("SELECT 123_456.789e4", "SELECT 123456.789e4"),
        ("SELECT X'0A', '0x0A', \"0b1\" -- 0o40", "SELECT X'0A', '0x0A', \"0b1\" -- 0o40"),
        ("SELECT a_1, t.c1_2, 1__0, 0xZZ", "SELECT a_1, t.c1_2, 1__0, 0xZZ"),
        ("CREATE TABLE t (`0x1` int, `1_0` int)", "CREATE TABLE t (`0x1` int, `1_0` int)"),
        ("SELECT 0xFFFFFFFFFFFFFFFFF", "SELECT 0xFFFFFFFFFFFFFFFFF"),  # past bigint: as written
    ],
)
def test_trino_number_literals_are_read_as_decimal_numbers(text, plain):
    assert syntax.plain_numbers(text) == plain


def test_a_hexadecimal_integer_is_not_a_varbinary():
    assert _spark("SELECT 0x0A AS a, X'0A' AS b") == "SELECT 10 AS a, X'0A' AS b"


def test_unicode_literals():
    assert string.unicode_literal("Hello winter \\2603 !") == "Hello winter \u2603 !"
    assert string.unicode_literal("Hello winter #2603 !", "#") == "Hello winter \u2603 !"
    assert string.unicode_literal("\\+01F600") == "\U0001f600"
    assert string.unicode_literal("a\\\\b") == "a\\b"
    with pytest.raises(ValueError):
        string.unicode_literal("\\26")
    assert "Unicode string literal" in _refused("SELECT U&'\\D800'")


# ---- strings and patterns ----------------------------------------------------------------
def test_split_keeps_its_limit_and_its_delimiter_is_no_pattern():
    assert "SPLIT('a.b', '\\\\.', -1)" in _spark("SELECT split('a.b', '.') AS x")
    assert "Limit must be positive" in _refused_or_failed("SELECT split('a', ',', 0)")


def _refused_or_failed(sql: str) -> str:
    from athena_spark_emulator.sql.functions.table import Fails

    with pytest.raises((syntax.Untranslatable, Fails)) as caught:
        _spark(sql)
    return str(caught.value)


def test_title_case():
    assert string.title_case("hello world") == "Hello World"
    assert string.title_case("hELLO  wORLD") == "Hello  World"
    with pytest.raises(udfs.Unsupported):
        string.title_case("o'neil")


def test_regexp_position_follows_trino():
    text = "I have 23 apples, 5 pears and 13 oranges"
    assert regexp.regexp_position(text, r"\b\d+\b") == 8
    assert regexp.regexp_position(text, r"\b\d+\b", 5) == 8
    assert regexp.regexp_position(text, r"\b\d+\b", 12) == 19
    assert regexp.regexp_position(text, r"\b\d+\b", 12, 2) == 31
    assert regexp.regexp_position(text, r"\b\d+\b", 12, 3) == -1
    assert regexp.regexp_position("abc", "x", 10) == -1
    with pytest.raises(udfs.AthenaError, match="start position cannot be smaller than 1"):
        regexp.regexp_position("abc", "a", 0)
    with pytest.raises(udfs.AthenaError, match="occurrence cannot be smaller than 1"):
        regexp.regexp_position("abc", "a", 1, 0)


def test_regexp_replace_with_a_lambda():
    groups = regexp.regexp_groups("new york", r"(\w)(\w*)")
    assert groups == [["n", "ew"], ["y", "ork"]]
    replaced = [g[0].upper() + g[1].lower() for g in groups]
    assert regexp.regexp_replace_groups("new york", r"(\w)(\w*)", replaced) == "New York"
    assert regexp.regexp_replace_groups("ab", "b", [None]) is None  # Trino: NULL for all
    assert regexp.regexp_groups("ab", "(x)?b") == [[None]]


def test_patterns_python_may_read_otherwise_are_refused():
    for pattern in ("(?i)a", "\\p{L}", "[[:alpha:]]", "a\\Z"):
        assert "REGEXP_POSITION" in _refused(f"SELECT regexp_position('a', '{pattern}')")


def test_dollar_is_the_end_or_before_a_final_newline_as_in_trino():
    """joni's Java syntax (Trino's regexp library) reads ``$`` as the end of the input or
    before its final line terminator, as Python's re does without MULTILINE."""
    assert regexp.regexp_position("abc", "c$") == 3
    assert regexp.regexp_position("abc\n", "c$") == 3
    assert regexp.regexp_position("ab\nc", "b$") == -1


# ---- conversion ---------------------------------------------------------------------------
def test_format_number():
    assert conversion.format_number(123456) == "123K"
    assert conversion.format_number(1000000) == "1M"
    assert conversion.format_number(-1234) == "-1.23K"
    assert conversion.format_number(999) == "999"
    assert conversion.format_number(1.9) == "1"  # a double: Java's (long) cast
    assert conversion.format_number(12345678901) == "12.3B"
    assert conversion.format_number(1005) == "1K"  # HALF_UP of the double 1.00499999...
    assert conversion.format_number(1500) == "1.5K"


def test_parse_data_size():
    assert conversion.parse_data_size("1B") == 1
    assert conversion.parse_data_size("1kB") == 1024
    assert conversion.parse_data_size("2.3MB") == 2411724
    for bad in ("1 B", "1kb", "B", "1.2.3MB"):
        with pytest.raises(udfs.AthenaError, match="Invalid data size"):
            conversion.parse_data_size(bad)


def test_format_of_decimals_is_javas():
    assert decimal_fns.format_values("%,.2f", Decimal("1234567.89")) == "1,234,567.89"
    assert (
        decimal_fns.format_values("%s|%5s|%-3s|", Decimal("1.50"), "ab", "c") == "1.50|   ab|c  |"
    )
    assert decimal_fns.format_values("%05d %+d %,d", 42, 5, -1234567) == "00042 +5 -1,234,567"
    assert decimal_fns.format_values("%.1f", Decimal("0.05")) == "0.1"
    assert decimal_fns.format_values("%2$s %1$s %%", "a", "b") == "b a %"
    for fmt in ("%x", "%,05d", "%tY", "%<s", "%f"):
        with pytest.raises(udfs.Unsupported):
            decimal_fns.format_values(fmt, 1)


# ---- math, binary, ml -------------------------------------------------------------------------
def test_cosine_similarity_of_maps():
    assert math.cosine_similarity_map({"a": 1.0}, {"a": 2.0}) == 1.0
    assert math.cosine_similarity_map({"a": 1.0, "b": None}, {"a": 2.0}) is None
    assert math.cosine_similarity_map({"a": 1.0}, {"b": 2.0}) == 0.0


def test_murmur3_and_from_base64():
    data = binary.from_base64("aaaaaa")
    assert binary.murmur3(data).hex() == "ba58556355 69b42f4920372ca0e396ef".replace(" ", "")
    assert binary.from_base64("aGk=") == b"hi"
    with pytest.raises(udfs.AthenaError):
        binary.from_base64("a")
    with pytest.raises(udfs.AthenaError):
        binary.from_base64("a b")


def test_from_utf8_of_invalid_bytes_is_refused():
    assert string.from_utf8(b"eh?") == "eh?"
    with pytest.raises(udfs.Unsupported):
        string.from_utf8(b"\xff")


# ---- ipaddress and uuid -------------------------------------------------------------------
def test_ip_addresses_print_as_trino_prints_them():
    assert ipaddress.ip_text("10.0.0.1") == "10.0.0.1"
    assert ipaddress.ip_text("2001:0db8:0:0:0:ff00:0042:8329") == "2001:db8::ff00:42:8329"
    assert ipaddress.ip_text("::ffff:1.2.3.4") == "1.2.3.4"
    assert ipaddress.ip_text("2001:db8:0:1:1:1:1:1") == "2001:db8:0:1:1:1:1:1"  # one 0: kept
    for bad in ("01.2.3.4", "1.2.3", "fe80::1%eth0", " 1.2.3.4", "x"):
        assert ipaddress.ip_text(bad) is None


def test_ip_contains():
    assert ipaddress.ip_contains("10.0.0.0/8", "10.255.255.255") is True
    assert ipaddress.ip_contains("10.0.0.0/8", "11.255.255.255") is False
    # Trino 410's IpAddressFunctions.contains: networks and addresses of different versions fail
    with pytest.raises(udfs.AthenaError, match="IP address version should be the same"):
        ipaddress.ip_contains("2001:db8::/32", "10.0.0.1")
    assert ipaddress.ip_contains("::/0", "2001:db8::1") is True
    assert ipaddress.ip_contains("0.0.0.0/0", "1.2.3.4") is True
    with pytest.raises(udfs.AthenaError, match="Invalid CIDR"):
        ipaddress.ip_contains("10.0.0.1/8", "10.0.0.1")
    with pytest.raises(udfs.AthenaError, match="Prefix length exceeds address length"):
        ipaddress.ip_contains("10.0.0.0/33", "10.0.0.1")


def test_ordering_ip_addresses_is_refused():
    assert "ordering ipaddress or uuid" in _refused(
        "SELECT IPADDRESS '1.2.3.4' < IPADDRESS '1.2.3.5'"
    )


def test_uuid_text():
    assert uuid.to_uuid("12151FD2-7586-11E9-8F9E-2A86E4085A59") == (
        "12151fd2-7586-11e9-8f9e-2a86e4085a59"
    )
    with pytest.raises(udfs.Unsupported):
        uuid.to_uuid("12151fd27586")


def test_format_of_dates_is_javas_in_english():
    import datetime

    day = datetime.date(2006, 7, 4)
    assert decimal_fns.format_values("%1$tA, %1$tB %1$te, %1$tY", day) == "Tuesday, July 4, 2006"
    assert decimal_fns.format_values("%tF|%TB|%-9ta|%s", day, day, day, day) == (
        "2006-07-04|JULY|Tue      |2006-07-04"
    )
    with pytest.raises(udfs.Unsupported):
        decimal_fns.format_values("%tH", day)  # a time field of a date: Java fails


def test_interval_types():
    assert _spark("SELECT typeof(INTERVAL '3' MONTH) AS a") == (
        "SELECT 'interval year to month' AS a"
    )


def test_set_digest_hashes_are_trinos():
    assert setdigest.set_digest_hash(1) == 19144387141682250
    assert setdigest.set_digest_hash(2) == -2447670524089286488
    assert setdigest.hash_counts([setdigest.set_digest_hash(v) for v in (1, 1, 1, 2, 2)]) == {
        -2447670524089286488: 2,
        19144387141682250: 3,
    }
    one_two = [setdigest.set_digest_hash(v) for v in (1, 2)]
    one_to_four = [setdigest.set_digest_hash(v) for v in (1, 2, 3, 4)]
    assert setdigest.jaccard_index(one_two, one_to_four) == 0.5
    assert setdigest.intersection_cardinality(one_two, one_to_four) == 2
    assert setdigest.set_digest_cardinality([]) is None


def test_geometries_run_only_as_a_distance():
    assert "ST_POINT" in _refused("SELECT ST_Point(1, 2)")


def test_ceil_and_floor_of_doubles_are_javas():
    assert math.ceil_double(-0.5) == 0.0 and str(math.ceil_double(-0.5)) == "-0.0"
    assert math.floor_double(1.5) == 1.0
    assert math.floor_double(float("inf")) == float("inf")


def test_url_encoding_is_javas():
    assert url.url_encode("a b*~é/") == "a+b*%7E%C3%A9%2F"
    assert url.url_decode("a+b%C3%A9") == "a bé"
    with pytest.raises(udfs.Unsupported):
        url.url_decode("%G1")


def test_binary_helpers():
    assert binary.to_base64(b"\x01\x02\xff") == "AQL/"
    assert binary.from_hex("0aFF") == b"\n\xff"
    with pytest.raises(udfs.AthenaError, match="invalid input length 3"):
        binary.from_hex("abc")


def test_strpos_with_an_instance():
    assert string.strpos("high", "h", 2) == 4
    assert string.strpos("high", "h", -1) == 4
    assert string.strpos("high", "h", -2) == 1
    assert string.strpos("aaa", "aa", 2) == 2
    assert string.strpos("aaa", "aa", -3) == 0
    assert string.strpos("éab", "a", 1) == 2
    with pytest.raises(udfs.AthenaError, match="'instance' must be a positive or negative"):
        string.strpos("a", "a", 0)
