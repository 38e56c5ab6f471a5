"""Python's cycle collector paused while a large request is parsed, answered and encoded.

A million-partition request is millions of small objects made in a burst (the
decoded request, the model, the answer, its JSON form): the collector would walk
them again and again as they are made, several times the rest of the work,
although nothing here makes a reference cycle. The pure core never touches the
collector itself: its callers decide.

The pause is counted, so requests answered at the same time in worker threads
switch the collector back on only when the last of them is done, and only if it
was on when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

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
