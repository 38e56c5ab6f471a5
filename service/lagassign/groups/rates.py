"""The live rates and time lag of one group for ``/groups``: per partition, per member, in all.

Built on the event loop from the group's snapshot and the rate window
(:mod:`lagassign.rates.window`), then read as plain values by the report and
the page. Per member: the sum of its partitions' produce and consume rates,
its worst time lag, and its summed record lag over the window (the line the
page draws). Without a rate window every figure is ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from lagassign.core.model import Assignment
from lagassign.lagview.snapshot import GroupSnapshot
from lagassign.rates.totals import RatesTotal, total
from lagassign.rates.window import UNKNOWN_RATES, PartitionRates, RateWindow

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

    def of_partition(self, topic: str, partition: int) -> PartitionRates:
        return self.partitions.get((topic, partition), UNKNOWN_RATES)

    def of_member(self, member_id: str) -> RatesTotal:
        return self.members.get(member_id, NO_TOTAL)


NO_RATES = GroupRates(window_s=None)


def group_rates(snapshot: GroupSnapshot, window: RateWindow, live: Assignment) -> GroupRates:
    """The figures of ``snapshot``'s partitions and of each live member's share of them."""
    figures = window.rates_of(snapshot)
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
    )
