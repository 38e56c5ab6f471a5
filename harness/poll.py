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


def _pause(deadline: float, interval_s: float) -> float | None:
    """Seconds to wait before the next try, or None once the deadline has passed."""
    left = deadline - time.monotonic()
    return None if left <= 0 else min(interval_s, left)


def _timed_out(what: str, timeout_s: float, last: object) -> TimeoutError:
    return TimeoutError(f"not within {timeout_s:g} s: {what} (last seen: {last!r:.500})")


def eventually(
    condition: Callable[[], T | None],
    timeout_s: float,
    what: str = "the condition",
    interval_s: float = INTERVAL_S,
) -> T:
    """Call ``condition`` every ``interval_s`` until it returns a truthy value; return it."""
    deadline = time.monotonic() + timeout_s
    while True:
        last = condition()
        if last:
            return last
        pause = _pause(deadline, interval_s)
        if pause is None:
            raise _timed_out(what, timeout_s, last)
        time.sleep(pause)


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
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        last = await value if inspect.isawaitable(value) else value
        if last:
            return last
        pause = _pause(deadline, interval_s)
        if pause is None:
            raise _timed_out(what, timeout_s, last)
        await asyncio.sleep(pause)
