"""The ownership rule against a slow reference, with contested claims."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.model import Member, Rebalance, make_rebalance
from lagassign.core.owned import SENT_OWNED
from lagassign.core.ownership import owner_numbers, previous_owners


@st.composite
def contested(draw: st.DrawFn) -> Rebalance:
    """Up to five members claiming overlapping partitions, of topics they may have left."""
    partitions = {"t0": draw(st.integers(1, 6)), "t1": draw(st.integers(1, 6))}
    members = []
    for i in range(draw(st.integers(1, 5))):
        topics = draw(st.lists(st.sampled_from(sorted(partitions)), min_size=1, unique=True))
        owned = {
            t: tuple(draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)))
            for t, n in partitions.items()
        }
        generation = draw(st.none() | st.integers(0, 2))
        members.append(Member(f"m{i}", tuple(topics), owned=owned, generation=generation))
    return make_rebalance(members, partitions)


def reference(rebalance: Rebalance) -> dict[tuple[str, int], str]:
    """The rule as written: the highest generation's claim on a subscribed topic; a tie, none."""
    claims: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for member in rebalance.members:
        for topic, parts in member.owned.items():
            if topic in member.topics:
                for p in parts:
                    generation = -1 if member.generation is None else member.generation
                    claims.setdefault((topic, p), []).append((generation, member.member_id))
    owners = {}
    for key, made in claims.items():
        best = max(g for g, _ in made)
        winners = [m for g, m in made if g == best]
        if len(winners) == 1:
            owners[key] = winners[0]
    return owners


@settings(max_examples=300)
@given(contested())
def test_owners_follow_the_rule(rebalance: Rebalance) -> None:
    assert previous_owners(rebalance) == reference(rebalance)
    ids = [m.member_id for m in rebalance.members]
    numbers = owner_numbers(rebalance)
    assert {
        (t, p): ids[m] for t, row in numbers.items() for p, m in enumerate(row) if m >= 0
    } == reference(rebalance)


@st.composite
def sent_in_order(draw: st.DrawFn) -> Rebalance:
    """Claims as leaders send them (topics by name, ids ascending), members listed in any
    order, some claiming topics they no longer subscribe to; every topic subscribed."""
    partitions = {"t0": draw(st.integers(1, 5)), "t1": draw(st.integers(1, 5))}
    count = draw(st.integers(1, 5))
    members = []
    for i in draw(st.permutations(range(count))):
        topics = (
            ["t0", "t1"]
            if i == 0
            else draw(st.lists(st.sampled_from(["t0", "t1"]), min_size=1, unique=True))
        )
        owned = {}
        for t, n in partitions.items():
            ids = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
            if draw(st.booleans()):
                owned[t] = sorted(ids)
        generation = draw(st.none() | st.integers(0, 2))
        members.append(Member(f"m{i}", tuple(topics), owned=owned, generation=generation))
    return make_rebalance(members, partitions)


@settings(max_examples=300)
@given(sent_in_order())
def test_claims_read_off_the_sent_arrays_follow_the_rule(rebalance: Rebalance) -> None:
    if any(m.owned for m in rebalance.members):
        assert SENT_OWNED in rebalance.derived
    assert previous_owners(rebalance) == reference(rebalance)
