"""One-for-one swaps weighed in arrays against the pair-by-pair search they stand for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies.balanced.changes import Change, _better, _better_swap
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.placement import Placement


@st.composite
def two_members(draw: st.DrawFn) -> tuple[Placement, int, int, list[tuple[int, int]], float | None]:
    """A group where each member holds one partition of every topic; h, o and their pairs."""
    size = draw(st.integers(2, 4))
    topics = [f"t{t}" for t in range(draw(st.integers(1, 12)))]
    lags = {t: draw(st.lists(st.integers(0, 50), min_size=size, max_size=size)) for t in topics}
    members = [Member(f"m{m}", tuple(topics)) for m in range(size)]
    index = GroupIndex(make_rebalance(members, dict.fromkeys(topics, size), lags))
    owners = [
        m for t in range(len(topics)) for m in draw(st.permutations(range(size)))
    ]  # per topic, one partition each
    previous = None
    if draw(st.booleans()):
        previous = draw(
            st.lists(
                st.integers(-1, size - 1),
                min_size=index.partition_count,
                max_size=index.partition_count,
            )
        )
    placement = Placement.of_owners(index, owners, previous)
    h, o = draw(st.permutations(range(size)))[:2]
    pairs = []
    for t in range(len(topics)):
        part = range(index.offsets[t], index.offsets[t + 1])
        x = next(x for x in part if owners[x] == h)
        y = next(y for y in part if owners[y] == o)
        pairs.append((x, y))
    goal = draw(st.none() | st.floats(0, 700, allow_nan=False))
    return placement, h, o, pairs, goal


@settings(max_examples=300, deadline=None)
@given(two_members())
def test_swaps_in_arrays_pick_the_change_the_pair_by_pair_search_picks(
    case: tuple[Placement, int, int, list[tuple[int, int]], float | None],
) -> None:
    placement, h, o, pairs, goal = case
    expected: Change | None = None
    for x, y in pairs:
        expected = _better(expected, placement, h, o, [x], [y], goal)
    assert _better_swap(None, placement, h, o, pairs, goal) == expected
