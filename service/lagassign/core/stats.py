"""Quality statistics of an assignment, as ``POST /assign`` reports them.

- ``member_lag``: the lag sum of each member's partitions (revoked ones excluded);
- ``imbalance``: max member lag / mean member lag (1.0 when all lags are 0);
- ``lower_bound``: max(mean member lag, largest single partition lag), a bound
  no assignment can beat (:func:`lower_bound`, which the balanced strategy
  aims at too);
- ``moved``: partitions given to a member other than their previous owner;
- ``settled_by``: the strategy's own account of how it reached the answer, when
  it gives one (the balanced strategy names the stage that settled it), else None.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np
import numpy.typing as npt

from lagassign.core.model import AssignmentResult, Rebalance
from lagassign.core.ownership import flat_owner_numbers

INT64_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class AssignmentStats:
    partitions: int
    members: int
    member_lag: dict[str, int]
    max_lag: int
    mean_lag: float
    imbalance: float
    lower_bound: float
    moved: int
    settled_by: str | None = None


def assignment_stats(rebalance: Rebalance, result: AssignmentResult) -> AssignmentStats:
    member_lag = _member_lag(rebalance, result)
    members = len(rebalance.members)
    total = lag_totals(rebalance)[0]
    max_lag = max(member_lag.values(), default=0)
    mean_lag = total / members if members else 0.0
    imbalance = max_lag / mean_lag if mean_lag > 0 else 1.0
    return AssignmentStats(
        partitions=rebalance.partition_count(),
        members=members,
        member_lag=member_lag,
        max_lag=max_lag,
        mean_lag=mean_lag,
        imbalance=imbalance,
        lower_bound=lower_bound(rebalance),
        moved=moved_partitions(rebalance, result),
        settled_by=result.settled_by,
    )


def _member_lag(rebalance: Rebalance, result: AssignmentResult) -> dict[str, int]:
    lags = rebalance.lags
    flat = result.flat
    if flat is not None:
        values = chain.from_iterable(map(lags.__getitem__, flat.topics))
        dtype = np.int64 if lag_totals(rebalance)[0] <= INT64_MAX else np.object_
        flat_lags = np.fromiter(values, dtype=dtype, count=flat.partition_count)
        return dict(zip(flat.member_ids, flat.member_lag(flat_lags), strict=True))
    return {
        member_id: sum([sum(map(lags[t].__getitem__, parts)) for t, parts in topics.items()])
        for member_id, topics in result.assignment.items()
    }


def lower_bound(rebalance: Rebalance) -> float:
    """A largest member lag no assignment can beat: max(mean member lag, largest partition lag)."""
    total, largest = lag_totals(rebalance)
    members = len(rebalance.members)
    mean = total / members if members else 0.0
    return max(mean, float(largest))


def lag_totals(
    rebalance: Rebalance, every_lag: npt.NDArray[np.int64] | None = None
) -> tuple[int, int]:
    """The group's whole lag and its largest partition lag (computed once per rebalance).

    ``every_lag``, when the caller has it: every partition's lag in one array (int64 or
    Python ints), read instead of the per-topic lists.
    """
    known = rebalance.derived.get("lag_totals")
    if isinstance(known, tuple):
        return known
    if every_lag is not None:
        totals = (int(every_lag.sum()), int(every_lag.max()) if len(every_lag) else 0)
    else:
        lags = rebalance.lags.values()
        totals = (
            sum(map(sum, lags)),
            max((max(v) for v in lags if len(v)), default=0),
        )
    rebalance.derived["lag_totals"] = totals
    return totals


def moved_partitions(rebalance: Rebalance, result: AssignmentResult) -> int:
    """Partitions whose new owner differs from their previous owner.

    A revoked partition counts as moved: it leaves its owner this round.
    Partitions nobody owned before do not count.
    """
    if not any(m.owned for m in rebalance.members):
        return 0
    flat = result.flat
    if flat is not None:
        owners = flat_owner_numbers(rebalance, flat.topics)
        new_owner: npt.NDArray[np.integer] = flat.owner
    else:
        owners, new_owner = _owners_of(rebalance, result)
    moved = int(np.count_nonzero((owners >= 0) & (new_owner >= 0) & (owners != new_owner)))
    return moved + sum(len(ps) for topics in result.revoked.values() for ps in topics.values())


def _owners_of(
    rebalance: Rebalance, result: AssignmentResult
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.integer]]:
    """Per flat partition (topics in the rebalance's order): previous and new owner, or -1."""
    topics = list(rebalance.partitions)
    owners = flat_owner_numbers(rebalance, topics)
    first = dict(zip(topics, np.cumsum([0, *rebalance.partitions.values()]).tolist(), strict=False))
    position = {m.member_id: i for i, m in enumerate(rebalance.members)}
    new_owner = np.full(len(owners), -1, dtype=np.int64)
    for member_id, assigned in result.assignment.items():
        sizes = np.fromiter(map(len, assigned.values()), dtype=np.int64, count=len(assigned))
        starts = np.fromiter(map(first.__getitem__, assigned), dtype=np.int64, count=len(assigned))
        parts = np.fromiter(chain.from_iterable(assigned.values()), dtype=np.int64)
        new_owner[np.repeat(starts, sizes) + parts] = position[member_id]
    return owners, new_owner
