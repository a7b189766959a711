"""IAM roles of emulated accounts, and STS AssumeRole into them as AWS decides it.

The emulator's own model (independent of the product's ``roles.py``): a role
``arn:aws:iam::<account>:role/<name>`` trusts a list of principals (a role or user ARN, an
account id, or ``arn:aws:iam::<account>:root``: anyone in that account), optionally only
with an external id, and reads its own account's Glue and S3 (the catalog's checks allow a
caller of the table's own account). Seeded as ``accounts.<id>.roles.<name>``.

:meth:`Roles.assume` answers as STS does: a role that does not exist, a caller the trust
does not name, and a missing or wrong external id all get the same ``AccessDenied`` text
(STS does not say which); a duration above an hour is refused for role chaining (the
caller, Athena's Spark identity, is itself an assumed role), one under 900 s by STS's
validation. The texts are those of the AWS SDK v2 for Java's ``StsException``, which
iceberg-aws's ``AssumeRoleAwsClientFactory`` raises inside Spark.
"""

from __future__ import annotations

import random
import re
import threading
import uuid
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

MAX_CHAINED_SECONDS = 3600
MIN_SECONDS = 900
_ROLE_ARN = re.compile(r"arn:aws:iam::(\d{12}):role/(?:[^/]+/)*([^/]+)")


class StsRefusal(Exception):
    """STS refused an AssumeRole (the message is the Java SDK's StsException text)."""


@dataclass(frozen=True)
class Role:
    arn: str
    trusts: Tuple[str, ...]
    external_id: Optional[str] = None

    @property
    def account(self) -> str:
        return self.arn.split(":")[4]


def _request_id() -> str:
    return str(uuid.UUID(int=random.getrandbits(128)))


def caller_session_arn(caller: str) -> str:
    """How STS names a role caller: its assumed-role session (Athena's Spark session)."""
    match = _ROLE_ARN.fullmatch(caller)
    if match:
        return f"arn:aws:sts::{match.group(1)}:assumed-role/{match.group(2)}/AthenaSparkSession"
    return caller


def _account_of(principal: str) -> str:
    parts = principal.split(":")
    return parts[4] if len(parts) > 4 and parts[0] == "arn" else principal


class Roles:
    """The roles of every emulated account (``catalog.roles``)."""

    def __init__(self) -> None:
        self._roles: Dict[str, Role] = {}
        self._lock = threading.Lock()

    def add(
        self, account: str, name: str, trusts: Sequence[str], external_id: Optional[str] = None
    ) -> Role:
        role = Role(f"arn:aws:iam::{account}:role/{name}", tuple(trusts), external_id)
        with self._lock:
            self._roles[role.arn] = role
        return role

    def all(self) -> List[Role]:
        """Every role, by ARN (what --data-dir saves)."""
        with self._lock:
            return [self._roles[arn] for arn in sorted(self._roles)]

    def clear(self) -> None:
        with self._lock:
            self._roles.clear()

    def get(self, arn: str) -> Optional[Role]:
        with self._lock:
            return self._roles.get(arn)

    @staticmethod
    def trusted(role: Role, caller: str) -> bool:
        account = _account_of(caller)
        return any(p in (caller, account, f"arn:aws:iam::{account}:root") for p in role.trusts)

    def assume(
        self,
        caller: str,
        role_arn: str,
        external_id: Optional[str] = None,
        duration_seconds: int = MAX_CHAINED_SECONDS,
        chained: bool = True,
    ) -> Role:
        """The role ``caller`` now acts as; raises :class:`StsRefusal` as STS refuses."""
        if duration_seconds < MIN_SECONDS:
            raise StsRefusal(
                "software.amazon.awssdk.services.sts.model.StsException: 1 validation error "
                f"detected: Value '{duration_seconds}' at 'durationSeconds' failed to satisfy "
                f"constraint: Member must have value greater than or equal to {MIN_SECONDS} "
                f"(Service: Sts, Status Code: 400, Request ID: {_request_id()})"
            )
        role = self.get(role_arn)
        allowed = (
            role is not None
            and self.trusted(role, caller)
            and (role.external_id is None or role.external_id == external_id)
        )
        if role is None or not allowed:
            raise StsRefusal(
                "software.amazon.awssdk.services.sts.model.StsException: User: "
                f"{caller_session_arn(caller)} is not authorized to perform: sts:AssumeRole on "
                f"resource: {role_arn} (Service: Sts, Status Code: 403, Request ID: "
                f"{_request_id()})"
            )
        if chained and duration_seconds > MAX_CHAINED_SECONDS:
            raise StsRefusal(
                "software.amazon.awssdk.services.sts.model.StsException: The requested "
                "DurationSeconds exceeds the 1 hour session limit for roles assumed by role "
                f"chaining. (Service: Sts, Status Code: 400, Request ID: {_request_id()})"
            )
        return role
