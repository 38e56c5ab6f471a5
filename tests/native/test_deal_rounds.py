"""``lagassign._native.deal_rounds`` against the deal written one round at a time in Python.

The reference is the loop the balanced strategy ran before the deal was compiled: per
round, the members in order of their load so far (stable: equal loads by position, that
is by member number), each taking the next largest partition: the rule itself, in eight
lines. Lags near 2**63 (Kafka offsets) sum beyond int64 without wrapping.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lagassign._native import deal_rounds


def deal_by_loops(
    lags: list[int], load: list[int], rounds: list[tuple[list[int], list[int], bool]]
) -> list[int]:
    load = list(load)
    takers: list[int] = []
    for members, parts, by_load in rounds:
        order = sorted(members, key=lambda m: load[m]) if by_load else members
        for m, x in zip(order, parts, strict=True):
            load[m] += lags[x]
            takers.append(m)
    return takers


@st.composite
def deals(draw: st.DrawFn) -> tuple[list[int], list[int], list[tuple[list[int], list[int], bool]]]:
    members = draw(st.integers(1, 6))
    big = draw(st.booleans())
    lag = st.integers(2**63 - 10, 2**63 - 1) if big else st.integers(0, 20)
    lags = draw(st.lists(lag, min_size=1, max_size=30))
    load = draw(st.lists(st.integers(0, 40), min_size=members, max_size=members))
    rounds = []
    for _ in range(draw(st.integers(0, 6))):
        who = sorted(draw(st.sets(st.integers(0, members - 1), min_size=1)))
        parts = draw(st.lists(st.integers(0, len(lags) - 1), min_size=len(who), max_size=len(who)))
        rounds.append((who, parts, draw(st.booleans())))
    return lags, load, rounds


def call(
    lags: list[int], load: list[int], rounds: list[tuple[list[int], list[int], bool]]
) -> list[int]:
    takers = deal_rounds(
        np.array(lags, dtype=np.int64),
        load,
        np.array([len(m) for m, _, _ in rounds], dtype=np.int64),
        np.array([m for who, _, _ in rounds for m in who], dtype=np.int64),
        np.array([x for _, parts, _ in rounds for x in parts], dtype=np.int64),
        np.array([by_load for _, _, by_load in rounds], dtype=np.uint8),
    )
    out: list[int] = takers.tolist()
    return out


@given(deals())
def test_the_compiled_deal_is_the_deal_round_by_round(
    deal: tuple[list[int], list[int], list[tuple[list[int], list[int], bool]]],
) -> None:
    lags, load, rounds = deal
    assert call(lags, load, rounds) == deal_by_loops(lags, load, rounds)


def test_out_of_range_members_and_partitions_and_arrays_of_another_type_are_refused() -> None:
    lags = np.array([5, 3], dtype=np.int64)
    one = np.array([1], dtype=np.int64)
    yes = np.array([1], dtype=np.uint8)
    with pytest.raises(ValueError, match="member 3 is not a member number"):
        deal_rounds(lags, [0, 0], one, np.array([3]), np.array([0]), yes)
    with pytest.raises(ValueError, match="partition 2 is not a flat partition"):
        deal_rounds(lags, [0, 0], one, np.array([0]), np.array([2]), yes)
    with pytest.raises(ValueError, match="the rounds' sizes add up to 1"):
        deal_rounds(lags, [0, 0], one, np.array([0, 1]), np.array([0, 1]), yes)
    with pytest.raises(TypeError, match="'list' object"):
        deal_rounds(lags, [0, 0], one, np.array([0]), np.array([0]), [1])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="int64"):
        deal_rounds(lags, [0, 0], one, np.array([0]), np.array([0]), one)  # type: ignore[arg-type]
