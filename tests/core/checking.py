"""The one checker every strategy test runs: validity, then determinism under reordering."""

from __future__ import annotations

import random
from dataclasses import replace

from lagassign.core.model import AssignmentResult, Rebalance, make_rebalance
from lagassign.core.strategies import run_strategy
from lagassign.core.validity import check_assignment


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
