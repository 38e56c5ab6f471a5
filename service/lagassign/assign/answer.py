"""From a parsed ``POST /assign`` request and a source of lag to the response JSON.

The HTTP route and the CLI both call :func:`compute_answer`; only where the lag
comes from differs (:class:`~lagassign.assign.lag_sources.LagSource`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lagassign.assign.collector import collector_paused
from lagassign.assign.lag_sources import LagSource
from lagassign.assign.request import AssignRequest, topics_of
from lagassign.assign.request_schema import AnswerForm
from lagassign.core.errors import InvalidRebalance
from lagassign.core.model import AssignmentResult, Member, Rebalance, make_rebalance
from lagassign.core.stats import AssignmentStats, assignment_stats
from lagassign.core.strategies import STRATEGIES, run_strategy
from lagassign.errors import BadRequest


@dataclass(frozen=True, slots=True)
class Answer:
    """One computed answer: the domain result plus what the response reports."""

    group_id: str
    strategy: str
    rebalance: Rebalance
    result: AssignmentResult
    stats: AssignmentStats
    lag: LagSource
    compute_ms: float
    computed_at: datetime
    #: The request's ``partitions`` keys, in its order (the packed form's ``topics``).
    request_topics: tuple[str, ...] = ()
    answer_form: AnswerForm = "topics"

    def to_json(self) -> dict[str, Any]:
        return self.payload(self.result.assignment)

    def payload(self, assignment: Any) -> dict[str, Any]:
        """The response's fields, ``assignment`` as given (nested, or its JSON already)."""
        as_of = self.lag.as_of
        return {
            "group_id": self.group_id,
            "strategy": self.strategy,
            "assignment": assignment,
            "revoked": self.result.revoked,
            "lag": {
                "source": self.lag.source,
                "as_of": iso_utc(as_of) if as_of else None,
                "age_seconds": (
                    round((self.computed_at - as_of).total_seconds(), 3) if as_of else None
                ),
                "complete": self.lag.complete,
                "unknown_partitions": self.lag.unknown_partitions,
                "flow": flow_of(self.lag),
            },
            "stats": {
                "partitions": self.stats.partitions,
                "members": self.stats.members,
                "member_lag": self.stats.member_lag,
                "max_lag": self.stats.max_lag,
                "mean_lag": round(self.stats.mean_lag, 3),
                "imbalance": round(self.stats.imbalance, 4),
                "lower_bound": round(self.stats.lower_bound, 3),
                "moved": self.stats.moved,
                "compute_ms": round(self.compute_ms, 3),
            },
        }


def flow_of(lag: LagSource) -> dict[str, Any] | None:
    """The drain model's figures (``kafka-drain`` only): the horizon and what it came from."""
    horizon = lag.horizon
    if horizon is None:
        return None
    return {
        "horizon_s": round(horizon.seconds, 3),
        "member_capacity": None if horizon.capacity is None else round(horizon.capacity, 3),
        "capacity_source": horizon.capacity_source,
        "overrun": horizon.overrun,
        "unknown_rates": lag.unknown_rates,
    }


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def rebalance_of(request: AssignRequest, lag: LagSource) -> Rebalance:
    """The core's view of a request; BadRequest when it contradicts itself.

    Members that share one topic list (the compact form's ``subscription``) share
    one tuple of topics too, so the model checks and sorts it once.
    """
    shared: dict[int, tuple[str, ...]] = {}
    members = []
    for m in request.members:
        topics = shared.get(id(m.topics))
        if topics is None:
            topics = shared[id(m.topics)] = tuple(topics_of(m))
        members.append(
            Member(
                member_id=m.member_id,
                topics=topics,
                group_instance_id=m.group_instance_id,
                owned=m.owned,
                generation=m.generation,
                rack=m.rack,
            )
        )
    try:
        return make_rebalance(
            members,
            request.partitions,
            lag.lags,
            request.partition_racks,
            protocol=request.protocol,
            flows=lag.flows,
        )
    except InvalidRebalance as exc:
        raise BadRequest(exc.message, exc.details) from None


def check_request_lags(request: AssignRequest) -> None:
    """A request's own ``lags`` must fit its partition counts, even for unsubscribed topics."""
    for topic, values in (request.lags or {}).items():
        count = request.partitions.get(topic)
        if count is not None and len(values) != count:
            raise BadRequest(
                f"lags[{topic!r}] has {len(values)} values but the topic has {count} partitions"
            )
        if values and min(values) < 0:
            raise BadRequest(f"lags[{topic!r}] must not hold negative values")


def compute_answer(
    request: AssignRequest,
    lag: LagSource,
    default_strategy: str,
    now: datetime | None = None,
) -> Answer:
    """Validate, run the strategy, measure it, and return the answer."""
    strategy = request.strategy or default_strategy
    if strategy not in STRATEGIES:
        known = ", ".join(STRATEGIES)
        raise BadRequest(f"strategy: {strategy!r} is unknown; use one of: {known}")
    check_request_lags(request)
    with collector_paused():
        rebalance = rebalance_of(request, lag)
        started = time.perf_counter()
        result = run_strategy(strategy, rebalance)
        compute_ms = (time.perf_counter() - started) * 1000
        stats = assignment_stats(rebalance, result)
    return Answer(
        group_id=request.group_id,
        strategy=strategy,
        rebalance=rebalance,
        result=result,
        stats=stats,
        lag=lag,
        compute_ms=compute_ms,
        computed_at=now or datetime.now(UTC),
        request_topics=tuple(request.partitions),
        answer_form=request.answer_form,
    )
