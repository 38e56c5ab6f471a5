"""The ``drain`` lag model: weigh a partition by what its owner reads until the group catches up.

Lag is a flow: while a group drains its backlog, producers keep writing. A group
of ``m`` members that can each read ``c`` records/s, holding a backlog ``L`` while
``R`` records/s arrive, catches up at the earliest at the *horizon*

    T = L / (m x c - R)

(every member reading flat out until then). By then the owner of a partition
with lag ``l`` and produce rate ``r`` must have read ``l + r x T``: that is the
partition's *drain weight*. A member whose partitions weigh ``W`` in all has
drained them by ``T`` exactly when ``W <= c x T``, so the answer with the smallest
largest member weight is the one that catches up soonest, and the strategies
balance these weights as they balance lag.

Bounds on ``T``:

- at least ``floor_s`` (10 s): with no backlog the weights are the rates times
  the floor, so the answer balances the inflow and no member is handed more
  records per second than it can read while another idles;
- at most ``ceiling_s`` (1 hour), also when the inflow reaches what the group can
  read (``m x c <= R``): the group cannot catch up, and the weights are then led
  by the rates, which is what keeps the members' lag from growing unevenly.

Capacity ``c``: an operator's ``LAGASSIGN_MEMBER_CAPACITY`` when set; otherwise
measured. A member that holds backlog reads flat out, so the reading rate of its
partitions (their consume rate since their committed offsets started moving in
the newest 30 s, :mod:`lagassign.rates.window`), summed, is what it can read; the
group's capacity is the median of those members' figures (members are taken as
alike: the answer knows no per-member speed). A group that has just started
reading a backlog after standing still is measured from when it started, not
taken for a slow one. Before any member has been seen reading with a backlog
(a group's first rebalance) the horizon is ``default_horizon_s`` (60 s), and the
answer says so (``capacity`` null).

A partition whose produce rate is not known yet (new, or no recent step) weighs
its lag alone and is counted in ``unknown_rates``. With no rate known at all the
weights are the lags: the answer is the ``backlog`` model's.

Worked example: 2 members of 500 records/s; partitions with lags
``[3000, 1000, 0, 0]`` and produce rates ``[0, 0, 450, 30]``. ``L = 4000``,
``R = 480``, ``T = 4000 / (1000 - 480) = 7.7 s``, raised to the 10 s floor. The
weights are ``[3000, 1000, 4500, 300]``: the member given the 450 records/s
partition takes nothing else heavy. The ``backlog`` model sees ``[3000, 1000, 0,
0]`` and may well pair the 3000 with the 450/s partition; that member then
needs 3000 / (500 - 450) = 60 s to catch up, against 8 s at best.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from statistics import median

from lagassign.assign.lag_sources import Horizon

#: The horizon's bounds and its value while capacity is unknown, in seconds.
FLOOR_S = 10.0
CEILING_S = 3600.0
DEFAULT_HORIZON_S = 60.0

#: Member id -> topic -> partitions (the live assignment).
Live = Mapping[str, Mapping[str, Sequence[int]]]


def catch_up_horizon(
    total_lag: int,
    total_produce: float,
    members: int,
    capacity: float | None,
    *,
    capacity_source: str = "measured",
    floor_s: float = FLOOR_S,
    ceiling_s: float = CEILING_S,
    default_s: float = DEFAULT_HORIZON_S,
) -> Horizon:
    """``T = L / (m x c - R)`` within ``[floor_s, ceiling_s]`` (module docstring)."""
    if capacity is None or capacity <= 0 or members <= 0:
        return Horizon(default_s, None, "unknown")
    spare = members * capacity - total_produce
    if spare <= 0:
        return Horizon(ceiling_s, capacity, capacity_source, overrun=True)
    return Horizon(min(ceiling_s, max(floor_s, total_lag / spare)), capacity, capacity_source)


def measured_capacity(
    live: Live,
    lag_of: Mapping[tuple[str, int], int | None],
    reading_rate_of: Mapping[tuple[str, int], float | None],
) -> float | None:
    """The median over members reading a backlog of their partitions' summed reading rates.

    A member counts only when at least one partition it holds has lag (it had
    something to read, so it read flat out) and every such partition has a
    reading rate (it was seen reading all of them: a partition with lag whose
    offset stood still, or that started moving only at the newest refresh, would
    make the sum too small). A partition without lag adds its rate when it has one.
    """
    figures = []
    for topics in live.values():
        held = [(t, p) for t, ps in topics.items() for p in ps]
        backlog = [tp for tp in held if (lag_of.get(tp) or 0) > 0]
        if not backlog or any(reading_rate_of.get(tp) is None for tp in backlog):
            continue
        total = total_rate(reading_rate_of.get(tp) for tp in held)
        if total > 0:
            figures.append(total)
    return median(figures) if figures else None


def drain_weights(
    lags: Mapping[str, Sequence[int]],
    produce_rate_of: Mapping[tuple[str, int], float | None],
    horizon_s: float,
) -> tuple[dict[str, list[int]], int]:
    """Each partition's ``lag + rate x horizon`` (rounded), and how many rates were unknown."""
    weights: dict[str, list[int]] = {}
    unknown = 0
    for topic, row in lags.items():
        out = list(row)
        for partition, lag in enumerate(row):
            rate = produce_rate_of.get((topic, partition))
            if rate is None:
                unknown += 1
            else:
                out[partition] = lag + round(rate * horizon_s)
        weights[topic] = out
    return weights, unknown


def total_rate(rates: Iterable[float | None]) -> float:
    return sum(r for r in rates if r is not None)
