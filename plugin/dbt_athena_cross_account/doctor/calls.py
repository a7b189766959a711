"""The doctor's AWS calls: each distinct call once, never more at once than a client holds.

* :meth:`Aws.request` makes one call through a client's slot: at most as many calls of a
  service run at once as its client has pooled connections, so parallel checks never
  open connections the pool would throw away. A streamed body is read inside the slot.
* :meth:`Aws.call` makes each distinct call (its key: action plus arguments) at most once
  per run, even when several threads ask at the same time: the first caller makes it, the
  others wait for its answer (:class:`Once`).

Answers are values or :class:`~.aws_errors.AwsError` data, never exceptions.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any, Callable, Dict, Hashable, Tuple, Union

from dbt_athena_cross_account.doctor.aws_errors import AwsError, attempt

#: Every AWS API action the doctor may call, all read-only. Tests assert nothing else is
#: called; the IAM list for the doctor (docs/iam.md) names the permission each one needs.
READ_ONLY_ACTIONS = frozenset(
    {
        "GetCallerIdentity",  # sts:GetCallerIdentity
        "GetDataCatalog",  # athena:GetDataCatalog
        "GetWorkGroup",  # athena:GetWorkGroup
        "GetDatabase",  # glue:GetDatabase
        "GetTable",  # glue:GetTable
        "GetPartitions",  # glue:GetPartitions
        "GetDataCatalogEncryptionSettings",  # glue:GetDataCatalogEncryptionSettings
        "ListObjectsV2",  # s3:ListBucket
        "GetObject",  # s3:GetObject (one byte; proves kms:Decrypt too)
        "GetBucketEncryption",  # s3:GetEncryptionConfiguration
    }
)
MAX_IN_FLIGHT = 16  # calls at once per service, at most
DEFAULT_POOL = 10  # botocore's max_pool_connections


class Once:
    """Single-flight memo of answers, keyed by the caller."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers: Dict[Hashable, Future[Any]] = {}

    def __call__(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        with self._lock:
            answer = self._answers.get(key)
            first = answer is None
            if first:
                answer = self._answers[key] = Future()
        assert answer is not None
        if first:
            try:
                answer.set_result(compute())
            except BaseException as exc:  # a bug, not an AWS answer: every waiter sees it
                answer.set_exception(exc)
                raise
        return answer.result()


def pool_size(client: Any) -> int:
    """How many connections the client keeps (``Config.max_pool_connections``)."""
    size = getattr(
        getattr(getattr(client, "meta", None), "config", None), "max_pool_connections", None
    )
    return size if isinstance(size, int) and size > 0 else DEFAULT_POOL


class Aws:
    """The clients one run uses, in one region: bounded, memoized calls."""

    def __init__(
        self,
        *,
        athena: Any,
        glue: Any,
        s3: Any,
        sts: Any,
        region: str,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        self.region = region
        self.clients = {"athena": athena, "glue": glue, "s3": s3, "sts": sts}
        self.slots = {
            name: threading.BoundedSemaphore(max(1, min(max_in_flight, pool_size(client))))
            for name, client in self.clients.items()
        }
        self.once = Once()

    def request(self, service: str, operation: str, **kwargs: Any) -> Union[Any, AwsError]:
        """``<service client>.<operation>(**kwargs)``: its answer, or an AwsError."""
        with self.slots[service]:
            return attempt(_complete, getattr(self.clients[service], operation), **kwargs)

    def call(
        self, key: Tuple[Hashable, ...], service: str, operation: str, **kwargs: Any
    ) -> Union[Any, AwsError]:
        """:meth:`request`, made once per ``key`` for this run."""
        return self.once(key, lambda: self.request(service, operation, **kwargs))


def _complete(method: Callable[..., Any], **kwargs: Any) -> Any:
    """Call ``method``; read a streamed body while the connection is still ours."""
    answer = method(**kwargs)
    body = answer.get("Body") if isinstance(answer, dict) else None
    if body is not None and hasattr(body, "read"):
        answer = {**answer, "Body": body.read()}
    return answer
