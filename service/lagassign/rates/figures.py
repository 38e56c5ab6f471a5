"""Produce rate, consume rate and time lag of one partition, from its window of offsets.

A window is three equally long sequences, oldest first: the refresh times in
milliseconds (strictly increasing), the log end offsets, and the committed
offsets (``NO_OFFSET`` where the group had no commit). Everything here is pure.

Rates (records per second) follow the pipeline's trailing-window rule
(``lagassign_pipeline.rates``): a *step* is the change between two consecutive
points; a rate is the sum of the steps that count over the sum of their
durations. A step counts only when it spans at most ``max_gap_ms`` (longer: the
service or the partition was not seen, and nothing honest can be said about
what happened in between) and its offset did not move back (a log end moving
back is a deleted and recreated topic; a committed offset moving back is an
offset reset). So a rate is never negative, and it is ``None`` when no step
counts (a new partition, a window of gaps).

Time lag: how long before the newest point the log end was at the committed
offset of the newest point. The log end is taken to grow linearly between two
points, so the moment is interpolated between the last point whose log end was
at most the committed offset and the next one. The search only looks at the
window since the log end last moved back (before that the offsets belong to
another incarnation of the topic). It is 0 when the partition has no lag, and
``None`` when the committed offset is unknown or the window does not reach back
to a log end that low: never a made-up 0.

Worked example: points at 0 s, 10 s and 20 s with log ends 100, 150, 200 and the
committed offset 125 at 20 s. The log end passed 125 half way between 0 s and
10 s, at 5 s, so the time lag is 20 - 5 = 15 s; the produce rate is
(50 + 50) / 20 s = 5 records/s.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

#: A committed offset the group does not have.
NO_OFFSET = -1


def step_counts(dt_ms: int, step: int, max_gap_ms: int) -> bool:
    """Whether one step counts towards a rate (see the module docstring)."""
    return 0 < dt_ms <= max_gap_ms and step >= 0


def rate(times_ms: Sequence[int], values: Sequence[int], max_gap_ms: int) -> float | None:
    """Counted growth of ``values`` over counted seconds; ``None`` when no step counts.

    A step from or to ``NO_OFFSET`` does not count.
    """
    grown = 0
    spent_ms = 0
    for i in range(1, len(times_ms)):
        before, after = values[i - 1], values[i]
        if before == NO_OFFSET or after == NO_OFFSET:
            continue
        dt = times_ms[i] - times_ms[i - 1]
        if step_counts(dt, after - before, max_gap_ms):
            grown += after - before
            spent_ms += dt
    return grown * 1000 / spent_ms if spent_ms > 0 else None


def incarnation_start(ends: Sequence[int]) -> int:
    """Index of the first point since the log end last moved back (0 if it never did)."""
    start = 0
    for i in range(1, len(ends)):
        if ends[i] < ends[i - 1]:
            start = i
    return start


def time_lag_s(
    times_ms: Sequence[int], ends: Sequence[int], committed: int, start: int = 0
) -> float | None:
    """Seconds since the log end was at ``committed``, seen from the newest point.

    ``start`` is :func:`incarnation_start` of ``ends`` (the window keeps it
    up to date rather than scanning). 0 when ``committed`` is at or past the
    newest log end; ``None`` when ``committed`` is ``NO_OFFSET``, when the window
    is empty, or when every log end since ``start`` is above ``committed``.
    """
    if committed == NO_OFFSET or not times_ms:
        return None
    newest = len(times_ms) - 1
    if committed >= ends[newest]:
        return 0.0
    # The last point (from start on) whose log end was at most the committed offset.
    below = bisect_right(ends, committed, lo=start, hi=newest + 1) - 1
    if below < start:
        return None
    t0, e0 = times_ms[below], ends[below]
    t1, e1 = times_ms[below + 1], ends[below + 1]  # e1 > committed >= e0
    crossed_ms = t0 + (committed - e0) * (t1 - t0) / (e1 - e0)
    return (times_ms[newest] - crossed_ms) / 1000
