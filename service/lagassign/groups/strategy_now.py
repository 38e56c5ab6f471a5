"""What a strategy would give a group's live members on its snapshot's lags now.

The core run on the snapshot's lags and the live members (``balanced now`` on the
group's page). Worked example: ``c-1`` holds ``t0-0`` (lag 900), ``c-2`` holds
``t0-1`` and ``t0-2`` (lags 50 and 50); no assignment beats 900 (one partition holds
it), so ``balanced`` gives an imbalance of 1.8, as the live assignment does.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from lagassign.core.errors import InvalidRebalance
from lagassign.core.model import Assignment, Member, make_rebalance
from lagassign.core.stats import assignment_stats
from lagassign.core.strategies import run_strategy
from lagassign.lagview.snapshot import GroupSnapshot


@dataclass(frozen=True, slots=True)
class StrategyNow:
    """What a strategy would give the live members on the snapshot's lags now.

    Each member's subscription is the one the group's description reports (the
    classic consumer protocol's member metadata, or a consumer-protocol member's
    subscribed topics); a member whose subscription is not known is taken as
    subscribed to every topic the group reads (``assumes`` says which). The live
    assignment counts as owned, so ``moved`` is how many partitions would change hands.
    """

    strategy: str
    member_lag: Mapping[str, int]
    max_lag: int
    imbalance: float
    moved: int
    compute_ms: float
    assumes: str = "every live member subscribes to every topic the group reads"


def strategy_now(
    snapshot: GroupSnapshot | None, live: Assignment, strategy: str
) -> tuple[StrategyNow | None, str | None]:
    """Run ``strategy`` on the snapshot's lags for the live members.

    Returns the result, or ``None`` and the reason it cannot be computed.
    """
    if snapshot is None:
        return None, "no lag snapshot of this group yet"
    if not snapshot.members:
        return None, "the group has no live members"
    lags = snapshot.lags_by_topic()
    if not lags:
        return None, "the group reads no partitions"
    topics = tuple(lags)
    described = all(m.subscribed_topics for m in snapshot.members)
    members = [
        Member(
            member_id=m.member_id,
            # The subscription the description reports; every topic when it is not known.
            topics=tuple(t for t in m.subscribed_topics if t in lags) or topics,
            group_instance_id=m.group_instance_id,
            owned={t: tuple(ps) for t, ps in live.get(m.member_id, {}).items() if t in lags},
        )
        for m in snapshot.members
    ]
    try:
        rebalance = make_rebalance(members, {t: len(v) for t, v in lags.items()}, lags)
        started = time.perf_counter()
        result = run_strategy(strategy, rebalance)
        compute_ms = (time.perf_counter() - started) * 1000
    except InvalidRebalance as exc:
        return None, exc.message
    stats = assignment_stats(rebalance, result)
    return (
        StrategyNow(
            strategy=strategy,
            member_lag=stats.member_lag,
            max_lag=stats.max_lag,
            imbalance=stats.imbalance,
            moved=stats.moved,
            compute_ms=compute_ms,
            assumes=(
                "each member's subscription as the group's description reports it"
                if described
                else "every live member whose subscription is not known subscribes to "
                "every topic the group reads"
            ),
        ),
        None,
    )
