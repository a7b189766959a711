"""AWS errors as data: the checks turn a failed call into a row, never re-raise it.

:func:`attempt` runs one boto3 call and returns its answer, or an :class:`AwsError` when
AWS answered with an error. Anything else (a bug, a network failure) propagates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Union

from dbt_athena_cross_account.errors import (
    ACCESS_DENIED_CODES,
    NOT_FOUND_CODES,
    THROTTLING_CODES,
    error_code,
)

GLUE_NOT_FOUND_CODES = frozenset({"EntityNotFoundException"})
S3_NO_SUCH_BUCKET_CODES = frozenset({"NoSuchBucket"})

_XML_FIELD = re.compile(r"<(Code|Message)>([^<]*)</\1>")


@dataclass(frozen=True)
class AwsError:
    """What a check needs to explain a failed call."""

    code: str
    text: str  # "Code: message", for quoting in a reason
    http_status: int = 0

    @property
    def denied(self) -> bool:
        """AccessDenied in any spelling, or any HTTP 403 (S3 sends bare 403s)."""
        return self.code in ACCESS_DENIED_CODES or self.code == "403" or self.http_status == 403

    @property
    def throttled(self) -> bool:
        return self.code in THROTTLING_CODES

    @property
    def not_found(self) -> bool:
        return self.code in NOT_FOUND_CODES

    @property
    def glue_not_found(self) -> bool:
        return self.code in GLUE_NOT_FOUND_CODES

    @property
    def no_such_bucket(self) -> bool:
        return self.code in S3_NO_SUCH_BUCKET_CODES

    @classmethod
    def from_exception(cls, exc: BaseException) -> AwsError:
        response = getattr(exc, "response", None) or {}
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        return cls(error_code(exc), _short(exc), status if isinstance(status, int) else 0)


def _short(exc: BaseException) -> str:
    """``Code: message`` of an AWS error, also when the body was XML that botocore left raw."""
    code = error_code(exc) or type(exc).__name__
    response = getattr(exc, "response", None)
    message = ""
    if isinstance(response, dict):
        message = str(response.get("Error", {}).get("Message", "") or "")
    if message.lstrip().startswith("<"):
        fields = dict(_XML_FIELD.findall(message))
        code = fields.get("Code", code)
        message = fields.get("Message", "")
    message = " ".join(message.split())
    return f"{code}: {message}" if message else code


def attempt(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Union[Any, AwsError]:
    """``call(*args, **kwargs)``, or the AwsError that AWS answered with."""
    try:
        return call(*args, **kwargs)
    except Exception as exc:
        if not error_code(exc):
            raise
        return AwsError.from_exception(exc)
