"""The seed's Glue types (athena_spark_emulator.accounts.glue_types): the type grammar, which values
fit which type, what they become, and their text in a Hive table's JSON file. Pure: no
emulator, no Spark (hypothesis, so not in tests/pure/)."""

from __future__ import annotations

import datetime
import json
from decimal import Context, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from athena_spark_emulator.accounts import glue_types
from athena_spark_emulator.accounts.glue_types import GlueTypeError, ValueMismatch, convert, parse

# ---- the grammar --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("int", "int"),
        ("INTEGER", "int"),
        ("Decimal( 10 , 2 )", "decimal(10,2)"),
        ("decimal", "decimal(10,0)"),
        ("decimal(5)", "decimal(5,0)"),
        ("varchar(10)", "varchar(10)"),
        ("char(1)", "char(1)"),
        ("array<map<string, struct<a:int, `b c`:decimal(5,1)>>>", None),
        ("map<date,array<timestamp>>", None),
        ("struct<x:binary,y:boolean,z:smallint,w:tinyint,v:float,u:double,t:bigint>", None),
    ],
)
def test_glue_types_parse_to_their_canonical_text(text, canonical):
    parsed = parse(text)
    expected = canonical or text.replace(" ", "").replace("`bc`", "`b c`")
    assert str(parsed) == expected
    assert parse(str(parsed)) == parsed


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("integr", "unknown type 'integr' (did you mean integer?)"),
        ("decimal(10,2", "it ends where ')' is expected"),
        ("decimal(39,2)", "decimal's precision is 1 to 38, not 39"),
        ("decimal(4,5)", "decimal's scale (5) is at most its precision (4)"),
        ("varchar", "varchar needs a length: varchar(n)"),
        ("char(256)", "char's length is 1 to 255, not 256"),
        ("map<array<int>,int>", "a map's key is a primitive type, not 'array<int>'"),
        ("struct<a int>", "expected ':', found 'int'"),
        ("struct<a:int,A:int>", "struct field 'A' appears twice"),
        ("array<>", "array<...> names the type(s) inside it"),
        ("int int", "unexpected 'int' after 'int'"),
        ("array<int", "it ends where '>' is expected"),
        ("int;", "unexpected ';'"),
        ("", "is not a Glue column type"),
    ],
)
def test_invalid_types_say_what_is_wrong(text, problem):
    with pytest.raises(GlueTypeError) as bad:
        parse(text)
    assert f"{text!r} is not a Glue column type" in str(bad.value)
    assert problem in str(bad.value)


PRIMITIVE_TYPES = st.sampled_from(
    [
        *("tinyint", "smallint", "int", "bigint", "float", "double", "boolean", "string"),
        *("date", "timestamp", "binary", "decimal(38,10)", "varchar(3)", "char(7)"),
    ]
)


def nested_types(children):
    fields = st.lists(
        st.tuples(st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True), children),
        min_size=1,
        max_size=3,
        unique_by=lambda f: f[0],
    )
    return st.one_of(
        children.map(lambda t: f"array<{t}>"),
        st.tuples(PRIMITIVE_TYPES, children).map(lambda kv: f"map<{kv[0]},{kv[1]}>"),
        fields.map(lambda fs: "struct<" + ",".join(f"{n}:{t}" for n, t in fs) + ">"),
    )


TYPES = st.recursive(PRIMITIVE_TYPES, nested_types, max_leaves=6)


@given(TYPES)
def test_every_generated_type_parses_back_to_itself(text):
    assert str(parse(text)) == text
    assert parse(text.upper()).name == parse(text).name  # names in any case


# ---- values ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "kind", "held"),
    [
        (127, "tinyint", 127),
        (-(2**63), "bigint", -(2**63)),
        (3, "double", 3.0),
        (Decimal("2.5"), "double", 2.5),  # the Python API's emulator.seed({...})
        (1.5, "float", 1.5),
        (10.5, "decimal(10,2)", Decimal("10.50")),
        (10.1, "decimal(10,2)", Decimal("10.10")),  # the float's text, not its binary value
        (
            "123456789012345678901234567890.12",
            "decimal(38,2)",
            Decimal("123456789012345678901234567890.12"),
        ),
        (7, "decimal(3,0)", Decimal("7")),
        ("1.50", "decimal(3,1)", Decimal("1.5")),  # a trailing zero is no extra digit
        (  # 30 digits: more than Python's default decimal context keeps (28), none rounded
            "220809261.160390132270031947",
            "decimal(38,18)",
            Decimal("220809261.160390132270031947"),
        ),
        (True, "boolean", True),
        ("ab", "char(4)", "ab  "),  # held padded, as Hive holds char(n)
        ("abc", "varchar(3)", "abc"),
        ("2024-02-29", "date", datetime.date(2024, 2, 29)),
        (datetime.date(2024, 2, 29), "date", datetime.date(2024, 2, 29)),  # YAML's unquoted date
        ("2024-02-29 12:34:56.5", "timestamp", datetime.datetime(2024, 2, 29, 12, 34, 56, 500000)),
        ("2024-02-29T12:34", "timestamp", datetime.datetime(2024, 2, 29, 12, 34)),
        ("2024-02-29", "timestamp", datetime.datetime(2024, 2, 29)),
        ("hi", "binary", b"hi"),
        (b"\x00\xff", "binary", b"\x00\xff"),  # YAML's !!binary
        ([1, None], "array<int>", [1, None]),
        ({"a": 1}, "map<string,int>", {"a": 1}),
        ({"1": "x", 2: "y"}, "map<int,string>", {1: "x", 2: "y"}),  # JSON keys are strings
        ([1, "s"], "struct<x:int,y:string>", {"x": 1, "y": "s"}),
        ({"x": 1}, "struct<x:int,y:string>", {"x": 1, "y": None}),
        (None, "map<string,int>", None),
    ],
)
def test_values_that_fit_become_what_the_table_holds(value, kind, held):
    assert convert(value, kind) == held
    assert type(convert(value, kind)) is type(held)


