"""Seeded consumer-group scenarios for the assignment benchmark.

A :class:`Scenario` names a group shape (members, topics, partitions per topic,
identical or different subscriptions) and a lag distribution; :func:`build`
turns it into a :class:`Rebalance`, the same one for the same seed on every
machine. The follow-up rebalances of the stickiness measures are built from a
previous answer: :func:`owning` (members own what they were given),
:func:`perturbed` (every lag moved by up to 10%) and :func:`churned` (one
member leaves, a new one with the same subscription joins).

Lag distributions:

- ``uniform``: 0 to 100,000;
- ``zipf``: 10,000,000 / rank ** 1.1 over a shuffled ranking of the partitions;
- ``lognormal``: e ** N(8, 2), a long right tail;
- ``hot``: 0 to 1,000, and one partition with about four members' worth of lag;
- ``zero``: no lag anywhere (count balance only);
- ``earliest``: 0 to 10,000, except the last topic, just subscribed and read
  from the earliest offset: 5,000,000 on every partition.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from lagassign.core.model import Assignment, Member, Rebalance, make_rebalance

LagDistribution = Literal["uniform", "zipf", "lognormal", "hot", "zero", "earliest"]
Subscriptions = Literal["identical", "different"]


@dataclass(frozen=True)
class Scenario:
    name: str
    members: int
    topics: int
    partitions_per_topic: int
    lag: LagDistribution
    subscriptions: Subscriptions = "identical"
    seed: int = 1

    @property
    def partitions(self) -> int:
        return self.topics * self.partitions_per_topic


def build(scenario: Scenario) -> Rebalance:
    """The scenario's rebalance: nobody owns anything yet."""
    rng = random.Random(f"{scenario.name}/{scenario.seed}")
    topics = [f"topic-{t:03d}" for t in range(scenario.topics)]
    counts = dict.fromkeys(topics, scenario.partitions_per_topic)
    lags = _lags(rng, scenario, topics)
    members = []
    for i in range(scenario.members):
        subscribed = topics
        if scenario.subscriptions == "different":
            subscribed = [t for t in topics if rng.random() < 0.6] or [rng.choice(topics)]
        members.append(Member(member_id=f"consumer-{i:04d}", topics=tuple(subscribed)))
    return make_rebalance(members, counts, lags)


def _lags(rng: random.Random, scenario: Scenario, topics: list[str]) -> dict[str, list[int]]:
    per_topic = scenario.partitions_per_topic
    total = scenario.partitions
    kind = scenario.lag
    if kind == "zipf":
        ranks = list(range(1, total + 1))
        rng.shuffle(ranks)
        flat = [int(10_000_000 / r**1.1) for r in ranks]
    elif kind == "lognormal":
        flat = [int(math.exp(rng.gauss(8, 2))) for _ in range(total)]
    elif kind == "zero":
        flat = [0] * total
    elif kind == "hot":
        flat = [rng.randrange(1_001) for _ in range(total)]
        flat[rng.randrange(total)] = 4 * max(1, sum(flat) // scenario.members)
    elif kind == "earliest":
        flat = [rng.randrange(10_001) for _ in range(total - per_topic)]
        flat += [5_000_000] * per_topic
    else:
        flat = [rng.randrange(100_001) for _ in range(total)]
    return {t: flat[i * per_topic : (i + 1) * per_topic] for i, t in enumerate(topics)}


def owning(rebalance: Rebalance, assignment: Assignment, generation: int = 1) -> Rebalance:
    """The same rebalance, each member owning what ``assignment`` gave it."""
    members = [
        replace(
            m,
            owned={t: tuple(ps) for t, ps in assignment.get(m.member_id, {}).items() if ps},
            generation=generation,
        )
        for m in rebalance.members
    ]
    return _remake(rebalance, members, rebalance.lags)


def perturbed(rebalance: Rebalance, seed: int, spread: float = 0.10) -> Rebalance:
    """The same rebalance, every lag times a seeded factor in [1 - spread, 1 + spread]."""
    rng = random.Random(seed)
    lags = {
        t: [round(v * rng.uniform(1 - spread, 1 + spread)) for v in values]
        for t, values in rebalance.lags.items()
    }
    return _remake(rebalance, list(rebalance.members), lags)


def churned(rebalance: Rebalance, seed: int) -> Rebalance:
    """One member leaves (its partitions become unowned) and a new one joins in its place."""
    rng = random.Random(seed)
    members = list(rebalance.members)
    gone = members.pop(rng.randrange(len(members)))
    members.append(Member(member_id="consumer-new", topics=gone.topics))
    return _remake(rebalance, members, rebalance.lags)


def _remake(
    rebalance: Rebalance, members: list[Member], lags: Mapping[str, Sequence[int]]
) -> Rebalance:
    return make_rebalance(
        members, rebalance.partitions, lags, rebalance.partition_racks, rebalance.protocol
    )
