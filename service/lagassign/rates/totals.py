"""Sums and worst of several partitions' live figures (a member's, a group's).

Rates add up (records per second); time lags do not, so a set of partitions
has its worst time lag. Unknown values are left out and counted: a sum or a
worst over nothing known is ``None``, not 0.

Example: partitions with (lag_seconds, produce, consume) of (12.5, 10, 8),
(None, 4, None) and (0, 0, 0) total produce 14, consume 8, worst time lag 12.5
with one time lag unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from lagassign.rates.partition_window import PartitionRates


@dataclass(frozen=True, slots=True)
class RatesTotal:
    produce_rate: float | None
    consume_rate: float | None
    lag_seconds_max: float | None
    lag_seconds_unknown: int


def total(figures: Iterable[PartitionRates]) -> RatesTotal:
    produce: float | None = None
    consume: float | None = None
    worst: float | None = None
    unknown = 0
    for f in figures:
        if f.produce_rate is not None:
            produce = (produce or 0.0) + f.produce_rate
        if f.consume_rate is not None:
            consume = (consume or 0.0) + f.consume_rate
        if f.lag_seconds is None:
            unknown += 1
        elif worst is None or f.lag_seconds > worst:
            worst = f.lag_seconds
    return RatesTotal(produce, consume, worst, unknown)


def rounded(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)
