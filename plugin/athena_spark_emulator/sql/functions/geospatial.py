"""Geospatial functions (Trino's ``functions/geospatial.md``): ST_Point, ST_Distance and
to_spherical_geography, only in a distance between two points. Examples:
``tests/conformance/examples/geospatial.yml``.
"""

from __future__ import annotations

from sqlglot import exp

from athena_spark_emulator.sql.functions.table import Refused, rewrites
from athena_spark_emulator.sql.spark_forms import spark, type_of, typed

T = exp.DataType.Type


# ---- geospatial: the distance between two points ----------------------------------------------
# ST_Point(x, y) is a Spark array of its coordinates; it runs only as an argument of
# ST_Distance (directly or through to_spherical_geography), never as a value of its own
# (Athena prints a geometry as WKT, whose number format the emulator does not follow).
def _point_only_in_distance(node: exp.Expression, spherical: bool) -> None:
    parent = node.parent
    if isinstance(parent, exp.StDistance):
        return
    named = isinstance(parent, exp.Anonymous) and str(parent.name).lower()
    if spherical and named == "to_spherical_geography":
        return
    raise Refused(f"{node.sql('athena')} (a geometry other than a point's distance)")


@rewrites(exp.StPoint, "ST_Point")
def _st_point(node: exp.Expression) -> exp.Expression:
    _point_only_in_distance(node, True)
    out = spark(
        "array(CAST(_0 AS DOUBLE), CAST(_1 AS DOUBLE))",
        node.this,
        node.expression,
    )
    out.type = exp.DataType(this=T.GEOMETRY)
    return out


@rewrites("to_spherical_geography", "to_spherical_geography")
def _to_spherical_geography(node: exp.Expression) -> exp.Expression:
    _point_only_in_distance(node, False)
    [point] = node.expressions
    kind = type_of(point)
    if kind is None or kind.this != T.GEOMETRY:
        raise Refused(f"{node.sql('athena')} (of a value other than ST_Point(x, y))")
    out = spark(
        "CASE WHEN isnan(_0[1]) OR abs(_0[1]) > 90 "
        "THEN raise_error('Latitude must be between -90 and 90') "
        "WHEN isnan(_0[0]) OR abs(_0[0]) > 180 "
        "THEN raise_error('Longitude must be between -180 and 180') ELSE _0 END",
        point,
    )
    out.type = exp.DataType(this=T.GEOGRAPHY)
    return out


_GREAT_CIRCLE = (
    "atan2(sqrt(power(cos(radians(_1[1])) * sin(radians(_0[0]) - radians(_1[0])), 2) + "
    "power(cos(radians(_0[1])) * sin(radians(_1[1])) - sin(radians(_0[1])) * cos(radians(_1[1])) "
    "* cos(radians(_0[0]) - radians(_1[0])), 2)), "
    "sin(radians(_0[1])) * sin(radians(_1[1])) + cos(radians(_0[1])) * cos(radians(_1[1])) "
    "* cos(radians(_0[0]) - radians(_1[0]))) * 6371.01 * 1000"
)


@rewrites(exp.StDistance, "ST_Distance")
def _st_distance(node: exp.Expression) -> exp.Expression:
    """Trino's ST_Distance of two points: Euclidean for geometries, the great-circle
    distance in meters (Earth's radius 6371.01 km) for spherical geographies."""
    kinds = {getattr(type_of(a), "this", None) for a in (node.this, node.expression)}
    if kinds == {T.GEOMETRY}:
        form = "sqrt((_0[0] - _1[0]) * (_0[0] - _1[0]) + (_0[1] - _1[1]) * (_0[1] - _1[1]))"
    elif kinds == {T.GEOGRAPHY}:
        form = _GREAT_CIRCLE
    else:
        raise Refused(f"{node.sql('athena')} (of values other than two points of one kind)")
    return typed(spark(form, node.this, node.expression), "double")
