"""boto3 clients from the calling thread's dbt connection, built as dbt-athena builds its own."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from dbt.adapters.athena.config import get_boto3_config


def connection_clients(
    adapter: Any, *services: str, fresh: bool = False
) -> Tuple[Dict[str, Any], str, Any]:
    """``({service: client}, region, credentials)`` for the thread's dbt connection.

    The connection's boto3 session carries the profile's region, ``aws_profile_name`` and
    ``assume_role_arn``; the config carries dbt-athena's retries, so throttling is retried
    with backoff. ``fresh=True`` builds a new session from the connection's credentials
    (as dbt-athena does for its Spark sessions), for when the connection's own session
    holds expired ones. Call it from a thread that holds a dbt connection.
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
    session = handle.session
    if fresh:
        from dbt.adapters.athena.session import get_boto3_session_from_credentials

        session = get_boto3_session_from_credentials(creds)
    with boto3_client_lock:
        clients = {
            name: session.client(name, region_name=region, config=config) for name in services
        }
    return clients, region, creds
