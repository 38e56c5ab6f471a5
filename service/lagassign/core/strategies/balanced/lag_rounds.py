"""Dealing partitions in rounds: the largest lags go to the least-loaded members.

Each topic's unplaced partitions, largest lag first, are cut into rounds: round
k holds one partition for every subscriber that still has more than k open
slots of the topic (its count target minus what it kept). In a fresh group
that is P // C full rounds of C partitions and a last round of the P % C
smallest partitions for the members with an extra.

Rounds of all topics are then dealt together, the round with the largest
leading lag first (equal leads by topic, then round number). Inside a round,
the largest partition goes to the member with the least lag so far (equal lags
by member number), the second largest to the next one, and so on. A round
whose leading lag is zero is dealt without sorting.

This is longest-processing-time-first under the count targets: it costs one
sort per round, so a million partitions in 500 topics of 2,000 members take
500 sorts of 2,000 members. Its result then goes to the local moves.
"""

from __future__ import annotations

from lagassign.core.strategies.balanced.placement import Placement


def deal_rounds(
    placement: Placement, unplaced: list[list[int]], open_slots: list[dict[int, int]]
) -> None:
    """Give every partition in ``unplaced`` (per topic, largest lag first).

    ``open_slots[t]`` maps each member to the partitions of topic ``t`` it
    still takes; the open slots of a topic add up to its unplaced partitions.
    """
    lags = placement.index.lags
    rounds: list[tuple[int, int, int, int]] = []  # (-leading lag, topic, round, start)
    levels: list[list[list[int]]] = []  # per topic, per round: its members by number
    for t, parts in enumerate(unplaced):
        by_round: list[list[int]] = []
        if parts:
            slots = open_slots[t]
            deepest = max(slots.values())
            ends = set(slots.values())
            members = sorted(m for m, n in slots.items() if n > 0)
            for k in range(deepest):
                if k in ends and k:
                    members = [m for m in members if slots[m] > k]
                by_round.append(members)  # rounds of equal members share one list
            if sum(len(r) for r in by_round) != len(parts):
                raise AssertionError("open slots do not match the unplaced partitions")
            start = 0
            for k, round_members in enumerate(by_round):
                rounds.append((-lags[parts[start]], t, k, start))
                start += len(round_members)
        levels.append(by_round)
    rounds.sort()
    owner, held, load = placement.owner, placement.held, placement.load
    for neg_lead, t, k, start in rounds:
        members = levels[t][k]
        parts = unplaced[t][start : start + len(members)]
        if neg_lead:
            members = sorted(members, key=load.__getitem__)
        for m, x in zip(members, parts, strict=True):
            owner[x] = m
            held[m].append(x)
            load[m] += lags[x]
