"""``eventually``: poll a condition until it holds or a deadline passes, never longer.

The condition returns a value; the first truthy value is returned. When the
deadline passes (the condition is always tried once more at the deadline),
:class:`TimeoutError` says what was awaited and the last value seen.
``eventually_async`` is the same poll inside a running event loop, where the
condition may also be a coroutine function.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")

INTERVAL_S = 0.2


class _Deadline:
    """The deadline of one wait: how long to pause before the next try."""

    def __init__(self, timeout_s: float, what: str, interval_s: float) -> None:
        self._end = time.monotonic() + timeout_s
        self._timeout_s = timeout_s
        self._what = what
        self._interval_s = interval_s

    def pause(self, last: object) -> float:
        """Seconds to wait before the next try; :class:`TimeoutError` once it has passed
        (``last``: the value the condition returned last)."""
        left = self._end - time.monotonic()
        if left <= 0:
            raise TimeoutError(
                f"not within {self._timeout_s:g} s: {self._what} (last seen: {last!r:.500})"
            )
        return min(self._interval_s, left)


def eventually(
    condition: Callable[[], T | None],
    timeout_s: float,
    what: str = "the condition",
    interval_s: float = INTERVAL_S,
) -> T:
    """Call ``condition`` every ``interval_s`` until it returns a truthy value; return it."""
    deadline = _Deadline(timeout_s, what, interval_s)
    while True:
        last = condition()
        if last:
            return last
        time.sleep(deadline.pause(last))


@overload
async def eventually_async(
    condition: Callable[[], Awaitable[T | None]],
    timeout_s: float,
    what: str = ...,
    interval_s: float = ...,
) -> T: ...


@overload
async def eventually_async(
    condition: Callable[[], T | None],
    timeout_s: float,
    what: str = ...,
    interval_s: float = ...,
) -> T: ...


async def eventually_async(
    condition: Callable[[], Any],
    timeout_s: float,
    what: str = "the condition",
    interval_s: float = INTERVAL_S,
) -> Any:
    """:func:`eventually` without blocking the event loop; ``condition`` may be async."""
    deadline = _Deadline(timeout_s, what, interval_s)
    while True:
        value = condition()
        last = await value if inspect.isawaitable(value) else value
        if last:
            return last
        await asyncio.sleep(deadline.pause(last))
