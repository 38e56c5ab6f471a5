"""The lag an answer balances, kept per group between two refreshes of the lag view.

Fitting the lag view's snapshot to a request and running the lag model over it
(the drain model walks every partition's rate window) is most of the sidecar's own
work for a broker plugin's call: at 50 members x 10,000 partitions about 11 ms of
the 22 ms a join costs (the strategy about 7). Its inputs change only when the lag
view refreshes, so the result is kept and reused while they are the same
(:class:`LagInputs`):

- the group's snapshot is the *same object* the lag view holds now (a refresh
  replaces it);
- the lag model's inputs for the group are the same object (the rate window's
  mapping for the group, which a refresh replaces whole);
- the request's shape is equal: the partition count of every subscribed topic,
  its ``reset_policy`` and its member count (the drain model's horizon reads it).

Only lags from the cached snapshot are kept: not a request's own ``lags``, not the
forecast's weights, not an on-demand read. The first request of a group computes
and keeps; after each refresh the lag of a group asked within the last
:data:`WARM_FOR_S` is computed anew for its last request, and for one member more and
one fewer (a join, a leave: :mod:`lagassign.assign.lag_warmer`), so the next request
finds it ready. One lag is kept per group and member count, for at most
``max_groups`` groups x :data:`KEPT_PER_GROUP` (the least recently used goes first).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

import msgspec

from lagassign.assign.lag_sources import (
    LagSource,
    covering_snapshot,
    snapshot_lag_source,
    subscribed_counts,
)
from lagassign.assign.request import AssignRequest
from lagassign.lagview.reader import LagReader
from lagassign.lagview.snapshot import GroupSnapshot

DEFAULT_MAX_GROUPS = 256
#: How long after a group's last request its lag is still made ready after each refresh:
#: the rebalances of a rolling restart or a scale-out come within minutes of each other.
WARM_FOR_S = 600.0
#: Lags kept per group, one per member count: the last request's, one more, one fewer.
KEPT_PER_GROUP = 3


class LagModel(Protocol):
    """The sidecar's lag model (``LAGASSIGN_LAG_MODEL``): the lag an answer balances, from
    the lag its source gave and the request."""

    def __call__(self, lag: LagSource, request: AssignRequest) -> LagSource: ...

    def inputs(self, group_id: str) -> object:
        """What the model reads of the group besides the lag view's snapshot: an object a
        refresh replaces (compared by identity)."""
        ...


@dataclass(frozen=True, slots=True, eq=False)
class LagInputs:
    """What one group's lag was computed from: two objects by identity, the rest by value."""

    snapshot: GroupSnapshot
    model_inputs: object | None
    #: The partition count of every subscribed topic, and the request's reset_policy.
    shape: Hashable
    members: int

    def same_as(self, other: LagInputs) -> bool:
        return (
            self.snapshot is other.snapshot
            and self.model_inputs is other.model_inputs
            and self.shape == other.shape
            and self.members == other.members
        )


def lag_inputs(
    request: AssignRequest, lag_view: LagReader, model: LagModel | None
) -> LagInputs | None:
    """What the request's lag is computed from when that is the view's cached snapshot
    (it lists every subscribed topic, the request has no lags of its own); else None."""
    if request.lags is not None:
        return None
    snapshot = covering_snapshot(request, lag_view)
    if snapshot is None:
        return None
    counts = tuple(sorted(subscribed_counts(request).items()))
    return LagInputs(
        snapshot=snapshot,
        model_inputs=None if model is None else model.inputs(request.group_id),
        shape=(counts, request.reset_policy),
        members=len(request.members),
    )


def snapshot_lag(request: AssignRequest, inputs: LagInputs, model: LagModel | None) -> LagSource:
    """The lag of ``inputs``' snapshot fitted to the request, through the model."""
    lag = snapshot_lag_source(inputs.snapshot, request)
    return lag if model is None else model(lag, request)


def lag_request(request: AssignRequest) -> AssignRequest:
    """``request`` without what its lag does not read (owned partitions, racks)."""
    return msgspec.structs.replace(
        request,
        members=[msgspec.structs.replace(m, owned={}) for m in request.members],
        partition_racks=None,
    )


@dataclass(frozen=True, slots=True)
class LastRequest:
    """A group's last request (as :func:`lag_request` keeps it) and its lag model."""

    request: AssignRequest
    model: LagModel | None
    #: When (``time.monotonic()``).
    at: float


class LagCache:
    """Lags by group and member count, and each group's last request (see the module
    docstring)."""

    def __init__(self, max_groups: int = DEFAULT_MAX_GROUPS) -> None:
        self.max_groups = max_groups
        self._kept: OrderedDict[tuple[str, int], tuple[LagInputs, LagSource]] = OrderedDict()
        self._asked: OrderedDict[str, LastRequest] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, group_id: str, inputs: LagInputs, *, counted: bool = True) -> LagSource | None:
        """The lag kept for the group when it was computed from ``inputs``, else None
        (counted as a request's hit or miss unless ``counted`` is false)."""
        key = (group_id, inputs.members)
        kept = self._kept.get(key)
        if kept is None or not kept[0].same_as(inputs):
            self.misses += counted
            return None
        self._kept.move_to_end(key)
        self.hits += counted
        return kept[1]

    def put(self, group_id: str, inputs: LagInputs, lag: LagSource) -> None:
        """Keep ``lag``, computed from ``inputs`` for the group."""
        key = (group_id, inputs.members)
        self._kept[key] = (inputs, lag)
        self._kept.move_to_end(key)
        while len(self._kept) > self.max_groups * KEPT_PER_GROUP:
            self._kept.popitem(last=False)

    def asked(self, request: AssignRequest, model: LagModel | None) -> None:
        """Remember ``request`` as its group's last (what the lag warmer computes ahead for)."""
        group_id = request.group_id
        self._asked[group_id] = LastRequest(lag_request(request), model, time.monotonic())
        self._asked.move_to_end(group_id)
        while len(self._asked) > self.max_groups:
            self._asked.popitem(last=False)

    def warm(self, group_id: str) -> LastRequest | None:
        """The group's last request, when it came within :data:`WARM_FOR_S`."""
        asked = self._asked.get(group_id)
        if asked is None or time.monotonic() - asked.at > WARM_FOR_S:
            return None
        return asked

    def __len__(self) -> int:
        """Lags kept."""
        return len(self._kept)
