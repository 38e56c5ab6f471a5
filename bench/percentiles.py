"""Nearest-rank percentiles for the benchmarks' JSON lines."""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The value at rank ``round(q * (n - 1))`` of the sorted values (q in 0..1)."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[rank]
