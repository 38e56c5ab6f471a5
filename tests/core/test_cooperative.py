"""Cooperative withholding: the module docstring's example and conflicting claims."""

from __future__ import annotations

from lagassign.core.cooperative import withhold_moved
from lagassign.core.model import AssignmentResult, Member, make_rebalance
from lagassign.core.validity import check_assignment


def test_a_moved_partition_is_withheld_and_listed_under_its_owner() -> None:
    rebalance = make_rebalance(
        [Member("c-1", ("t",), owned={"t": (0, 1)}, generation=3), Member("c-2", ("t",))],
        {"t": 2},
        protocol="cooperative",
    )
    result = withhold_moved(rebalance, AssignmentResult({"c-1": {"t": [0]}, "c-2": {"t": [1]}}))
    assert result == AssignmentResult({"c-1": {"t": [0]}, "c-2": {"t": []}}, {"c-1": {"t": [1]}})
    check_assignment(rebalance, result)


def test_the_higher_generation_claim_wins_and_a_tie_leaves_the_partition_free() -> None:
    rebalance = make_rebalance(
        [
            Member("a", ("t",), owned={"t": (0, 1)}, generation=4),
            Member("b", ("t",), owned={"t": (0,)}, generation=5),
            Member("c", ("t",), owned={"t": (1,)}, generation=4),
        ],
        {"t": 2},
        protocol="cooperative",
    )
    result = withhold_moved(rebalance, AssignmentResult({"a": {"t": [0, 1]}, "b": {}, "c": {}}))
    # t-0 belongs to b (generation 5): withheld from a; t-1 is contested at 4: free for a.
    assert result.assignment == {"a": {"t": [1]}, "b": {}, "c": {}}
    assert result.revoked == {"b": {"t": [0]}}
