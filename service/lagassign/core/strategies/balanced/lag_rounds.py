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
whose leading lag is zero is dealt without sorting. The rounds are laid out
here; the dealing itself, one sort per round, is compiled
(``lagassign._native.deal_rounds``).

This is longest-processing-time-first under the count targets: it costs one
sort per round, so a million partitions in 500 topics of 2,000 members take
500 sorts of 2,000 members. Its result then goes to the local moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from lagassign._native import deal_rounds as deal_in_rounds
from lagassign.core.strategies.balanced.placement import Placement

# A topic's open slots: the members that may take its partitions, ascending, and how many
# each still takes (0 or more).
OpenSlots = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]


def open_slots_of(counts: Mapping[int, int]) -> OpenSlots:
    """The open slots of a topic given as member -> partitions it still takes."""
    members = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
    takes = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
    order = members.argsort(kind="stable")
    return members[order], takes[order]


def deal_rounds(
    placement: Placement,
    unplaced: Sequence[Sequence[int] | npt.NDArray[np.int64]],
    open_slots: Sequence[OpenSlots],
) -> None:
    """Give every partition in ``unplaced`` (per topic, largest lag first).

    ``open_slots[t]`` says which members still take how many partitions of
    topic ``t``; the open slots of a topic add up to its unplaced partitions.
    Member lags and the rounds are NumPy arrays, one sort per round.
    """
    lags = placement.index.lag_array
    rounds: list[tuple[int, int, int, int]] = []  # (-leading lag, topic, round, start)
    levels: list[list[npt.NDArray[np.int64]]] = []  # per topic, per round: its members by number
    for t, parts in enumerate(unplaced):
        by_round: list[npt.NDArray[np.int64]] = []
        if len(parts):
            open_members, counts = open_slots[t]
            low, high = int(counts.min()), int(counts.max())
            # every subscriber taking as many (a fresh group) needs no np.unique
            ends = {low} if low == high else set(np.unique(counts).tolist())
            members = open_members[counts > 0]
            for k in range(max(ends)):
                if k in ends and k:
                    members = open_members[counts > k]
                by_round.append(members)  # rounds of equal members share one array
            if sum(len(r) for r in by_round) != len(parts):
                raise AssertionError("open slots do not match the unplaced partitions")
            start = 0
            for k, round_members in enumerate(by_round):
                rounds.append((-int(lags[parts[start]]), t, k, start))
                start += len(round_members)
        levels.append(by_round)
    rounds.sort()
    if not rounds:
        return
    flat = [np.asarray(parts, dtype=np.int64) for parts in unplaced]
    dealt = [levels[t][k] for _, t, k, _ in rounds]
    given = np.concatenate(
        [flat[t][at : at + len(m)] for (_, t, _, at), m in zip(rounds, dealt, strict=True)]
    )
    takers = deal_in_rounds(
        lags.astype(np.int64, copy=False),  # Python ints only when the lag sum passes int64
        placement.load,
        np.fromiter(map(len, dealt), dtype=np.int64, count=len(dealt)),
        np.concatenate(dealt),
        given,
        np.fromiter((neg_lead != 0 for neg_lead, _, _, _ in rounds), dtype=np.uint8),
    )
    placement.take(given, takers)
