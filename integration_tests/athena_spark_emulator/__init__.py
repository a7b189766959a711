"""A local stand-in for Athena for Apache Spark: moto's server plus the Calculation API."""

from athena_spark_emulator.server import LOCAL_ACCOUNT, REGION, Emulator

__all__ = ["LOCAL_ACCOUNT", "REGION", "Emulator"]
