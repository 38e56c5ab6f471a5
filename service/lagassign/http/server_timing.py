"""How long each step of one ``POST /assign`` took, for its ``Server-Timing`` header.

The header (W3C Server Timing) names the steps in the order each first ended, each with
its wall time in milliseconds, and the route's whole time last::

    Server-Timing: read;dur=0.41, parse;dur=3.10, lag;dur=0.20, answer;dur=20.31, total;dur=25.02

- ``read``: the body read from the connection;
- ``turn``: the wait for a heavy request's turn (``LAGASSIGN_MAX_HEAVY_REQUESTS``), when
  there was one;
- ``parse``: parsing and checking the request;
- ``lag``: the lag through the lag model, when it was not kept from an earlier request;
- ``answer``: the strategy and the answer's encoding, when it was not served again;
- ``total``: from the request's start to its answer, these steps and what ran between
  them on the event loop (topic ids resolved, members checked, the answer recorded).

A client (the broker plugin logs it) can so tell a sidecar slow in one step from one
slow in all of them, for example for want of a core.
"""

from __future__ import annotations

import time


class StepTimes:
    """Wall times of named steps, each summed over its runs."""

    def __init__(self) -> None:
        self._seconds: dict[str, float] = {}

    def add(self, step: str, since: float) -> None:
        """Count the time from ``since`` (a ``time.perf_counter()``) to now to ``step``."""
        self._seconds[step] = self._seconds.get(step, 0.0) + time.perf_counter() - since

    def seconds(self, step: str) -> float:
        """The time counted to ``step`` so far (0 if it never ran)."""
        return self._seconds.get(step, 0.0)

    def header(self, started: float) -> str:
        """The ``Server-Timing`` value: each step, then ``total`` since ``started``."""
        steps = [*self._seconds.items(), ("total", time.perf_counter() - started)]
        return ", ".join(f"{step};dur={seconds * 1000:.2f}" for step, seconds in steps)
