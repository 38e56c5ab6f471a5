"""The catch-up benchmark's scenarios and the lower bound on their catch-up time.

A scenario is a backlog (records behind per partition), a group (members, each
draining at most ``rate`` records per second), and optional steady production,
itself skewed across partitions, that may move its hot partitions half-way.
Every scenario is built from a seed: the same seed, the same numbers.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

Partition = tuple[str, int]


@dataclass(frozen=True)
class Production:
    """Records per second written to each partition from 0 on its clock (when the group
    has formed); ``rates`` before ``switch_s`` and ``after`` from then on.

    With ``lead_s``, 0 on its clock is instead ``lead_s`` seconds before the members
    start: the group's first rebalance happens while production is already under way
    (and the sidecar has seen it)."""

    rates: Mapping[Partition, float]
    switch_s: float | None = None
    after: Mapping[Partition, float] = field(default_factory=dict)
    lead_s: float = 0.0

    def rate(self, partition: Partition, at_s: float) -> float:
        if self.switch_s is not None and at_s >= self.switch_s:
            return self.after.get(partition, 0.0)
        return self.rates.get(partition, 0.0)

    def produced(self, partition: Partition, start_s: float, end_s: float) -> float:
        """Records written to ``partition`` between ``start_s`` and ``end_s`` (none before 0)."""
        start_s = max(0.0, start_s)
        if end_s <= start_s:
            return 0.0
        if self.switch_s is None or end_s <= self.switch_s:
            return self.rates.get(partition, 0.0) * (end_s - start_s)
        if start_s >= self.switch_s:
            return self.after.get(partition, 0.0) * (end_s - start_s)
        return self.rates.get(partition, 0.0) * (self.switch_s - start_s) + self.after.get(
            partition, 0.0
        ) * (end_s - self.switch_s)

    def total_rate(self) -> float:
        return max(sum(self.rates.values()), sum(self.after.values()))


@dataclass(frozen=True)
class Scenario:
    """One backlog, one group size and rate, and the production while it drains."""

    name: str
    #: Records behind on every partition of every topic (0 where the group is caught up).
    backlog: Mapping[Partition, int]
    members: int
    rate: float
    production: Production | None = None
    description: str = ""
    #: A scenario with no backlog to speak of is *held* this long after the first
    #: record instead of drained: its line says whether the group's lag stayed bounded.
    hold_s: float | None = None
    #: With production leading the members: the group's offsets are committed again
    #: once the lead ends, so the group starts with ``backlog`` only (it had kept up).
    caught_up_at_start: bool = False

    @property
    def topics(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for t, _ in self.backlog))

    @property
    def partitions(self) -> int:
        """Partitions a topic (every topic has as many)."""
        return 1 + max(p for _, p in self.backlog)

    @property
    def total_backlog(self) -> int:
        return sum(self.backlog.values())


def lower_bound_s(
    backlog: Mapping[Partition, int | float],
    members: int,
    rate: float,
    production: Production | None = None,
    since_s: float = 0.0,
) -> float:
    """The least time any assignment needs to drain ``backlog``.

    ``max(total / (members x rate), largest partition / rate)`` without production.
    With production (``since_s``: when the backlog was read, on the production's
    clock) it is the least ``T`` with ``total + produced(T) <= members x rate x T``
    and, for every partition, ``backlog + produced(T) <= rate x T``: one member
    drains at most ``rate`` records a second, and a partition is read by one member.
    ``inf`` when production outruns the group.
    """
    if members < 1 or rate <= 0:
        raise ValueError("members must be >= 1 and rate > 0")
    total = float(sum(backlog.values()))
    largest = float(max(backlog.values(), default=0))
    if production is None:
        return max(total / (members * rate), largest / rate)
    partitions = set(backlog) | set(production.rates) | set(production.after)

    def feasible(t: float) -> bool:
        produced = {p: production.produced(p, since_s, since_s + t) for p in partitions}
        if total + sum(produced.values()) > members * rate * t:
            return False
        return all(backlog.get(p, 0) + produced[p] <= rate * t for p in partitions)

    high = max(total / (members * rate), largest / rate, 1e-3)
    for _ in range(60):
        if feasible(high):
            break
        high *= 2
    else:
        return float("inf")
    low = 0.0
    for _ in range(60):
        middle = (low + high) / 2
        if feasible(middle):
            high = middle
        else:
            low = middle
    return high


# --- the scenarios ---------------------------------------------------------------------


def hot_partition_per_topic(
    seed: int, *, topics: int = 4, partitions: int = 6, members: int = 4, rate: float = 500
) -> Scenario:
    """One hot partition per topic (partition 0, where key skew lands with range),
    the rest light and a little uneven."""
    rng = random.Random(seed)
    light = 1_000
    backlog: dict[Partition, int] = {}
    for t in range(topics):
        for p in range(partitions):
            backlog[(f"t{t}", p)] = 3 * light if p == 0 else light + rng.randint(-50, 50)
    return Scenario(
        name="hot-per-topic",
        backlog=backlog,
        members=members,
        rate=rate,
        description=f"{topics} topics x {partitions} partitions, partition 0 of each 3x the rest",
    )


def zipf_backlog(seed: int, *, topics: int = 3, partitions: int = 8, members: int = 5) -> Scenario:
    """Backlog by Zipf (s = 1.1) over all partitions of all topics, ranks shuffled."""
    rng = random.Random(seed)
    keys = [(f"t{t}", p) for t in range(topics) for p in range(partitions)]
    rng.shuffle(keys)
    total = 36_000
    weights = [1 / (rank + 1) ** 1.1 for rank in range(len(keys))]
    scale = total / sum(weights)
    backlog = {key: max(1, round(w * scale)) for key, w in zip(keys, weights, strict=True)}
    return Scenario(
        name="zipf",
        backlog=dict(sorted(backlog.items())),
        members=members,
        rate=500,
        description=f"{topics} topics x {partitions} partitions, Zipf(1.1) backlog",
    )


def one_topic_backlog(seed: int, *, topics: int = 4, partitions: int = 6) -> Scenario:
    """The whole backlog on one topic (seeded uneven), the other topics caught up."""
    rng = random.Random(seed)
    backlog: dict[Partition, int] = {}
    for t in range(topics):
        for p in range(partitions):
            backlog[(f"t{t}", p)] = rng.randint(2_500, 6_000) if t == 0 else 0
    return Scenario(
        name="one-topic",
        backlog=backlog,
        members=3,
        rate=500,
        description=f"{topics} topics x {partitions} partitions, backlog on t0 only",
    )


def skewed_production(
    backlog: Scenario, seed: int, *, total_rate: float, switch: bool, lead_s: float = 0.0
) -> Scenario:
    """``backlog`` with steady production, 60% of it on one partition per topic (not
    the hot backlog partition), the rest spread; with ``switch`` the hot production
    partitions move to others half-way through the lower bound; with ``lead_s`` the
    production starts that long before the members (so it is already skewed when the
    group first rebalances)."""
    rng = random.Random(seed)
    per_topic = total_rate / len(backlog.topics)

    def rates(hot: Mapping[str, int]) -> dict[Partition, float]:
        out: dict[Partition, float] = {}
        for t in backlog.topics:
            for p in range(backlog.partitions):
                share = 0.6 if p == hot[t] else 0.4 / (backlog.partitions - 1)
                out[(t, p)] = per_topic * share
        return out

    first = {t: rng.randrange(1, backlog.partitions) for t in backlog.topics}
    later = {
        t: rng.choice([p for p in range(1, backlog.partitions) if p != first[t]])
        for t in backlog.topics
    }
    bound = lower_bound_s(backlog.backlog, backlog.members, backlog.rate)
    production = (
        Production(rates(first), switch_s=bound / 2, after=rates(later), lead_s=lead_s)
        if switch
        else Production(rates(first), lead_s=lead_s)
    )
    suffix = "+moving-production" if switch else "+production"
    how = "hot partitions move half-way" if switch else "steady"
    if lead_s:
        suffix += "-before-rebalance"
        how += f", from {lead_s:.0f} s before the members start"
    return replace(
        backlog,
        name=backlog.name + suffix,
        production=production,
        description=f"{backlog.description}; {total_rate:.0f} records/s produced, skewed, {how}",
    )


def hot_keys(seed: int, *, topics: int = 2, partitions: int = 4, members: int = 4) -> Scenario:
    """No backlog to speak of (100 records a partition: the group had kept up with
    the production the sidecar saw in the ``HOT_KEYS_LEAD_S`` before the members
    start); production skewed onto partition 0 of each topic (300 records/s each,
    30/s elsewhere). Range, and any answer that counts partitions
    alone, may hand one member both partitions 0: 600 records/s against the 500 it
    can read, so its lag grows for ever while the group as a whole has 1,220
    records/s to spare."""
    del seed  # the numbers are fixed: the point is where production lands
    backlog = {(f"t{t}", p): 100 for t in range(topics) for p in range(partitions)}
    rates = {key: (300.0 if key[1] == 0 else 30.0) for key in backlog}
    return Scenario(
        name="hot-keys",
        backlog=backlog,
        members=members,
        rate=500,
        production=Production(rates, lead_s=HOT_KEYS_LEAD_S),
        description=(
            f"{topics} topics x {partitions} partitions, 100 records each; 300 records/s on "
            f"partition 0 of each topic and 30/s elsewhere, from {HOT_KEYS_LEAD_S:.0f} s "
            "before the members start"
        ),
        hold_s=HOT_KEYS_HOLD_S,
        caught_up_at_start=True,
    )


QUICK = "hot-per-topic"
#: How long ``hot-keys`` is held after the first record, and how long its production
#: runs before the members start (a few refreshes: the sidecar sees the rates).
HOT_KEYS_HOLD_S = 60.0
HOT_KEYS_LEAD_S = 8.0
# How long production runs before the members of a "+production-before-rebalance"
# scenario start: enough sidecar refreshes (1 s apart in the benchmark) for a produce rate.
PRODUCTION_LEAD_S = 20.0


def all_scenarios(seed: int) -> list[Scenario]:
    hot = hot_partition_per_topic(seed)
    zipf = zipf_backlog(seed)
    return [
        hot,
        zipf,
        one_topic_backlog(seed),
        skewed_production(hot, seed, total_rate=600, switch=False),
        skewed_production(zipf, seed, total_rate=600, switch=False),
        skewed_production(hot, seed, total_rate=600, switch=True),
        skewed_production(hot, seed, total_rate=600, switch=False, lead_s=PRODUCTION_LEAD_S),
        hot_keys(seed),
    ]
