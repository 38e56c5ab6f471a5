"""The live rates and time lag of one group for ``/groups``: per partition, per member, in all.

Built on the event loop from the group's snapshot and the rate window
(:mod:`lagassign.rates.window`), then read as plain values by the report and
the page. Per member: the sum of its partitions' produce and consume rates,
its worst time lag, and its summed record lag over the window (the line the
page draws). Without a rate window every figure is ``None``.

A partition behind by more than the window reaches back (a stalled consumer,
or any backlog just after the sidecar started) has no interpolated time lag; it
gets the window's span instead, a lower bound
(:func:`lagassign.lagview.time_lag.window_floor_s`), listed in ``at_least``, so
the worst time lag of a member and of the group counts every partition.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from lagassign.core.model import Assignment
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.lagview.time_lag import window_floor_s
from lagassign.rates.partition_window import UNKNOWN_RATES, PartitionRates
from lagassign.rates.totals import RatesTotal, total
from lagassign.rates.window import RateWindow

TopicPartition = tuple[str, int]

NO_TOTAL = RatesTotal(None, None, None, 0)


@dataclass(frozen=True, slots=True)
class GroupRates:
    window_s: float | None
    partitions: Mapping[TopicPartition, PartitionRates] = field(default_factory=dict)
    members: Mapping[str, RatesTotal] = field(default_factory=dict)
    group: RatesTotal = NO_TOTAL
    #: Member id -> (time ms, summed record lag) over the window, oldest first.
    lines: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: The partitions whose ``lag_seconds`` is a lower bound ("at least"), not interpolated.
    at_least: frozenset[TopicPartition] = frozenset()

    def of_partition(self, topic: str, partition: int) -> PartitionRates:
        return self.partitions.get((topic, partition), UNKNOWN_RATES)

    def of_member(self, member_id: str) -> RatesTotal:
        return self.members.get(member_id, NO_TOTAL)

    def is_lower_bound(self, topic: str, partition: int) -> bool:
        """Whether the partition's time lag is "at least" (past the rate window)."""
        return (topic, partition) in self.at_least

    def worst_is_lower_bound(self, partitions: Iterable[TopicPartition] | None = None) -> bool:
        """Whether the worst time lag of ``partitions`` (default: all) is a lower bound."""
        keys = list(self.partitions) if partitions is None else list(partitions)
        known = [(self.of_partition(*k).lag_seconds, k) for k in keys]
        worst = max((s for s, _ in known if s is not None), default=None)
        return any(s == worst and k in self.at_least for s, k in known if s is not None)


NO_RATES = GroupRates(window_s=None)


def group_rates(snapshot: GroupSnapshot, window: RateWindow, live: Assignment) -> GroupRates:
    """The figures of ``snapshot``'s partitions and of each live member's share of them."""
    with window.lock:
        figures, at_least = with_floors(snapshot, window)
        members: dict[str, RatesTotal] = {}
        lines: dict[str, tuple[tuple[int, int], ...]] = {}
        for member_id, topics in live.items():
            held = [(t, p) for t, ps in topics.items() for p in ps]
            members[member_id] = total(figures.get(tp, UNKNOWN_RATES) for tp in held)
            lines[member_id] = tuple(window.lag_line(snapshot.group_id, held))
    return GroupRates(
        window_s=window.window_s,
        partitions=figures,
        members=members,
        group=total(figures.values()),
        lines=lines,
        at_least=at_least,
    )


def with_floors(
    snapshot: GroupSnapshot, window: RateWindow
) -> tuple[dict[TopicPartition, PartitionRates], frozenset[TopicPartition]]:
    """The window's figures, a behind partition's unknown time lag replaced by its floor."""
    figures = dict(window.rates_of(snapshot))
    floored: set[TopicPartition] = set()
    for p in snapshot.partitions:
        key = (p.topic, p.partition)
        f = figures.get(key)
        if f is None or f.lag_seconds is not None:
            continue
        if p.lag is None or p.lag <= 0 or p.current_offset is None:
            continue
        points = window.partition_window(snapshot.group_id, p.topic, p.partition)
        floor = None if points is None else window_floor_s(points.times[points.start :])
        if floor is not None:
            figures[key] = PartitionRates(floor, f.produce_rate, f.consume_rate)
            floored.add(key)
    return figures, frozenset(floored)
