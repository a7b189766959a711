"""Bench-only speed-ups for in-process dbt runs. Neither changes any AWS API call.

dbt-athena builds fresh boto3 sessions and clients for every model (connection open,
S3 cleanup, the Spark session manager), and each one re-reads botocore's JSON service
models. Against the instant emulator that is most of what a model costs, and it would
push ``make bench`` past its time budget. Both speed-ups shrink a cost that every arm of
every comparison pays alike, so they make the ratios stricter, not looser, and they leave
the call counts exactly as they are (the emulator counts requests, not clients).
"""

from __future__ import annotations

import contextlib
import functools
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
def reuse_boto3_clients() -> Iterator[Dict[Tuple[Any, ...], Any]]:
    """Hand out one (thread-safe) botocore client per service, region, endpoint, credentials
    and config, whichever boto3 session asks for it."""
    clients: Dict[Tuple[Any, ...], Any] = {}
    lock = threading.Lock()

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
    try:
        yield clients
    finally:
        boto3.session.Session.client = _original_client  # type: ignore[method-assign]
