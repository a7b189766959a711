"""What a dbt-athena profile needs from the emulator, and helpers to run dbt against it.

The defaults agree with ``integration_tests/profiles.yml`` (and with :data:`PROFILES_YML`,
which ``athena-spark-emulator serve`` prints): region ``eu-west-1``, staging bucket
``dbt-staging``, data bucket ``dbt-data``, Spark work group ``spark_wg``, schema
``analytics``; endpoint and dummy credentials come from the environment (:func:`emulator_env`).

Importing this module imports only the standard library.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from athena_spark_emulator.core.constants import (
    ACCESS_KEY,
    DATA_BUCKET,
    EXECUTION_ROLE_ARN,
    REGION,
    ROLE_NAME,
    SCHEMA,
    SECRET_KEY,
    SPARK_WORK_GROUP,
    STAGING_BUCKET,
)

PROFILES_YML = """\
{profile}:
  target: emulator
  outputs:
    emulator:
      type: athena
      endpoint_url: "{{{{ env_var('AWS_ENDPOINT_URL') }}}}"
      region_name: "{{{{ env_var('AWS_DEFAULT_REGION') }}}}"
      aws_access_key_id: "{{{{ env_var('AWS_ACCESS_KEY_ID') }}}}"
      aws_secret_access_key: "{{{{ env_var('AWS_SECRET_ACCESS_KEY') }}}}"
      s3_staging_dir: "{{{{ env_var('DBT_S3_STAGING_DIR', 's3://{staging}/') }}}}"
      s3_data_dir: "{{{{ env_var('DBT_S3_DATA_DIR', 's3://{data}/') }}}}"
      database: awsdatacatalog
      schema: "{{{{ env_var('DBT_SCHEMA', '{schema}') }}}}"
      spark_work_group: "{{{{ env_var('DBT_SPARK_WORK_GROUP', '{work_group}') }}}}"
      threads: "{{{{ env_var('DBT_THREADS', '2') | int }}}}"
      poll_interval: "{{{{ env_var('DBT_POLL_INTERVAL', '0.1') | float }}}}"
      num_retries: 1
"""

ASSUME_ROLE_POLICY = (
    '{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", '
    '"Principal": {"Service": "athena.amazonaws.com"}, "Action": "sts:AssumeRole"}]}'
)


def profiles_yml(profile: str = "my_project") -> str:
    """A profiles.yml for the emulator, reading everything from the environment."""
    return PROFILES_YML.format(
        profile=profile,
        staging=STAGING_BUCKET,
        data=DATA_BUCKET,
        schema=SCHEMA,
        work_group=SPARK_WORK_GROUP,
    )


def emulator_env(endpoint_url: str) -> Dict[str, str]:
    """Environment variables that point boto3 (and so dbt) at an emulator endpoint."""
    return {
        "AWS_ENDPOINT_URL": endpoint_url,
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
    }


def athena_target(schema: str = "dbt_test", threads: int = 1) -> Dict[str, object]:
    """A dbt-athena target dict for the emulator (endpoint and keys from the environment)."""
    return {
        "type": "athena",
        "s3_staging_dir": f"s3://{STAGING_BUCKET}/",
        "s3_data_dir": f"s3://{DATA_BUCKET}/",
        "region_name": REGION,
        "database": "awsdatacatalog",
        "schema": schema,
        "spark_work_group": SPARK_WORK_GROUP,
        "threads": threads,
        "poll_interval": 0.05,
        "num_retries": 1,
        "num_boto3_retries": 3,
    }


def prepare(
    emulator: Any,
    work_group: str = SPARK_WORK_GROUP,
    buckets: tuple = (STAGING_BUCKET, DATA_BUCKET),
) -> None:
    """Buckets, the Spark work group with its execution role, and that IAM role (idempotent).

    Athena for Apache Spark runs every session as the work group's execution role, so a
    Spark work group without one cannot start sessions (the emulator refuses them too).
    """
    iam = emulator.client("iam")
    try:
        iam.get_role(RoleName=ROLE_NAME)
    except iam.exceptions.NoSuchEntityException:
        iam.create_role(RoleName=ROLE_NAME, AssumeRolePolicyDocument=ASSUME_ROLE_POLICY)
    athena = emulator.client("athena")
    existing = {w["Name"] for w in athena.list_work_groups()["WorkGroups"]}
    if work_group not in existing:
        athena.create_work_group(
            Name=work_group,
            Configuration={
                "EngineVersion": {"SelectedEngineVersion": "PySpark engine version 3"},
                "ExecutionRole": EXECUTION_ROLE_ARN,
            },
        )
    s3 = emulator.client("s3")
    have = {b["Name"] for b in s3.list_buckets().get("Buckets", [])}
    for bucket in buckets:
        if bucket not in have:
            s3.create_bucket(
                Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": REGION}
            )


def ensure_data_catalog(
    emulator: Any,
    name: str,
    catalog_type: str = "GLUE",
    parameters: Optional[Dict[str, str]] = None,
) -> None:
    """Register an Athena data catalog unless one of that name exists."""
    athena = emulator.client("athena")
    if athena.get_data_catalog(Name=name).get("DataCatalog"):
        return
    kwargs: Dict[str, Any] = {"Name": name, "Type": catalog_type}
    if parameters is not None:
        kwargs["Parameters"] = parameters
    athena.create_data_catalog(**kwargs)


def dbt_executable(python: Optional[Path] = None) -> List[str]:
    """The dbt console script next to ``python`` (default: this interpreter), else on PATH."""
    if python is not None:
        return [str(python), "-m", "dbt.cli.main"]
    found = shutil.which("dbt", path=str(Path(sys.executable).parent)) or shutil.which("dbt")
    return [found or str(Path(sys.executable).parent / "dbt")]


def dbt_env(env: Dict[str, str], profiles_dir: Path) -> Dict[str, str]:
    """The environment :func:`dbt_cli` runs dbt with: this process's, ``env`` over it, the
    profiles folder, no usage statistics and never a developer's real AWS profile."""
    full_env = {
        **os.environ,
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        **env,
        "DBT_PROFILES_DIR": str(profiles_dir),
    }
    if "AWS_PROFILE" not in env:
        full_env.pop("AWS_PROFILE", None)
    return full_env


def dbt_cli(
    args: List[str],
    project_dir: Path,
    profiles_dir: Path,
    env: Dict[str, str],
    python: Optional[Path] = None,
    timeout: int = 600,
) -> subprocess.CompletedProcess:
    """Run ``dbt ARGS`` in a subprocess; ``python`` picks the environment (default: this one)."""
    return subprocess.run(
        [*dbt_executable(python), *args, "--project-dir", str(project_dir)],
        cwd=project_dir,
        env=dbt_env(env, profiles_dir),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
