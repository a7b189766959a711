"""The generator of Trino's aggregate result types (tests/conformance/trino_aggregates.py):
its reading of the aggregation annotations, its resolution of a call to a signature
(Trino's FunctionResolver), and the table it wrote."""

from __future__ import annotations

import pytest

from tests.conformance import trino_aggregates as agg

NAMES = {"BIGINT": "bigint", "DOUBLE": "double", "VARCHAR": "varchar"}

# Written for these tests in the shape of Trino's aggregation classes (not Trino's code).
ANNOTATED = """
package io.trino.operator.aggregation;

import static io.trino.spi.type.StandardTypes.BIGINT;

@AggregationFunction(value = "total", alias = {"sum_all", "plus"})
@Description("a sum")
public final class Total
{
    private static final String KIND = "decimal(38,s)";
    private Total() {}

    @InputFunction
    @LiteralParameters({"p", "s"})
    public static void input(@AggregationState State state, @SqlType(value = "decimal(p, s)", nativeContainerType = Int128.class) Block block, @BlockIndex int position)
    {
        if (position > 0) { state.set(block); }
    }

    @InputFunction
    public static void input(@AggregationState State state, @SqlType(BIGINT) long value) {}

    @OutputFunction(KIND)
    public static void output(@AggregationState State state, BlockBuilder out) {}
}
"""

PER_OUTPUT = """
@AggregationFunction
@AccumulatorStateMetadata(stateSerializerClass = Foo.class)
public final class Moments
{
    @InputFunction
    public static void input(@AggregationState S state, @SqlType(StandardTypes.DOUBLE) double v) {}

    @AggregationFunction("first_moment")
    @OutputFunction(StandardTypes.DOUBLE)
    public static void one(@AggregationState S state, BlockBuilder out) {}

    @AggregationFunction(value = "second_moment", alias = "m2")
    @OutputFunction("array(" + StandardTypes.DOUBLE + ")")
    public static void two(@AggregationState S state, BlockBuilder out) {}

    @AggregationFunction("inner_agg")
    public static final class Inner
    {
        @InputFunction
        @TypeParameter("T")
        public static void input(@AggregationState("T") S state, @SqlType("T") Block b, @SqlType("VARCHAR") Slice s) {}

        @OutputFunction("map(T, BIGINT)")
        public static void output(@AggregationState("T") S state, BlockBuilder out) {}
    }
}
"""


def test_class_level_name_aliases_literal_parameters_and_constants() -> None:
    found = list(agg.signatures(ANNOTATED, "Total", NAMES))
    assert [name for name, _ in found] == ["total", "total", "sum_all", "sum_all", "plus", "plus"]
    assert [(s["arguments"], s["returns"]) for _, s in found[:2]] == [
        (["decimal(p,s)"], "decimal(38,s)"),
        (["bigint"], "decimal(38,s)"),
    ]
    assert {s["class"] for _, s in found} == {"Total"}


def test_names_on_output_methods_and_nested_classes() -> None:
    found = [
        (n, s["arguments"], s["returns"], s["class"])
        for n, s in agg.signatures(PER_OUTPUT, "Moments", NAMES)
    ]
    assert found == [
        ("first_moment", ["double"], "double", "Moments"),
        ("second_moment", ["double"], "array(double)", "Moments"),
        ("m2", ["double"], "array(double)", "Moments"),
        ("inner_agg", ["t", "varchar"], "map(t,bigint)", "Moments.Inner"),
    ]


def test_documented_names_in_order() -> None:
    rst = ".. function:: b(x) -> y\n\ntext\n\n.. function:: a(x)\n.. function:: b(x, n)\n"
    assert agg.documented(rst) == ["b", "a"]


TABLE = {
    "sum": [
        {"arguments": ["bigint"], "returns": "bigint"},
        {"arguments": ["real"], "returns": "real"},
        {"arguments": ["double"], "returns": "double"},
        {"arguments": ["decimal(p,s)"], "returns": "decimal(38,s)"},
    ],
    "corr": [
        {"arguments": ["double", "double"], "returns": "double"},
        {"arguments": ["real", "real"], "returns": "real"},
    ],
    "max_by": [{"arguments": ["v", "k"], "returns": "v"}],
    "map_union": [{"arguments": ["map(k,v)"], "returns": "map(k,v)"}],
    "approx_set": [{"arguments": ["varchar(x)"], "returns": "hyperloglog"}],
}


@pytest.mark.parametrize(
    "name, arguments, expected",
    [
        ("sum", ["decimal(18,2)"], "decimal(38,2)"),  # exact binding
        ("sum", ["integer"], "bigint"),  # bigint is the most specific coercion
        ("sum", ["real"], "real"),
        ("corr", ["integer", "integer"], "real"),  # real,real binds to double,double
        ("corr", ["double", "integer"], "double"),
        ("max_by", ["timestamp(3)", "bigint"], "timestamp(3)"),
        ("map_union", ["map(varchar,bigint)"], "map(varchar,bigint)"),
        ("approx_set", ["varchar(5)"], "hyperloglog"),
        ("sum", ["varchar"], None),
        ("sum", ["bigint", "bigint"], None),
    ],
)
def test_resolve_picks_trinos_signature(name: str, arguments: list, expected: object) -> None:
    assert agg.resolve(TABLE, name, arguments) == expected


@pytest.mark.parametrize(
    "actual, declared, expected",
    [
        ("integer", "bigint", True),
        ("bigint", "integer", False),
        ("bigint", "decimal(19,0)", True),
        ("bigint", "decimal(18,0)", False),
        ("decimal(18,2)", "decimal(38,4)", True),
        ("decimal(18,2)", "decimal(18,4)", False),
        ("decimal(18,2)", "real", True),
        ("double", "real", False),
        ("varchar(5)", "varchar", True),
        ("varchar", "varchar(5)", False),
        ("timestamp(3)", "timestamp(6)", True),
        ("unknown", "date", True),
    ],
)
def test_coercions(actual: str, declared: str, expected: bool) -> None:
    assert agg.can_coerce(actual, declared) is expected


def test_the_written_table_records_its_commit_and_every_documented_aggregate() -> None:
    table = agg.load()
    assert table["trino_commit"] == agg.COMMIT
    assert "generated" in table
    assert table["aggregates"]["sum"][0] == {
        "arguments": ["decimal(p,s)"],
        "returns": "decimal(38,s)",
        "class": "DecimalSumAggregation",
    }
    assert table["hand_written"] == {"reduce_agg": ["ReduceAggregationFunction"]}


@pytest.mark.skipif(not agg.MIRROR.exists(), reason="no Trino mirror on this machine")
def test_the_written_table_is_what_the_source_gives() -> None:
    assert agg.load() == agg.generate()
