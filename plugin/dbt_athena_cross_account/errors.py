"""What goes wrong, and how bad it is: the one home of the names the resolver, the table
formats (``formats.py``) and the doctor (``doctor/``) share.

* :class:`CrossAccountCatalogError`, the error that stops a model at compile time;
* the AWS error codes, grouped by what they mean, and :func:`error_code`;
* the doctor's statuses ``PASS``, ``WARN`` and ``FAIL`` (also what ``formats.py`` says the
  doctor reports for each table format).

Pure: nothing here imports dbt or boto3.
"""

from __future__ import annotations

PASS, WARN, FAIL = "PASS", "WARN", "FAIL"

ACCESS_DENIED_CODES = frozenset(
    {
        "AccessDeniedException",
        "AccessDenied",
        "UnauthorizedOperation",
        "UnrecognizedClientException",
    }
)
THROTTLING_CODES = frozenset(
    {"ThrottlingException", "TooManyRequestsException", "Throttling", "RequestLimitExceeded"}
)
NOT_FOUND_CODES = frozenset({"InvalidRequestException", "ResourceNotFoundException"})
EXPIRED_CREDENTIALS_PREFIX = "ExpiredToken"  # ExpiredToken, ExpiredTokenException


class CrossAccountCatalogError(Exception):
    """A problem that stops a model from reading a cross-account catalog.

    The message always names the catalog (or API action) and says how to fix it.
    """


def error_code(exc: BaseException) -> str:
    """The AWS error code of a botocore ClientError, '' for anything else."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        return str(response.get("Error", {}).get("Code", ""))
    return ""


def expired_credentials(code: str) -> bool:
    """True for AWS's answers that the caller's credentials expired (``ExpiredToken*``)."""
    return code.startswith(EXPIRED_CREDENTIALS_PREFIX)