@pytest.mark.parametrize(
    ("value", "kind", "path", "problem"),
    [
        ("abc", "int", [], '"abc" does not fit int: a string; write a whole number'),
        ("xyz", "double", [], '"xyz" does not fit double: a string; write a number'),
        (
            123456.789,
            "decimal(4,2)",
            [],
            "123456.789 does not fit decimal(4,2): 6 digit(s) before the point and 3 after, "
            "decimal(4,2) holds 2 and 2: round or shorten the value, or make the column "
            "decimal(9,3)",
        ),
        ("12.345", "decimal(10,2)", [], "2 digit(s) before the point and 3 after"),
        ("2024-13-45", "date", [], '"2024-13-45" does not fit date: not a calendar date'),
        (128, "tinyint", [], "out of tinyint's range -128..127, or make the column smallint"),
        (2**63, "bigint", [], "out of bigint's range"),
        (1.5, "int", [], "a fraction; make the column double or decimal(p,s)"),
        (2.0, "int", [], "int holds whole numbers: write 2"),
        (True, "int", [], "true (a boolean) does not fit int"),
        (1e39, "float", [], "out of float's range (32 bits); make the column double"),
        (True, "string", [], "YAML reads unquoted yes/no/on/off/true/false as booleans); quote it"),
        (datetime.date(2024, 1, 1), "string", [], "YAML reads an unquoted YYYY-MM-DD as a date"),
        (5, "string", [], "5 does not fit string: a number; quote it"),
        ("abcd", "varchar(3)", [], "4 characters, varchar(3) holds 3"),
        ("yes", "boolean", [], "write true or false (unquoted)"),
        ("2024-01-01 10:00:00+02:00", "timestamp", [], "without a time zone"),
        (
            datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
            "timestamp",
            [],
            "timestamp has no time zone",
        ),
        ("2024-01-01 10:00:00.1234567", "timestamp", [], "finer than microseconds"),
        ("nan", "decimal(4,2)", [], "not a number"),
        (
            "220809261.16039013227003194705",
            "decimal(27,18)",
            [],
            "9 digit(s) before the point and 20 after, decimal(27,18) holds 9 and 18",
        ),
        ([1, "x"], "array<int>", [1], '"x" does not fit int'),
        ({"a": "x"}, "map<string,int>", ["a"], '"x" does not fit int'),
        ({"a": 1, "a ": 2}, "map<char(2),int>", ["a "], "appears twice"),
        ({"z": 1}, "struct<x:int>", ["z"], '"z" is not a field of struct<x:int>'),
        ([{"k": [1, "no"]}], "array<struct<k:array<int>>>", [0, "k", 1], '"no" does not fit int'),
        ({"x": 1}, "array<int>", [], "a mapping; write a list"),
    ],
)
def test_values_that_do_not_fit_say_why_and_where(value, kind, path, problem):
    with pytest.raises(ValueMismatch) as bad:
        convert(value, kind)
    assert problem in bad.value.message
    assert bad.value.path == path


@given(st.integers())
def test_an_integer_fits_exactly_when_it_is_in_range(number):
    for name, (low, high) in glue_types.INTEGERS.items():
        if low <= number <= high:
            assert convert(number, name) == number
        else:
            with pytest.raises(ValueMismatch, match="out of"):
                convert(number, name)


@given(
    st.integers(min_value=1, max_value=38).flatmap(
        lambda p: st.tuples(st.just(p), st.integers(min_value=0, max_value=p))
    ),
    st.decimals(allow_nan=False, allow_infinity=False, places=None),
)
def test_a_decimal_fits_exactly_when_its_digits_do(precision_scale, number):
    precision, scale = precision_scale
    kind = f"decimal({precision},{scale})"
    normal = number.normalize(Context(prec=100))  # the default context rounds to 28 digits
    places = max(0, -normal.as_tuple().exponent)
    whole = max(0, normal.adjusted() + 1) if normal != 0 else 0
    text = format(number, "f")
    if places <= scale and whole <= precision - scale:
        held = convert(text, kind)
        assert held == number and held.as_tuple().exponent == -scale
        assert Decimal(glue_types.hive_json(held, parse(kind))) == number  # exact in the file
    else:
        with pytest.raises(ValueMismatch, match="digit"):
            convert(text, kind)


