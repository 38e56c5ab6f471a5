"""The JSON of ``POST /assign``: the codec, and the garbage collector paused around it.

With the optional extra ``lagassign-client[fast]`` the shim encodes and decodes with
msgspec (several times faster on the megabytes of a group of a million partitions);
without it, with the standard library's :mod:`json`. Both give the same Python values
(dicts, lists, str, int, float, bool, None), so the checks downstream are the same.

A large answer is millions of small lists: CPython's cyclic garbage collector, triggered
by the allocations, would walk all of them again and again while they are made. They
hold no cycles, so the collector is paused while a request is built and an answer read
(:func:`paused_gc`), and runs normally again afterwards.
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


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (if it runs), then resume it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
