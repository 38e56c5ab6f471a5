"""Every assignment strategy, by the name the HTTP API and the CLI use.

Each strategy is a pure function of a ``Rebalance`` that gives every partition
of every subscribed topic to exactly one subscriber and lists every member. It
returns the ``Assignment``, or an ``AssignmentResult`` when it also says how it
reached it (``settled_by``). :func:`run_strategy` adds the cooperative
protocol's withholding on top, the same way for every strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lagassign.core.cooperative import withhold_moved
from lagassign.core.errors import InvalidRebalance
from lagassign.core.model import Assignment, AssignmentResult, Rebalance
from lagassign.core.strategies import balanced, fair, lag_aware, range, roundrobin, sticky

Strategy = Callable[[Rebalance], Assignment | AssignmentResult]

STRATEGIES: Mapping[str, Strategy] = {
    "range": range.assign,
    "roundrobin": roundrobin.assign,
    "lag-aware": lag_aware.assign,
    "fair": fair.assign,
    "sticky": sticky.assign,
    "balanced": balanced.settle,
}

DEFAULT_STRATEGY = "balanced"


def run_strategy(name: str, rebalance: Rebalance) -> AssignmentResult:
    """Run the named strategy; in the cooperative protocol, withhold moved partitions."""
    strategy = STRATEGIES.get(name)
    if strategy is None:
        known = ", ".join(STRATEGIES)
        raise InvalidRebalance(f"strategy {name!r} is unknown; use one of: {known}")
    answer = strategy(rebalance)
    result = answer if isinstance(answer, AssignmentResult) else AssignmentResult(answer)
    if rebalance.protocol == "cooperative":
        return withhold_moved(rebalance, result).settled(result.settled_by)
    return result
