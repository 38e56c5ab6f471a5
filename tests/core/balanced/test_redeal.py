"""Re-dealing the heaviest partitions: the docstring's example."""

from __future__ import annotations

import random
from dataclasses import replace

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced import assign
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.quotas import count_targets
from lagassign.core.strategies.balanced.redeal import redeal_heaviest


def test_heavy_pairs_of_a_topic_read_from_earliest_are_dealt_again() -> None:
    n = 20
    rng = random.Random(1)
    lags = {
        "new": [5_000_000 + 25_000 * (i % n) for i in range(2 * n)],
        "old": [rng.randrange(10_000) for _ in range(8 * n)],
    }
    members = [
        Member(
            f"m{i:02d}",
            ("new", "old"),
            owned={"new": (i, i + n), "old": tuple(range(i, 8 * n, n))},
            generation=1,
        )
        for i in range(n)
    ]
    rebalance = make_rebalance(members, {"new": 2 * n, "old": 8 * n}, lags)
    index = GroupIndex(rebalance)
    previous = index.previous_owner_array().tolist()
    owned = Placement.of_owners(index, previous, previous)
    fresh = assign(
        make_rebalance([replace(m, owned={}) for m in members], rebalance.partitions, lags)
    )
    fresh_top = max(
        sum(lags[t][p] for t, ps in topics.items() for p in ps) for topics in fresh.values()
    )
    assert (owned.max_load(), fresh_top) == (11_000_219, 10_517_188)
    redealt = redeal_heaviest(owned, count_targets(index, []).base, 1.01 * fresh_top)
    assert redealt is not None
    assert redealt.max_load() == 10_620_808
    assert redealt.moved() == 16
    assert [len(held) for held in redealt.held] == [len(held) for held in owned.held]
