"""Sticky: the docstring's join, the ladder, stickiness, balance, and Kafka's cooperative-sticky."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given

from lagassign.core.model import Assignment, AssignmentResult, Member, Rebalance, make_rebalance
from lagassign.core.ownership import previous_owners
from lagassign.core.stats import moved_partitions
from lagassign.core.validity import check_assignment
from tests.core.checking import assign_checked
from tests.kafka_reference import request_of, run_kafka_assignors
from tests.strategies import rebalances


def answer(rebalance: Rebalance) -> Assignment:
    return assign_checked("sticky", rebalance).assignment


def counts(assignment: Assignment) -> dict[str, int]:
    return {m: sum(map(len, topics.values())) for m, topics in assignment.items()}


def spread(assignment: Assignment) -> int:
    got = counts(assignment).values()
    return max(got) - min(got)


def moved(rebalance: Rebalance, assignment: Assignment) -> int:
    return moved_partitions(rebalance, AssignmentResult(assignment))


def next_round(
    rebalance: Rebalance,
    assignment: Assignment,
    members: list[Member] | None = None,
    generation: int = 1,
) -> Rebalance:
    """The next rebalance: every member owns what ``assignment`` gave it."""
    given_members = list(rebalance.members) if members is None else members
    return make_rebalance(
        [
            Member(
                m.member_id,
                m.topics,
                m.group_instance_id,
                owned={t: tuple(ps) for t, ps in assignment.get(m.member_id, {}).items()},
                generation=generation,
            )
            for m in given_members
        ],
        rebalance.partitions,
        rebalance.lags,
    )


def fewest_moves_with_identical_subscriptions(rebalance: Rebalance) -> int:
    """Owned partitions minus the most that members can keep within their quotas."""
    owned = Counter(previous_owners(rebalance).values())
    held = [owned[m.member_id] for m in rebalance.members]
    low, extra = divmod(rebalance.partition_count(), len(held))
    keep = sum(min(h, low) for h in held) + min(extra, sum(h > low for h in held))
    return sum(held) - keep


def best_sum_of_squares(rebalance: Rebalance) -> int:
    """The most balanced counts any valid assignment reaches, found by trying them all."""
    per_topic = []
    for topic, members in rebalance.subscribers().items():
        n = rebalance.partitions[topic]
        splits = [s for s in itertools.product(range(n + 1), repeat=len(members)) if sum(s) == n]
        per_topic.append([dict(zip(members, s, strict=True)) for s in splits])
    best = None
    for choice in itertools.product(*per_topic):
        total: Counter[str] = Counter()
        for split in choice:
            total.update(split)
        score = sum(c * c for c in total.values())
        best = score if best is None else min(best, score)
    return best or 0


def test_a_joining_member_takes_only_what_balance_needs() -> None:
    rebalance = make_rebalance(
        [
            Member("C0", ("t0",), owned={"t0": (0, 1, 2)}, generation=1),
            Member("C1", ("t0",), owned={"t0": (3, 4, 5)}, generation=1),
            Member("C2", ("t0",)),
        ],
        {"t0": 6},
    )
    assignment = answer(rebalance)
    assert assignment == {"C0": {"t0": [0, 1]}, "C1": {"t0": [3, 4]}, "C2": {"t0": [2, 5]}}
    assert moved(rebalance, assignment) == 2


def test_a_topic_without_partitions_leaves_every_member_empty() -> None:
    rebalance = make_rebalance([Member("C0", ("t0",)), Member("C1", ("t0",))], {"t0": 0})
    assert answer(rebalance) == {"C0": {}, "C1": {}}


def test_one_member_gets_every_partition_whoever_owned_them() -> None:
    rebalance = make_rebalance(
        [Member("C0", ("t0", "t1"), owned={"t0": (1,)}, generation=3)], {"t0": 2, "t1": 1}
    )
    assert answer(rebalance) == {"C0": {"t0": [0, 1], "t1": [0]}}


def test_more_members_than_partitions_keeps_each_owner_on_its_partition() -> None:
    rebalance = make_rebalance(
        [
            Member("C0", ("t0",)),
            Member("C1", ("t0",)),
            Member("C2", ("t0",), owned={"t0": (1,)}, generation=2),
            Member("C3", ("t0",), owned={"t0": (0,)}, generation=2),
        ],
        {"t0": 2},
    )
    assert answer(rebalance) == {"C0": {}, "C1": {}, "C2": {"t0": [1]}, "C3": {"t0": [0]}}


def test_a_disputed_partition_stays_with_the_higher_generation() -> None:
    rebalance = make_rebalance(
        [
            Member("C0", ("t0",), owned={"t0": (0, 1)}, generation=4),
            Member("C1", ("t0",), owned={"t0": (1,)}, generation=5),
        ],
        {"t0": 2},
    )
    assert answer(rebalance) == {"C0": {"t0": [0]}, "C1": {"t0": [1]}}


def test_an_owner_above_its_quota_keeps_its_lowest_partitions() -> None:
    rebalance = make_rebalance(
        [
            Member("C0", ("a", "b"), owned={"a": (0, 1, 2), "b": (0, 1)}, generation=1),
            Member("C1", ("a", "b")),
        ],
        {"a": 3, "b": 2},
    )
    # quotas 3 and 2; C0 keeps a0, b0, a1 (partition id first, then topic)
    assert answer(rebalance) == {"C0": {"a": [0, 1], "b": [0]}, "C1": {"a": [2], "b": [1]}}


def test_different_subscriptions_move_an_owned_partition_when_balance_needs_it() -> None:
    # C2 leaves; only C1 subscribes to t2, so C1 takes both t2 partitions and hands t1p1 to C0.
    first = {"C0": {"t1": [0]}, "C1": {"t1": [1]}, "C2": {"t2": [0, 1]}}
    before = make_rebalance(
        [Member("C0", ("t1",)), Member("C1", ("t1", "t2")), Member("C2", ("t2",))],
        {"t1": 2, "t2": 2},
    )
    after = next_round(before, first, members=list(before.members[:2]))
    assignment = answer(after)
    assert assignment == {"C0": {"t1": [0, 1]}, "C1": {"t2": [0, 1]}}
    assert moved(after, assignment) == 1


@given(rebalances(with_owned=False))
def test_unchanged_input_moves_nothing(rebalance: Rebalance) -> None:
    first = answer(rebalance)
    again = next_round(rebalance, first)
    assert answer(again) == first
    assert moved(again, first) == 0


@given(rebalances(identical=True, with_owned=False))
def test_when_a_member_leaves_only_its_partitions_move(rebalance: Rebalance) -> None:
    first = answer(rebalance)
    if len(rebalance.members) < 2:
        return
    leaving = rebalance.members[len(rebalance.members) // 2]
    after = next_round(rebalance, first, [m for m in rebalance.members if m != leaving])
    assignment = answer(after)
    assert moved(after, assignment) == 0
    assert spread(assignment) <= 1


@given(rebalances(identical=True, with_owned=False))
def test_when_a_member_joins_only_what_balance_needs_moves(rebalance: Rebalance) -> None:
    first = answer(rebalance)
    joining = Member("zz-new", rebalance.members[0].topics)
    after = next_round(rebalance, first, [*rebalance.members, joining])
    assignment = answer(after)
    assert moved(after, assignment) == fewest_moves_with_identical_subscriptions(after)
    assert spread(assignment) <= 1


@given(rebalances(identical=True))
def test_identical_subscriptions_balance_within_one_and_keep_all_they_can(
    rebalance: Rebalance,
) -> None:
    assignment = answer(rebalance)
    assert spread(assignment) <= 1
    assert moved(rebalance, assignment) == fewest_moves_with_identical_subscriptions(rebalance)


@given(rebalances(max_members=3, max_topics=3, max_partitions=3, identical=False))
def test_different_subscriptions_are_as_balanced_as_they_allow(rebalance: Rebalance) -> None:
    got = counts(answer(rebalance)).values()
    assert sum(c * c for c in got) == best_sum_of_squares(rebalance)


@given(rebalances(identical=False))
def test_different_subscriptions_keep_every_owned_partition_when_already_balanced(
    rebalance: Rebalance,
) -> None:
    first = answer(rebalance)
    assert answer(next_round(rebalance, first, generation=9)) == first


def seeded_group(seed: int, owned: bool) -> Rebalance:
    rng = random.Random(seed)
    topics = [f"topic-{i}" for i in range(rng.randint(1, 4))]
    partitions = {t: rng.randint(0, 12) for t in topics}
    members = [Member(f"consumer-{rng.randrange(10**6):06d}", tuple(topics)) for _ in range(6)]
    rebalance = make_rebalance(members[: rng.randint(1, 6)], partitions)
    if not owned:
        return rebalance
    return next_round(rebalance, assign_checked("range", rebalance).assignment)


@pytest.mark.java
def test_fresh_groups_get_exactly_kafkas_cooperative_sticky_answer() -> None:
    groups = [seeded_group(seed, owned=False) for seed in range(40)]
    kafka = run_kafka_assignors([request_of(g, "cooperative-sticky") for g in groups])
    for group, reference in zip(groups, kafka, strict=True):
        assert answer(group) == reference["assignment"]


def joined(rebalance: Rebalance, *members: Member) -> Rebalance:
    return make_rebalance([*rebalance.members, *members], rebalance.partitions, rebalance.lags)


def left(rebalance: Rebalance, member_id: str) -> Rebalance:
    kept = [m for m in rebalance.members if m.member_id != member_id]
    return make_rebalance(kept, rebalance.partitions, rebalance.lags)


def changed_cases() -> list[Rebalance]:
    """Members join and leave groups that own their partitions, with equal and mixed topics."""
    owned = seeded_group(7, owned=True)
    topics = owned.members[0].topics
    mixed = make_rebalance(
        [
            Member("a", ("t0", "t1", "t2")),
            Member("b", ("t0",)),
            Member("c", ("t1", "t2")),
            Member("d", ("t2",)),
        ],
        {"t0": 7, "t1": 5, "t2": 9},
    )
    mixed = next_round(mixed, assign_checked("roundrobin", mixed).assignment)
    return [
        joined(owned, Member("new-1", topics)),
        joined(owned, Member("new-1", topics), Member("new-2", topics)),
        left(owned, owned.members[0].member_id),
        joined(mixed, Member("e", ("t0", "t2"))),
        left(mixed, "a"),
    ]


@pytest.fixture(scope="module")
def kafka_final() -> list[Assignment]:
    """Kafka's cooperative protocol to the end: moved partitions withheld, then placed."""
    cases = changed_cases()
    first = run_kafka_assignors([request_of(c, "cooperative-sticky") for c in cases])
    second_rounds = [
        next_round(case, answer["assignment"], generation=2)
        for case, answer in zip(cases, first, strict=True)
    ]
    second = run_kafka_assignors([request_of(r, "cooperative-sticky") for r in second_rounds])
    finals: list[Assignment] = [answer["assignment"] for answer in second]
    for rebalance, final in zip(second_rounds, finals, strict=True):
        check_assignment(rebalance, AssignmentResult(final))  # nothing is left withheld
    return finals


@pytest.mark.java
@pytest.mark.parametrize("case", range(5))
def test_balance_and_moves_are_no_worse_than_kafkas_cooperative_sticky(
    case: int, kafka_final: list[Assignment]
) -> None:
    rebalance = changed_cases()[case]
    ours, kafka = answer(rebalance), kafka_final[case]
    assert spread(ours) <= spread(kafka)
    assert moved(rebalance, ours) <= moved(rebalance, kafka)
