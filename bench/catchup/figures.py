"""The figures of one catch-up run, from the broker's samples and the members' own counts.

- ``catch_up_s``: from ``t0`` (the first record any member processed) until the
  group's lag is first under ``threshold`` x the initial backlog, interpolated
  linearly between the two samples around the crossing; ``None`` if it never is.
- ``worst_member_lag_max`` and ``worst_member_lag_mean``: the largest lag one
  member holds, its maximum and its time-weighted mean (each sample holds until
  the next) over ``[t0, caught up]``.
- ``rebalances`` and ``rebalance_s``: generations the group went through, and the
  time some member was stalled waiting for its assignment (from joining or giving
  up its partitions until it is given new ones), the union over members.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bench.catchup.sampler import Sample

THRESHOLD = 0.01


@dataclass(frozen=True)
class Stall:
    """One member waiting for an assignment from ``began`` to ``ended`` (``time.time()``)."""

    member: str
    began: float
    ended: float


def initial_backlog(samples: Sequence[Sample], t0: float) -> Sample:
    """The last sample taken at or before ``t0`` (the first one if none was)."""
    before = [s for s in samples if s.at <= t0]
    return before[-1] if before else samples[0]


def catch_up_at(samples: Sequence[Sample], t0: float, target: float) -> float | None:
    """When the group's lag first falls under ``target`` after ``t0``."""
    previous: Sample | None = None
    for sample in samples:
        if sample.at < t0:
            previous = sample
            continue
        if sample.group_lag < target:
            if previous is None or previous.group_lag <= sample.group_lag:
                return sample.at
            # Linear between the last sample above the target and this one.
            share = (previous.group_lag - target) / (previous.group_lag - sample.group_lag)
            return max(t0, previous.at + share * (sample.at - previous.at))
        previous = sample
    return None


def worst_member(samples: Sequence[Sample], t0: float, end: float) -> tuple[int, float]:
    """Max and time-weighted mean of the worst member's lag over ``[t0, end]``; samples
    taken before any assignment was known are left out of both."""
    window = [s for s in samples if s.at <= end]
    peak = 0
    weighted = 0.0
    covered = 0.0
    for i, sample in enumerate(window):
        worst = sample.worst_member_lag
        begin = max(sample.at, t0)
        until = min(window[i + 1].at if i + 1 < len(window) else end, end)
        if worst is None or until <= begin:
            continue
        peak = max(peak, worst)
        weighted += worst * (until - begin)
        covered += until - begin
    return peak, weighted / covered if covered else 0.0


def stalled_s(stalls: Sequence[Stall], until: float) -> float:
    """The time at least one member was stalled before ``until`` (union of intervals)."""
    spans = sorted((s.began, min(s.ended, until)) for s in stalls if s.began < until)
    total = 0.0
    current: tuple[float, float] | None = None
    for begin, end in spans:
        if current is None or begin > current[1]:
            if current is not None:
                total += current[1] - current[0]
            current = (begin, end)
        else:
            current = (current[0], max(current[1], end))
    if current is not None:
        total += current[1] - current[0]
    return total
