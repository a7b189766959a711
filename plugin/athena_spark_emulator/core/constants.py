"""Names and defaults shared by the emulator, its CLI and its pytest plugin.

Importing this module imports nothing but the standard library, so the pytest plugin and
the CLI can read it without the ``[emulator]`` extra installed.
"""

from __future__ import annotations

REGION = "eu-west-1"
LOCAL_ACCOUNT = "123456789012"  # moto's default account: the one dbt's credentials act as
SEPARATOR_PROPERTY = "spark.hadoop.aws.glue.catalog.separator"

# The Spark work group's execution role (Athena runs Spark sessions as this role).
ROLE_NAME = "AthenaSparkExecutionRole"
EXECUTION_ROLE_ARN = f"arn:aws:iam::{LOCAL_ACCOUNT}:role/{ROLE_NAME}"

# What a dbt profile for the emulator uses; integration_tests/profiles.yml has the same
# defaults, so that profile works unchanged against `athena-spark-emulator run`.
SPARK_WORK_GROUP = "spark_wg"
STAGING_BUCKET = "dbt-staging"
DATA_BUCKET = "dbt-data"
SCHEMA = "analytics"

# Dummy credentials: moto accepts any; these map to LOCAL_ACCOUNT.
ACCESS_KEY = "testing"
SECRET_KEY = "testing"

INSTALL_HINT = 'pip install "dbt-athena-cross-account[emulator]"   (until the package is on your index: pip install "dbt-athena-cross-account[emulator] @ git+<this repository\'s git URL>" or pip install "/path/to/a/clone/of/this/repository[emulator]")'
