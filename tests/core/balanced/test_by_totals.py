"""A layout balanced by totals (Kafka's ``uniform``: contiguous runs, often of one topic)
is kept up to each member's total target, not taken apart topic by topic."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.model import Member, Rebalance, make_rebalance
from lagassign.core.stats import moved_partitions
from lagassign.core.strategies import lag_aware
from lagassign.core.strategies.balanced.by_totals import balanced_by_totals
from lagassign.core.strategies.balanced.deal import owned_counts
from lagassign.core.strategies.balanced.group_index import GroupIndex
from tests.core.checking import assign_checked


def uniform_owned(
    members: int, topics: dict[str, int], lags: dict[str, list[int]], joining: int = 0
) -> Rebalance:
    """Every member owning a contiguous run of the flat partitions (``uniform``'s layout),
    runs within one partition of each other; ``joining`` members more, owning nothing."""
    names = sorted(topics)
    flat = [(t, p) for t in names for p in range(topics[t])]
    size, extra = divmod(len(flat), members)
    group = []
    at = 0
    for i in range(members):
        run = flat[at : at + size + (i < extra)]
        at += len(run)
        owned: dict[str, list[int]] = {}
        for t, p in run:
            owned.setdefault(t, []).append(p)
        group.append(
            Member(
                f"m{i:03d}",
                tuple(names),
                owned={t: tuple(ps) for t, ps in owned.items()},
                generation=1,
            )
        )
    group += [Member(f"new{j}", tuple(names)) for j in range(joining)]
    return make_rebalance(group, topics, lags)


def max_lag(rebalance: Rebalance, assignment: dict[str, dict[str, list[int]]]) -> int:
    return max(
        sum(rebalance.lags[t][p] for t, ps in topics.items() for p in ps)
        for topics in assignment.values()
    )


def totals(assignment: dict[str, dict[str, list[int]]]) -> list[int]:
    return sorted(sum(map(len, topics.values())) for topics in assignment.values())


def test_a_join_to_uniforms_layout_moves_the_joiners_share_and_what_lag_balance_needs() -> None:
    rng = random.Random(3)
    topics = {f"t{t}": 2_000 for t in range(5)}  # 50 members x 10,000 partitions
    lags = {t: [rng.randint(0, 1_000) for _ in range(n)] for t, n in topics.items()}
    unchanged = uniform_owned(50, topics, lags)
    assert balanced_by_totals(GroupIndex(unchanged), owned_counts(GroupIndex(unchanged))[1])
    kept = assign_checked("balanced", unchanged, reorderings=0)
    balancing = moved_partitions(unchanged, kept)  # what lag balance alone needs
    assert balancing < 400  # per topic, 8,000 of the 10,000 would move
    joined = uniform_owned(50, topics, lags, joining=1)
    result = assign_checked("balanced", joined, reorderings=0)
    share = 10_000 / 51
    assert moved_partitions(joined, result) <= 1.2 * share + balancing
    assert totals(result.assignment)[-1] - totals(result.assignment)[0] <= 1
    assert max_lag(joined, result.assignment) <= max_lag(joined, lag_aware.assign(joined))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 8),
    st.lists(st.integers(0, 12), min_size=1, max_size=4),
    st.integers(0, 2),
    st.randoms(use_true_random=False),
)
def test_an_answer_kept_by_totals_keeps_the_totals_within_one_or_beats_lag_aware(
    members: int, sizes: list[int], joining: int, rng: random.Random
) -> None:
    topics = {f"t{t}": n for t, n in enumerate(sizes)}
    lags = {
        t: [rng.choice([0, 1, 5, 100, rng.randint(0, 10_000)]) for _ in range(n)]
        for t, n in topics.items()
    }
    rebalance = uniform_owned(members, topics, lags, joining)
    answer = assign_checked("balanced", rebalance).assignment
    ours, theirs = max_lag(rebalance, answer), max_lag(rebalance, lag_aware.assign(rebalance))
    assert ours <= theirs
    index = GroupIndex(rebalance)
    if (
        balanced_by_totals(index, owned_counts(index)[1])
        and totals(answer)[-1] - totals(answer)[0] > 1
    ):
        assert ours == theirs  # only lag-aware's answer (totals not kept) may be taken


def test_a_layout_balanced_by_topic_is_not_kept_by_totals() -> None:
    topics = {"t0": 4, "t1": 4}
    lags = {"t0": [1, 2, 3, 4], "t1": [4, 3, 2, 1]}
    members = [
        Member("a", ("t0", "t1"), owned={"t0": (0, 1), "t1": (0, 1)}, generation=1),
        Member("b", ("t0", "t1"), owned={"t0": (2, 3), "t1": (2, 3)}, generation=1),
    ]
    index = GroupIndex(make_rebalance(members, topics, lags))
    assert not balanced_by_totals(index, owned_counts(index)[1])
    by_runs = GroupIndex(uniform_owned(2, topics, lags))  # a holds t0, b holds t1
    assert balanced_by_totals(by_runs, owned_counts(by_runs)[1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=4), st.randoms(use_true_random=False))
def test_a_cooperative_join_to_a_single_owner_never_gives_back_what_it_took(
    sizes: list[int], rng: random.Random
) -> None:
    # The first answer of a cooperative join keeps part of the single owner's partitions
    # (the rest is revoked and withheld); the second, over what it kept, must not hand
    # the owner back a partition the first took from it.
    topics = {f"t{t}": n for t, n in enumerate(sizes)}
    names = tuple(topics)
    lags = {t: [rng.randint(0, 1_000) for _ in range(n)] for t, n in topics.items()}
    everything = {t: tuple(range(n)) for t, n in topics.items()}
    alone = Member("leader", names, owned=everything, generation=1)
    first = assign_checked(
        "balanced", make_rebalance([alone, Member("joiner", names)], topics, lags)
    ).assignment["leader"]
    kept = Member(
        "leader", names, owned={t: tuple(ps) for t, ps in first.items() if ps}, generation=2
    )
    second = assign_checked(
        "balanced", make_rebalance([kept, Member("joiner", names)], topics, lags)
    ).assignment["leader"]
    assert all(set(ps) <= set(first.get(t, ())) for t, ps in second.items())
