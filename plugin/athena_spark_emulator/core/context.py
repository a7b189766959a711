"""What the running thread works for, in one thread-local: the emulator (its backend) whose
request or calculation this is, the request it answers, and the principal a calculation runs
as. The folders above set them (``aws.backend`` binds the backend and the request,
``spark.calculations`` the principal); any folder reads them, so the accounts' grant checks
and the Spark executor need not import the AWS front."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional

_THREAD = threading.local()


@contextlib.contextmanager
def bound(name: str, value: Any) -> Iterator[Any]:
    """``value`` current as ``name`` on this thread while the block runs, then the previous."""
    previous = getattr(_THREAD, name, None)
    setattr(_THREAD, name, value)
    try:
        yield value
    finally:
        setattr(_THREAD, name, previous)


def current_backend() -> Any:
    """The emulator backend this thread works for (an emulator's request or calculation
    thread), else None. An ``aws.backend.EmulatorBackend``."""
    return getattr(_THREAD, "backend", None)


def current_call() -> Any:
    """The request (an ``aws.backend.Call``) this thread is answering, else None."""
    return getattr(_THREAD, "call", None)


def current_principal() -> Optional[str]:
    """The execution role of the calculation running on this thread (None elsewhere)."""
    return getattr(_THREAD, "principal", None)


def set_principal(role: Optional[str]) -> None:
    _THREAD.principal = role
