"""``spark._jvm`` inside a calculation: the real JVM, except ``java.lang.Class.forName`` for
the classes the emulator stands in for.

Local PySpark has no Iceberg jar and no AWS SDK; the emulator serves Iceberg's Glue catalogs
itself (``spark_catalogs.py``). So ``Class.forName`` of one of :data:`STOOD_IN` answers as
the emulator's reads behave: it loads (returns the name) in a session whose Spark
properties configure Iceberg, and otherwise fails as the real JVM does (the real JVM is
asked, and raises ``ClassNotFoundException``). That the AWS SDK's STS client is on
Athena's classpath with Iceberg is the emulator's ASSUMPTION (not verified on AWS): the
Spark probe runs this check so that users learn the answer on their own account.
"""

from __future__ import annotations

from typing import Any

STOOD_IN = frozenset(
    {
        "org.apache.iceberg.spark.SparkCatalog",
        "org.apache.iceberg.spark.SparkSessionCatalog",
        "org.apache.iceberg.aws.glue.GlueCatalog",
        "org.apache.iceberg.aws.s3.S3FileIO",
        "org.apache.iceberg.aws.AssumeRoleAwsClientFactory",
        "software.amazon.awssdk.services.glue.GlueClient",
        "software.amazon.awssdk.services.s3.S3Client",
        "software.amazon.awssdk.services.sts.StsClient",
    }
)


class _Class:
    def __init__(self, real: Any, state: Any) -> None:
        self._real, self._state = real, state

    def forName(self, name: str, *args: Any) -> Any:
        if str(name) in STOOD_IN and self._state.iceberg_available():
            return str(name)
        return self._real.forName(name, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


class _Path:
    """``jvm.java`` and ``jvm.java.lang``: on the way to ``java.lang.Class``."""

    def __init__(self, real: Any, state: Any, path: tuple) -> None:
        self._real, self._state, self._path = real, state, path

    def __getattr__(self, name: str) -> Any:
        path = (*self._path, name)
        real = getattr(self._real, name)
        if path == ("java", "lang", "Class"):
            return _Class(real, self._state)
        if path == ("java", "lang")[: len(path)]:
            return _Path(real, self._state, path)
        return real


def emulated_jvm(real_jvm: Any, state: Any) -> Any:
    """``spark._jvm`` for a calculation whose session state is ``state``."""
    return _Path(real_jvm, state, ())
