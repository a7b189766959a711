"""boto3 clients from the calling thread's dbt connection, built as dbt-athena builds its own."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from dbt.adapters.athena.config import get_boto3_config


def connection_clients(adapter: Any, *services: str) -> Tuple[Dict[str, Any], str, Any]:
    """``({service: client}, region, credentials)`` for the thread's dbt connection.

    The connection's boto3 session carries the profile's region, ``aws_profile_name`` and
    ``assume_role_arn``; the config carries dbt-athena's retries, so throttling is retried
    with backoff.
    """
    from dbt.adapters.athena.impl import boto3_client_lock

    conn = adapter.connections.get_thread_connection()
    creds = conn.credentials
    handle = conn.handle
    retries = getattr(creds, "effective_num_retries", None) or creds.num_retries
    config = get_boto3_config(num_retries=retries)
    # dbt-athena 1.9's handle has no region_name; the profile always has one.
    region = (
        getattr(handle, "region_name", None)
        or getattr(creds, "region_name", None)
        or handle.session.region_name
    )
    with boto3_client_lock:
        clients = {
            name: handle.session.client(name, region_name=region, config=config)
            for name in services
        }
    return clients, region, creds