@given(st.dates())
def test_dates_and_timestamps_from_their_text(day):
    assert convert(day.isoformat(), "date") == day
    moment = datetime.datetime(day.year, day.month, day.day, 1, 2, 3, 456000)
    assert convert(moment.isoformat(sep=" "), "timestamp") == moment


# ---- Hive JSON files ------------------------------------------------------------------------


def test_a_hive_row_is_json_that_spark_reads_as_typed():
    columns = [
        ("d", parse("decimal(38,2)")),
        ("day", parse("date")),
        ("at", parse("timestamp")),
        ("b", parse("binary")),
        ("m", parse("map<string,array<struct<x:decimal(3,1)>>>")),
        ("n", parse("int")),
    ]
    row = glue_types.convert_rows(
        columns,
        [
            [
                "123456789012345678901234567890.12",
                "2024-02-29",
                "2024-02-29 01:02:03",
                "hi",
                {"k": [{"x": 1.5}]},
                None,
            ]
        ],
    )[0]
    line = glue_types.hive_json_row([n for n, _ in columns], [t for _, t in columns], row)
    assert line == (
        '{"d": 123456789012345678901234567890.12, "day": "2024-02-29", '
        '"at": "2024-02-29 01:02:03.000000", "b": "aGk=", "m": {"k": [{"x": 1.5}]}, "n": null}'
    )
    assert json.loads(line)["d"] is not None


def test_rows_name_the_row_and_column_of_a_value_that_does_not_fit():
    columns = [("id", parse("int")), ("tags", parse("array<string>"))]
    with pytest.raises(ValueMismatch) as bad:
        glue_types.convert_rows(columns, [[1, ["a"]], {"id": 2, "tags": ["b", 3]}])
    assert bad.value.path == [1, "tags", 1]


def test_spark_reads_char_and_varchar_as_string():
    assert glue_types.spark_read_type("struct<a:varchar(3),b:array<char(2)>>") == (
        "struct<`a`:string,`b`:array<string>>"
    )
    assert glue_types.spark_read_type("timestamp_ntz") == "timestamp_ntz"  # Spark's own


def test_json_map_keys_are_read_as_strings_and_cast_back():
    ddl, selects = glue_types.spark_json_columns(
        [
            ("plain", "map<varchar(3),int>"),
            ("m", "map<int,string>"),
            ("a", "array<map<date,map<binary,boolean>>>"),
            ("s", "struct<k:map<bigint,int>,n:int>"),
            ("odd", "timestamp_ntz"),
        ]
    )
    assert ddl == (
        "`plain` map<string,int>, `m` map<string,string>, "
        "`a` array<map<string,map<string,boolean>>>, "
        "`s` struct<`k`:map<string,int>,`n`:int>, `odd` timestamp_ntz"
    )
    assert selects == [
        "`plain`",
        "transform_keys(`m`, (k0, v0) -> cast(k0 as int)) AS `m`",
        "transform(`a`, x0 -> transform_keys(transform_values(x0, (k1, v1) -> "
        "transform_keys(v1, (k2, v2) -> unbase64(k2))), (k1, v1) -> cast(k1 as date))) AS `a`",
        "if(`s` is null, null, named_struct('k', transform_keys(`s`.`k`, (k1, v1) -> "
        "cast(k1 as bigint)), 'n', `s`.`n`)) AS `s`",
        "`odd`",
    ]
    kind = parse("map<boolean,int>")
    assert glue_types.hive_json({True: 1}, kind) == '{"true": 1}'  # cast('true' as boolean)


def test_a_null_array_of_structs_is_refused_for_iceberg_where_pyiceberg_would_empty_it():
    kind = parse("struct<a:array<struct<x:int>>,b:map<string,int>>")
    lost = glue_types.iceberg_lost_null({"a": None, "b": None}, kind)
    assert lost is not None and lost.path == ["a"]
    assert "would store it as an empty list; write []" in lost.message
    assert glue_types.iceberg_lost_null({"a": [], "b": None}, kind) is None


@pytest.mark.parametrize(
    "glue, hive, iceberg",
    [
        ("int", "integer", "integer"),
        ("float", "real", "real"),
        ("string", "varchar", "varchar"),
        ("binary", "varbinary", "varbinary"),
        ("varchar(10)", "varchar(10)", "varchar(10)"),
        ("decimal(10,2)", "decimal(10,2)", "decimal(10,2)"),
        ("timestamp", "timestamp(3)", "timestamp(6)"),
        ("array<struct<a:int,b:timestamp>>", "array(row(a integer, b timestamp(3)))",
         "array(row(a integer, b timestamp(6)))"),
        ("map<string,float>", "map(varchar, real)", "map(varchar, real)"),
    ],
)  # fmt: skip
def test_athena_names_a_glue_type_as_athena_reads_it(glue: str, hive: str, iceberg: str) -> None:
    assert glue_types.athena_type(glue_types.parse(glue)) == hive
    assert glue_types.athena_type(glue_types.parse(glue), 6) == iceberg
