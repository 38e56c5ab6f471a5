"""The JSON of ``POST /assign``: the codec, and (opt-in) the garbage collector paused around it.

With the optional extra ``lagassign-client[fast]`` the shim encodes and decodes with
msgspec (several times faster on the megabytes of a group of a million partitions);
without it, with the standard library's :mod:`json`. Both give the same Python values
(dicts, lists, str, int, float, bool, None), so the checks downstream are the same.
The answer is always asked for in the ``packed`` form (:mod:`lagassign_client.wire.answer`),
read with the standard library alone.

The collector is the application's. By default the shim leaves it alone. An assignor
made with ``pause_gc=True`` (an opt-in for groups of hundreds of thousands of partitions)
pauses CPython's cyclic collector while a request is built and an answer read
(:func:`paused_gc`): a large answer is millions of small lists without cycles, which the
collector, triggered by the allocations, would walk again and again while they are made.
What the block made then joins the oldest generation at once (``gc.freeze()`` then
``gc.unfreeze()``, two list splices) instead of being walked by the next young collection;
skipped when the application keeps objects frozen itself (``gc.get_freeze_count()`` above
zero). The figures it buys are in the Python shim's README (``pause_gc``).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

try:
    import msgspec
except ImportError:  # the optional extra is not installed: the standard library's codec
    msgspec = None  # type: ignore[assignment]


def json_dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def json_loads(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(str(exc)) from None


def msgspec_loads(raw: bytes) -> Any:
    assert msgspec is not None
    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError as exc:
        raise ValueError(str(exc)) from None


CODEC = "json" if msgspec is None else "msgspec"
"""The codec in use: ``msgspec`` when the ``fast`` extra is installed, else ``json``."""

dumps: Callable[[Any], bytes] = json_dumps if msgspec is None else msgspec.json.encode
"""Compact JSON of a request body."""

loads: Callable[[bytes], Any] = json_loads if msgspec is None else msgspec_loads
"""The value of a JSON document; :class:`ValueError` when it is not JSON (or not UTF-8)."""


ANSWER_FORM = "packed"
"""The answer form the shim asks for: each member's partitions as two base64 arrays."""


@contextmanager
def paused_gc(enabled: bool = True) -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (if it runs), then resume it, with
    what the block made in the oldest generation (unless the application froze objects).

    With ``enabled`` false the block runs as it is, the collector untouched.
    """
    if not enabled:
        yield
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
