"""The one checker every strategy test runs: validity, then determinism under reordering;
and the plain rebalance the strategies' example tables describe."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace

from lagassign.core.model import Assignment, AssignmentResult, Member, Rebalance, make_rebalance
from lagassign.core.strategies import run_strategy
from lagassign.core.validity import check_assignment

#: Member id -> the topics it subscribes to, members in the group's order.
Subscriptions = Mapping[str, tuple[str, ...]]


def subscribed(topics: Subscriptions, partitions: Mapping[str, int]) -> Rebalance:
    """A rebalance of dynamic members subscribing to ``topics``, none owning anything."""
    return make_rebalance([Member(m, t) for m, t in topics.items()], partitions)


#: The rungs of each strategy's edge-case ladder that every strategy answers alike:
#: each member's topics, the partition counts, the answer.
EVERY_STRATEGY_LADDER: dict[str, tuple[Subscriptions, dict[str, int], Assignment]] = {
    "a topic without partitions leaves every member empty": (
        {"C0": ("t0",), "C1": ("t0",)},
        {"t0": 0},
        {"C0": {}, "C1": {}},
    ),
    "one member gets every partition": (
        {"C0": ("t0", "t1")},
        {"t0": 3, "t1": 2},
        {"C0": {"t0": [0, 1, 2], "t1": [0, 1]}},
    ),
}


def reordered(rebalance: Rebalance, seed: int) -> Rebalance:
    """The same rebalance with members, their topics and the topic maps shuffled."""
    rng = random.Random(seed)
    members = [
        replace(m, topics=tuple(rng.sample(m.topics, len(m.topics)))) for m in rebalance.members
    ]
    rng.shuffle(members)
    topics = list(rebalance.partitions)
    rng.shuffle(topics)
    return make_rebalance(
        members,
        {t: rebalance.partitions[t] for t in topics},
        {t: rebalance.lags[t] for t in topics},
        {t: rebalance.partition_racks[t] for t in topics if t in rebalance.partition_racks},
        protocol=rebalance.protocol,
    )


def assign_checked(strategy: str, rebalance: Rebalance, reorderings: int = 2) -> AssignmentResult:
    """Run ``strategy``; fail unless the answer is valid and the same for reordered input."""
    result = run_strategy(strategy, rebalance)
    check_assignment(rebalance, result)
    for seed in range(reorderings):
        again = run_strategy(strategy, reordered(rebalance, seed))
        assert again == result, f"{strategy} answers differently when the input is reordered"
    return result
