"""The doctor's AWS clients, and each distinct call made once.

Many tables share a database, a bucket or a location; :class:`Once` makes sure each
distinct call (action plus arguments) is made at most once per run, even when several
threads ask for it at the same time: the first caller makes it, the others wait for its
answer. Answers are values or :class:`~.aws_errors.AwsError` data, never exceptions.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Hashable, Tuple, Union

from dbt_athena_cross_account.doctor.aws_errors import AwsError, attempt

#: Every AWS API action the doctor may call, all read-only. Tests assert nothing else is
#: called; the README's IAM list for the doctor names the permission each one needs.
READ_ONLY_ACTIONS = frozenset(
    {
        "GetCallerIdentity",  # sts:GetCallerIdentity
        "GetDataCatalog",  # athena:GetDataCatalog
        "GetWorkGroup",  # athena:GetWorkGroup
        "GetDatabase",  # glue:GetDatabase
        "GetTable",  # glue:GetTable
        "ListObjectsV2",  # s3:ListBucket
        "GetObject",  # s3:GetObject (one byte; proves kms:Decrypt too)
        "GetBucketEncryption",  # s3:GetEncryptionConfiguration
    }
)


class Once:
    """Single-flight memo of AWS answers, keyed by the caller."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._answers: Dict[Hashable, Future] = {}

    def __call__(
        self, key: Hashable, call: Callable[..., Any], **kwargs: Any
    ) -> Union[Any, AwsError]:
        with self._lock:
            answer = self._answers.get(key)
            first = answer is None
            if first:
                answer = self._answers[key] = Future()
        assert answer is not None
        if first:
            try:
                answer.set_result(attempt(call, **kwargs))
            except BaseException as exc:  # a bug, not an AWS answer: every waiter sees it
                answer.set_exception(exc)
                raise
        return answer.result()


@dataclass
class Aws:
    """The clients a run uses, in one region, with its memo of answers."""

    athena: Any
    glue: Any
    s3: Any
    sts: Any
    region: str
    once: Once = field(default_factory=Once)

    def call(self, key: Tuple[Hashable, ...], method: Callable[..., Any], **kwargs: Any) -> Any:
        """``method(**kwargs)`` once per ``key`` for this run: its value or an AwsError."""
        return self.once(key, method, **kwargs)
