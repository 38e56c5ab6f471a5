"""The balanced strategy as an ordered list of named stages that share one stop rule.

Every stage but the first works toward one bar (:mod:`.goals`) and runs only
while the answer misses it: *stop when the largest member lag is within the
goal*. So the first stage deals an answer, and each later one runs only if
every earlier one left it short of its bar. The last stage of each bar always
clears it (it takes a whole other answer), so the answer ends within every bar;
the last stage that ran *settled* it, and its name is the answer's
``settled_by``.

Some stages run only when partitions were owned (their previous owners are
known: moves must be frugal). One stage was dropped because no benchmark or
test answer was ever settled by it: patient costless moves toward ``lag-aware``
when nothing was owned (the deal always cleared that bar in the benchmark).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lagassign.core.model import Rebalance
from lagassign.core.strategies.balanced.deal import deal
from lagassign.core.strategies.balanced.flow_moves import hand_over_by_weight
from lagassign.core.strategies.balanced.goals import LAG_AWARE, NEAR_BOUND, NEAR_FRESH, Bar
from lagassign.core.strategies.balanced.group_index import GroupIndex
from lagassign.core.strategies.balanced.local_moves import (
    FRUGAL,
    UNEVEN,
    MoveRules,
    even_counts,
    lower_max_lag,
)
from lagassign.core.strategies.balanced.placement import Placement
from lagassign.core.strategies.balanced.redeal import redeal_heaviest
from lagassign.core.strategies.balanced.relabel import relabel
from lagassign.core.strategies.balanced.tuning import Tuning
from lagassign.core.strategies.lag_aware import assign as lag_aware_assign


class Attempt:
    """One run of the stages: the answer so far, and the goals and other answers it needed."""

    __slots__ = (
        "_fresh",
        "_goals",
        "_lag_aware",
        "_quick",
        "base",
        "index",
        "placement",
        "previous",
        "tuning",
    )

    def __init__(self, rebalance: Rebalance, tuning: Tuning) -> None:
        self.index = GroupIndex(rebalance)
        self.tuning = tuning
        owned = bool((self.index.previous_owner_array() >= 0).any())
        # previous owner per flat partition; None when nothing was owned
        self.previous: npt.NDArray[np.int64] | None = (
            self.index.previous_owner_array() if owned else None
        )
        self.placement: Placement | None = None
        self.base: list[int] = []  # per topic, the base count P // C
        self._fresh: Placement | None = None
        self._lag_aware: Placement | None = None
        self._goals: dict[str, float] = {}
        self._quick: dict[str, float] = {}

    def answer(self) -> Placement:
        if self.placement is None:
            raise AssertionError("no stage has dealt an answer yet")
        return self.placement

    def fresh(self) -> Placement:
        """The answer dealt as if nobody owned anything (computed once)."""
        if self._fresh is None:
            self._fresh = deal(self.index, None, self.tuning)[0]
        return self._fresh

    def lag_aware(self) -> Placement:
        """``lag-aware``'s answer on the same input (computed once)."""
        if self._lag_aware is None:
            theirs = lag_aware_assign(self.index.rebalance)
            self._lag_aware = Placement.of_assignment(self.index, theirs, self.previous)
        return self._lag_aware

    def goal(self, bar: Bar) -> float:
        if bar.name not in self._goals:
            self._goals[bar.name] = bar.full(self)
        return self._goals[bar.name]

    def within(self, bar: Bar) -> bool:
        """The stop rule: the largest member lag is within ``bar``'s goal."""
        if self.placement is None:
            return False
        if bar.name not in self._quick:
            self._quick[bar.name] = bar.quick(self)
        top = self.placement.max_load()
        return top <= self._quick[bar.name] or top <= self.goal(bar)


@dataclass(frozen=True, slots=True)
class Stage:
    """A named step toward ``bar``; ``owned``: runs only with (True) or without (False)
    owners; ``flows``: runs only when the weights hold production (``Rebalance.flows``)."""

    name: str
    bar: Bar | None  # None: the first stage, which always runs
    owned: bool | None
    run: Callable[[Attempt, float], None]
    flows: bool = False

    def applies(self, attempt: Attempt) -> bool:
        if self.flows and not attempt.index.rebalance.flows:
            return False
        return self.owned is None or self.owned == (attempt.previous is not None)


def _deal(attempt: Attempt, _: float) -> None:
    attempt.placement, attempt.base = deal(attempt.index, attempt.previous, attempt.tuning)


def _moves(rules: MoveRules) -> Callable[[Attempt, float], None]:
    def run(attempt: Attempt, goal: float) -> None:
        lower_max_lag(attempt.answer(), attempt.base, rules, stop_at=goal, tuning=attempt.tuning)

    return run


def _redeal(attempt: Attempt, goal: float) -> None:
    redealt = redeal_heaviest(attempt.answer(), attempt.base, goal, attempt.tuning)
    if redealt is not None:
        attempt.placement = redealt


def _fresh_answer(attempt: Attempt, _: float) -> None:
    if attempt.previous is None:
        raise AssertionError("the fresh answer is a fallback for owned partitions only")
    attempt.placement = relabel(attempt.index, attempt.fresh(), attempt.previous)


def _uneven_moves(attempt: Attempt, goal: float) -> None:
    # only uneven totals let lag-aware do better (its topics are count-balanced too)
    lower_max_lag(attempt.answer(), attempt.base, UNEVEN, stop_at=goal, tuning=attempt.tuning)
    if attempt.answer().max_load() <= goal:
        even_counts(attempt.answer(), attempt.base, goal)


def _flow_moves(attempt: Attempt, goal: float) -> None:
    hand_over_by_weight(attempt.answer(), goal)


def _lag_aware_answer(attempt: Attempt, goal: float) -> None:
    theirs = attempt.lag_aware()
    if attempt.previous is not None:
        theirs = relabel(attempt.index, theirs, attempt.previous)
    attempt.placement = theirs
    even_counts(theirs, attempt.base, goal)


STAGES: Sequence[Stage] = (
    Stage("deal", None, None, _deal),
    Stage("frugal-moves", NEAR_FRESH, True, _moves(FRUGAL)),
    Stage("redeal-heaviest", NEAR_FRESH, True, _redeal),
    Stage("fresh-answer", NEAR_FRESH, True, _fresh_answer),
    Stage("frugal-moves-to-lag-aware", LAG_AWARE, True, _moves(FRUGAL)),
    Stage("redeal-heaviest-to-lag-aware", LAG_AWARE, True, _redeal),
    Stage("uneven-moves", LAG_AWARE, None, _uneven_moves),
    Stage("lag-aware-answer", LAG_AWARE, None, _lag_aware_answer),
    Stage("flow-moves", NEAR_BOUND, None, _flow_moves, flows=True),
)


def run_stages(attempt: Attempt, stages: Sequence[Stage] = STAGES) -> str:
    """Run the stages that apply and are still needed; return the name of the last that ran."""
    settled_by = ""
    for stage in stages:
        if not stage.applies(attempt):
            continue
        if stage.bar is None:
            stage.run(attempt, float("inf"))
        elif attempt.within(stage.bar):
            continue
        else:
            stage.run(attempt, attempt.goal(stage.bar))
        settled_by = stage.name
    return settled_by
