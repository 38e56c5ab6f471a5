"""Who owned which partition before this rebalance.

Members report their owned partitions in their subscription. After a missed
rebalance two members may claim the same partition; as in Kafka's sticky
assignors, the claim with the higher generation wins (no generation counts as
-1), and a tie between the best claims leaves the partition unowned. A member
never keeps a topic it no longer subscribes to, so its claims there do not count.

The rule is written once, in :func:`flat_owner_numbers`, on one array for all
partitions (a million of them), topics one after the other in the order given;
:func:`owner_numbers` gives the same owners per topic, :func:`previous_owners`
by member id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

from lagassign.core.model import Rebalance
from lagassign.core.owned import SENT_OWNED, SentOwned

TopicPartition = tuple[str, int]


def flat_owner_numbers(rebalance: Rebalance, topics: Sequence[str]) -> npt.NDArray[np.int64]:
    """Per partition of ``topics`` (one after the other), the position of its rightful owner.

    The position is in ``rebalance.members``; -1 where nobody rightfully owns it.
    ``topics`` lists every topic of ``rebalance.partitions``. Computed once per
    rebalance and order of topics; the array is read-only.
    """
    key = ("flat_owner_numbers", tuple(topics))
    known = rebalance.derived.get(key)
    if isinstance(known, np.ndarray):
        return known
    owners = _flat_owner_numbers(rebalance, topics)
    owners.setflags(write=False)
    rebalance.derived[key] = owners
    return owners


def _flat_owner_numbers(rebalance: Rebalance, topics: Sequence[str]) -> npt.NDArray[np.int64]:
    start: dict[str, int] = {}
    total = 0
    for topic in topics:
        start[topic] = total
        total += rebalance.partitions[topic]
    owners = np.full(total, -1, dtype=np.int64)
    claims = _claims(rebalance, start)
    if claims is None:
        return owners
    flat, claimant, _ = claims
    owners[flat] = claimant
    if np.count_nonzero(owners >= 0) == len(flat):
        return owners  # the usual case: no two members claim the same partition
    return _resolve_contested(rebalance, claims, total)


def _claims(
    rebalance: Rebalance, start: dict[str, int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]] | None:
    """Every counted claim: (flat partition, member position, generation), in member order.

    Read in bulk over all members (a million claims in a large group): one pass
    for the topics, one for the sizes, one for the partition ids.
    """
    sent = rebalance.derived.get(SENT_OWNED)
    if isinstance(sent, SentOwned) and list(start) == list(rebalance.partitions):
        return _sent_claims(rebalance, list(start.values()), sent)
    maps: list[Mapping[str, Sequence[int]]] = []
    subscriptions: dict[int, frozenset[str]] = {}  # members mostly share one topics tuple
    for member in rebalance.members:
        owned = member.owned
        if owned:
            subscribed = subscriptions.get(id(member.topics))
            if subscribed is None:
                subscribed = subscriptions[id(member.topics)] = frozenset(member.topics)
            if not owned.keys() <= subscribed:
                owned = {t: ps for t, ps in owned.items() if t in subscribed}
        maps.append(owned)
    entries = np.fromiter(map(len, maps), dtype=np.int64, count=len(maps))
    total = int(entries.sum())
    if total == 0:
        return None
    values = list(chain.from_iterable(m.values() for m in maps))
    sizes = np.fromiter(map(len, values), dtype=np.int64, count=total)
    firsts = np.fromiter(
        map(start.__getitem__, chain.from_iterable(maps)), dtype=np.int64, count=total
    )
    parts = np.fromiter(chain.from_iterable(values), dtype=np.int64, count=int(sizes.sum()))
    flat = np.repeat(firsts, sizes) + parts
    per_member = np.bincount(
        np.repeat(np.arange(len(maps)), entries), weights=sizes, minlength=len(maps)
    ).astype(np.int64)
    claimant = np.repeat(np.arange(len(maps), dtype=np.int64), per_member)
    generations = np.array(
        [-1 if m.generation is None else m.generation for m in rebalance.members], dtype=np.int64
    )
    return flat, claimant, np.repeat(generations, per_member)


def _sent_claims(
    rebalance: Rebalance, firsts: list[int], sent: SentOwned
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """:func:`_claims` read off the arrays make_rebalance kept (topics in canonical order).

    The claims come in the caller's member order rather than the rebalance's: the rule
    does not depend on their order.
    """
    arrays = sent.arrays
    claimant_of_entry = np.repeat(sent.position, arrays.entries)
    # only a subscribed topic's claims count: one row of topics per distinct subscription
    number = {topic: t for t, topic in enumerate(rebalance.partitions)}
    rows: dict[int, int] = {}
    masks: list[npt.NDArray[np.bool_]] = []
    subscription_of = np.empty(len(rebalance.members), dtype=np.int64)
    for position, member in enumerate(rebalance.members):
        row = rows.get(id(member.topics))
        if row is None:
            row = rows[id(member.topics)] = len(masks)
            mask = np.zeros(len(number), dtype=bool)
            mask[[number[t] for t in member.topics]] = True
            masks.append(mask)
        subscription_of[position] = row
    counted = np.stack(masks)[subscription_of[claimant_of_entry], arrays.topic_no]
    keep = np.repeat(counted, arrays.sizes)
    flat = np.repeat(np.array(firsts, dtype=np.int64)[arrays.topic_no], arrays.sizes)
    generations = np.array(
        [-1 if m.generation is None else m.generation for m in rebalance.members], dtype=np.int64
    )
    claimant = np.repeat(claimant_of_entry, arrays.sizes)[keep]
    return (flat + arrays.parts)[keep], claimant, generations[claimant]


def _resolve_contested(
    rebalance: Rebalance,
    claims: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]],
    total: int,
) -> npt.NDArray[np.int64]:
    """The highest generation's claim wins; a tie between the best claims leaves it unowned."""
    flat, claimant, generation = claims
    best = np.full(total, np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, flat, generation)
    top = generation == best[flat]
    winners = np.bincount(flat[top], minlength=total)
    owners = np.full(total, -1, dtype=np.int64)
    single = top & (winners[flat] == 1)
    owners[flat[single]] = claimant[single]
    return owners


def owner_numbers(rebalance: Rebalance) -> dict[str, list[int]]:
    """Topic -> per partition, the position in ``rebalance.members`` of its rightful owner, or -1.

    Every topic of ``rebalance.partitions`` is listed.
    """
    topics = list(rebalance.partitions)
    flat = flat_owner_numbers(rebalance, topics).tolist()
    out: dict[str, list[int]] = {}
    first = 0
    for topic in topics:
        count = rebalance.partitions[topic]
        out[topic] = flat[first : first + count]
        first += count
    return out


def previous_owners(rebalance: Rebalance) -> dict[TopicPartition, str]:
    """(topic, partition) -> member id of its rightful previous owner."""
    if not any(m.owned for m in rebalance.members):
        return {}
    ids = [m.member_id for m in rebalance.members]
    return {
        (topic, p): ids[m]
        for topic, row in owner_numbers(rebalance).items()
        for p, m in enumerate(row)
        if m >= 0
    }
