"""A thread-safe, single-flight cache: one computation per key, however many threads ask.

Generic and pure: it knows nothing of AWS or catalogs (``resolver.py`` keys it by catalog).
Answers are kept for the cache's life. An error is shared with the callers that waited on
that flight, then forgotten: the next caller computes again, so one caller's failure never
becomes another's.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Hashable, Optional


class _Cell:
    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Any = None
        self.error: Optional[BaseException] = None


class SingleFlight:
    """``run(key, compute)``: ``compute()`` once for everyone asking ``key`` at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cells: Dict[Hashable, _Cell] = {}

    def run(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The kept answer for ``key``; else ``compute()`` in this thread while others asking
        ``key`` wait and share its answer or its error. An error is not kept."""
        with self._lock:
            cell = self._cells.get(key)
            owner = cell is None
            if cell is None:
                cell = self._cells[key] = _Cell()
        if owner:
            try:
                cell.value = compute()
            except BaseException as exc:
                cell.error = exc
                with self._lock:
                    if self._cells.get(key) is cell:
                        del self._cells[key]
            finally:
                cell.done.set()
        else:
            cell.done.wait()
        if cell.error is not None:
            raise cell.error
        return cell.value
