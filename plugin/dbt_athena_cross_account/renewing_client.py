"""One shared AWS client that is built again when AWS says the credentials expired.

The client is built on first use by the calling thread (the one that holds the dbt
connection, whose boto3 session it needs) and shared with pool threads. A call that ends
in :class:`CredentialsExpired` renews the client (once, however many threads saw the old
one fail) and is made once more; a second expiry raises the explained error it carries.
Pure: the factories are handed in.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional, TypeVar

T = TypeVar("T")


class CredentialsExpired(Exception):
    """AWS answered ExpiredToken*: build the client again and retry (never cached).

    ``error`` is what to raise when the retry expires too.
    """

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


class RenewingClient:
    """``factory()`` builds the client; ``fresh_factory()`` (default: ``factory``) builds
    one on new credentials after an expiry."""

    def __init__(
        self,
        factory: Callable[[], Any],
        fresh_factory: Optional[Callable[[], Any]] = None,
        debug: Callable[[str], None] = lambda _msg: None,
        what: str = "AWS client",
    ) -> None:
        self._factory = factory
        self._fresh_factory = fresh_factory or factory
        self._debug = debug
        self._what = what
        self._lock = threading.Lock()
        self._client: Any = None

    def get(self) -> Any:
        """The shared client, built on first use by the calling thread."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._factory()
        return self._client

    def renew(self, stale: Any) -> None:
        """Replace ``stale`` with a client on fresh credentials (once, however many ask)."""
        with self._lock:
            if self._client is stale or self._client is None:
                self._debug(f"AWS credentials expired; building a new {self._what}")
                self._client = self._fresh_factory()

    def call(self, call: Callable[[], T]) -> T:
        """``call()``; after CredentialsExpired, renew the client here and call once more.

        The client is built before the first call, in this thread, so pool threads that
        ``call`` starts share it."""
        client = self.get()
        try:
            return call()
        except CredentialsExpired:
            self.renew(client)
        try:
            return call()
        except CredentialsExpired as expired:
            raise expired.error from None
