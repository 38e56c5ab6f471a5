"""Python's cycle collector paused while a large request is parsed, answered and encoded.

A million-partition request is millions of small objects made in a burst (the
decoded request, the model, the answer, its JSON form): the collector would walk
them again and again as they are made, several times the rest of the work,
although nothing here makes a reference cycle. The pure core never touches the
collector itself: its callers decide.

The pause is counted, so requests answered at the same time in worker threads
switch the collector back on only when the last of them is done, and only if it
was on when the first began.

A large request of the HTTP service holds one pause from its decoding to the bytes
of its answer (:func:`request_paused`): its millions of objects live through it and
are freed (by their reference counts) before it ends, so no collection ever walks them.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

_lock = threading.Lock()
_holders = 0
_was_on = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside this block (and any block it overlaps)."""
    global _holders, _was_on
    with _lock:
        if _holders == 0:
            _was_on = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_on:
                gc.enable()


@asynccontextmanager
async def request_paused(large: bool) -> AsyncIterator[None]:
    """For a ``large`` request, the collector paused over the block, and its objects freed
    inside the pause; a small one's block runs as it is."""
    if not large:
        yield
        return
    with collector_paused():
        yield
        # The event loop holds the worker thread's last future (and through it the answer
        # and its request) until this task next yields: yield once, so they are freed
        # while the collector is still paused.
        await asyncio.sleep(0)
