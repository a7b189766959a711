"""Bench-only speed-ups for in-process dbt runs. None changes any AWS API call.

dbt-athena builds fresh boto3 sessions and clients for every model (connection open,
S3 cleanup, the Spark session manager), and each session re-reads botocore's JSON service
models. Against the instant emulator that is most of what a model costs, and it would
push ``make bench`` past its time budget.

* ``share_botocore_data_loader`` (whole bench): one read-only loader of those JSON files.
  It shrinks a cost every arm of every timing pays alike, so ratios get stricter.
* ``reuse_boto3`` (call-count grid only): one session per thread and credentials, one
  client per service/region/endpoint/credentials/config. The emulator counts requests,
  not clients, so the counts are exactly what a plain run makes.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import threading
from typing import Any, Dict, Iterator, Tuple

import boto3.session
import botocore.loaders
import botocore.session

_original_client = boto3.session.Session.client


def share_botocore_data_loader() -> None:
    """One botocore data loader (read-only JSON service models) for the whole process."""
    botocore.session.create_loader = functools.lru_cache(maxsize=None)(
        botocore.loaders.create_loader
    )


@contextlib.contextmanager
def reuse_boto3() -> Iterator[None]:
    """Reuse boto3 sessions (one per thread and credentials) in dbt-athena, and botocore
    clients (thread-safe, one per service, region, endpoint, credentials and config)."""
    import dbt.adapters.athena.session as athena_session
    from dbt.adapters.athena.connections import AthenaConnection

    lock = threading.Lock()
    clients: Dict[Tuple[Any, ...], Any] = {}
    sessions: Dict[Tuple[Any, ...], Any] = {}
    original_from_credentials = athena_session.get_boto3_session_from_credentials
    original_defaults = AthenaConnection.__init__.__defaults__

    def session_from_credentials(credentials: Any) -> Any:
        key = (
            threading.get_ident(),
            *(
                getattr(credentials, name, None)
                for name in (
                    "aws_access_key_id", "aws_secret_access_key", "aws_session_token",
                    "region_name", "aws_profile_name", "assume_role_arn",
                )
            ),
        )  # fmt: skip
        if key not in sessions:
            sessions[key] = original_from_credentials(credentials)
        return sessions[key]

    def client(self: boto3.session.Session, service_name: str, *args: Any, **kwargs: Any) -> Any:
        credentials = self.get_credentials()
        config = kwargs.get("config")
        key = (
            service_name,
            args,
            self.region_name,
            credentials.access_key if credentials else None,
            repr(sorted((k, v) for k, v in kwargs.items() if k != "config")),
            repr(sorted(config._user_provided_options.items())) if config is not None else None,
        )
        with lock:
            if key not in clients:
                clients[key] = _original_client(self, service_name, *args, **kwargs)
            return clients[key]

    boto3.session.Session.client = client  # type: ignore[method-assign]
    athena_session.get_boto3_session_from_credentials = session_from_credentials
    # dbt-athena >= 1.10's AthenaConnection binds its session factory as a default argument;
    # 1.9's is a PyAthena Connection with no such parameter (its sessions are not reused).
    has_factory = "boto_session_factory" in inspect.signature(AthenaConnection.__init__).parameters
    if has_factory:
        AthenaConnection.__init__.__defaults__ = (
            lambda conn: session_from_credentials(conn.credentials),
        )
    try:
        yield
    finally:
        boto3.session.Session.client = _original_client  # type: ignore[method-assign]
        athena_session.get_boto3_session_from_credentials = original_from_credentials
        if has_factory:
            AthenaConnection.__init__.__defaults__ = original_defaults
