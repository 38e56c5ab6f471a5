"""The stages: their order, the stop rule, and which stage settles known cases."""

from __future__ import annotations

from lagassign.core.model import AssignmentResult, Member, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from lagassign.core.strategies.balanced import STAGES, Tuning, settle
from lagassign.core.strategies.balanced.goals import LAG_AWARE, NEAR_FRESH
from tests.core.checking import assign_checked

TEN_TOPICS = [f"t{i}" for i in range(10)]
# moves, re-deals and re-splits can do nothing: only the stages that take a whole answer help
NO_WORK = Tuning(move_budget=0, frugal_budget_per_partition=0, redeal_shares=(), split_work=0)


def test_the_first_stage_deals_and_each_bar_ends_with_a_whole_answer() -> None:
    names = [stage.name for stage in STAGES]
    assert len(set(names)) == len(names)
    assert STAGES[0].name == "deal"
    assert STAGES[0].bar is None
    near_fresh = [s.name for s in STAGES if s.bar is NEAR_FRESH]
    lag_aware = [s.name for s in STAGES if s.bar is LAG_AWARE]
    assert near_fresh[-1] == "fresh-answer"
    assert lag_aware[-1] == "lag-aware-answer"
    # every near-fresh stage comes before every lag-aware one
    assert names.index(near_fresh[-1]) < names.index(lag_aware[0])


def test_the_seed_weakness_example_is_settled_by_the_deal() -> None:
    members = [Member("a", tuple(TEN_TOPICS)), Member("b", tuple(TEN_TOPICS))]
    rebalance = make_rebalance(
        members, dict.fromkeys(TEN_TOPICS, 2), {t: [100, 1] for t in TEN_TOPICS}
    )
    result = assign_checked("balanced", rebalance)
    assert result.settled_by == "deal"
    assert assignment_stats(rebalance, result).settled_by == "deal"


def test_only_uneven_totals_match_lag_aware_and_without_work_its_answer_is_taken() -> None:
    members = [Member("m0", ("t0", "t1")), Member("m1", ("t0", "t1"))]
    rebalance = make_rebalance(
        members, {"t0": 3, "t1": 3}, {"t0": [71, 58, 142], "t1": [50, 90, 55]}
    )
    assert settle(rebalance).settled_by == "uneven-moves"
    taken = settle(rebalance, NO_WORK)
    assert taken.settled_by == "lag-aware-answer"
    lag_aware = run_strategy("lag-aware", rebalance).assignment
    assert taken.assignment == lag_aware


def test_owned_heavy_pairs_are_settled_by_frugal_moves_or_without_work_the_fresh_answer() -> None:
    members = [
        Member("a", ("t",), owned={"t": (0, 1)}, generation=1),
        Member("b", ("t",), owned={"t": (2, 3)}, generation=1),
    ]
    rebalance = make_rebalance(members, {"t": 4}, {"t": [100, 90, 1, 2]})
    result = assign_checked("balanced", rebalance)
    assert result.settled_by == "frugal-moves-to-lag-aware"
    assert result.assignment == {"a": {"t": [0, 2]}, "b": {"t": [1, 3]}}
    fallback = settle(rebalance, NO_WORK)
    assert fallback.settled_by == "fresh-answer"
    # the fresh answer's sets, a keeping the one with its t-0
    assert fallback.assignment == {"a": {"t": [0, 2]}, "b": {"t": [1, 3]}}


def test_strategies_without_stages_settle_nothing() -> None:
    rebalance = make_rebalance([Member("a", ("t",))], {"t": 1})
    assert run_strategy("lag-aware", rebalance) == AssignmentResult({"a": {"t": [0]}})
    assert run_strategy("lag-aware", rebalance).settled_by is None
