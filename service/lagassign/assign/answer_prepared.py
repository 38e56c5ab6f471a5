"""A group's next join, answered ahead: computed after a refresh, served after a check.

The broker plugin has 50 ms by default, and the slowest answer is the first one after
the group left lagassign's layout (Kafka's ``uniform`` took over when a call fell back):
``balanced`` must then move partitions away from where ``uniform`` put them, which at
50 members x 10,000 partitions takes about three times a join on its own layout. It
times out, the group stays on ``uniform``, and the next call starts from there again.

So for each group the broker plugin asked about (its topic-id requests), after each
refresh (:mod:`lagassign.assign.lag_warmer`), the sidecar predicts the request of the
group's next join and answers it ahead:

- the members the lag view read last (``ConsumerGroupDescribe``), each as it was in the
  group's last request (subscription, rack, instance id), owning its *target*
  assignment as Kafka reports it now (what the coordinator hands the assignor as owned);
- one member more, a copy of the last one with :data:`NEWCOMER` as its id, owning nothing.

A request is answered from it when it is that request exactly: the same fields, the same
members with the same owned partitions (by member id, in any order), and one member more
that is the newcomer in everything but its id, over the same lag
(:class:`~lagassign.assign.lag_cache.LagInputs`) and default strategy. The prepared answer
then serves with the newcomer's id put in (an answer for one joiner is an answer for any
joiner with the same subscription and rack); its statistics are computed for the request
as it came. Anything else (a leave, two joins, a member that changed) is computed as
always. One prepared join (and the group's last request) is kept per group, for at most
``max_groups`` groups and ``max_partitions`` partitions of their requests in all (the
least recently asked group goes first).
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from dataclasses import dataclass

import msgspec
import numpy as np

from lagassign.assign.answer import Answer, rebalance_of
from lagassign.assign.lag_cache import LagInputs
from lagassign.assign.request import AssignRequest, MemberIn
from lagassign.core.model import Assignment, AssignmentResult
from lagassign.core.stats import assignment_stats
from lagassign.lagview.snapshot import GroupSnapshot

#: The member id the prepared join's newcomer has until a real one takes its place.
NEWCOMER = "lagassign-next-joiner"
DEFAULT_MAX_GROUPS = 64
DEFAULT_MAX_PARTITIONS = 1_000_000


def next_join(last: AssignRequest, snapshot: GroupSnapshot) -> AssignRequest | None:
    """The request of the group's next join, as ``snapshot`` says its members stand now.

    ``None`` when it cannot be told: a member the last request did not have (its
    subscription and rack are not known), a member without a target assignment
    reported, or no member at all.
    """
    mine = {m.member_id: m for m in last.members}
    members: list[MemberIn] = []
    for described in snapshot.members:
        template = mine.get(described.member_id)
        if template is None or described.member_epoch is None:
            return None
        subscribed = set(template.topics or ())
        owned = {t: sorted(ps) for t, ps in described.owned.items() if ps and t in subscribed}
        members.append(msgspec.structs.replace(template, owned=owned))
    if not members:
        return None
    newcomer = msgspec.structs.replace(
        members[-1], member_id=NEWCOMER, group_instance_id=None, owned={}, generation=None
    )
    return msgspec.structs.replace(last, members=[*members, newcomer])


@dataclass(frozen=True, slots=True)
class PreparedJoin:
    """One group's prepared join: its request (from :func:`next_join`), its lag and answer."""

    request: AssignRequest
    inputs: LagInputs
    default_strategy: str
    answer: Answer


def _size(request: AssignRequest) -> int:
    return sum(request.partitions.values())


def _without_members(request: AssignRequest) -> AssignRequest:
    return msgspec.structs.replace(request, members=[])


class PreparedJoins:
    """Each group's prepared join (see the module docstring)."""

    def __init__(
        self, max_groups: int = DEFAULT_MAX_GROUPS, max_partitions: int = DEFAULT_MAX_PARTITIONS
    ) -> None:
        self.max_groups = max_groups
        self.max_partitions = max_partitions
        self._prepared: OrderedDict[str, PreparedJoin] = OrderedDict()
        self._last: OrderedDict[str, AssignRequest] = OrderedDict()
        self._partitions = 0
        #: Joins answered ahead, and calls served from them.
        self.prepared = 0
        self.served = 0

    def asked(self, request: AssignRequest) -> None:
        """Remember the broker plugin's (named) request as its group's last."""
        self._forget(request.group_id, keep_prepared=True)
        self._last[request.group_id] = request
        self._partitions += _size(request)
        while len(self._last) > self.max_groups or self._partitions > self.max_partitions:
            self._forget(next(iter(self._last)))

    def _forget(self, group_id: str, *, keep_prepared: bool = False) -> None:
        last = self._last.pop(group_id, None)
        if last is not None:
            self._partitions -= _size(last)
        if not keep_prepared:
            self._prepared.pop(group_id, None)

    def last(self, group_id: str) -> AssignRequest | None:
        """The group's last request from the broker plugin, if one is kept."""
        return self._last.get(group_id)

    def put(
        self, request: AssignRequest, inputs: LagInputs, default_strategy: str, answer: Answer
    ) -> None:
        """Keep ``answer``, computed for ``request`` (from :func:`next_join`) over ``inputs``,
        unless its group's last request has been let go meanwhile."""
        if request.group_id not in self._last:
            return
        self._prepared[request.group_id] = PreparedJoin(request, inputs, default_strategy, answer)
        self.prepared += 1

    def is_prepared(self, request: AssignRequest, inputs: LagInputs) -> bool:
        """Whether ``request`` (from :func:`next_join`) is answered ahead over ``inputs``."""
        kept = self._prepared.get(request.group_id)
        return kept is not None and kept.inputs.same_as(inputs) and kept.request == request

    def take(
        self, request: AssignRequest, inputs: LagInputs, default_strategy: str
    ) -> Answer | None:
        """The prepared answer for ``request`` when it is the prepared join (module docstring)."""
        kept = self._prepared.get(request.group_id)
        if (
            kept is None
            or len(request.members) != len(kept.request.members)
            or kept.default_strategy != default_strategy
            or not kept.inputs.same_as(inputs)
        ):
            return None
        *members, newcomer = kept.request.members
        mine = {m.member_id: m for m in members}
        joiners = [m for m in request.members if m.member_id not in mine]
        if len(joiners) != 1:
            return None
        joiner = joiners[0]
        if msgspec.structs.replace(joiner, member_id=NEWCOMER) != newcomer:
            return None
        if any(m is not joiner and m != mine[m.member_id] for m in request.members):
            return None
        if _without_members(request) != _without_members(kept.request):
            return None
        self.served += 1
        return _for_joiner(kept.answer, request, joiner.member_id)

    def __len__(self) -> int:
        return len(self._prepared)


def _renamed(assignment: Assignment, joiner: str) -> Assignment:
    return {(joiner if m == NEWCOMER else m): topics for m, topics in assignment.items()}


def _for_joiner(answer: Answer, request: AssignRequest, joiner: str) -> Answer:
    """``answer`` with ``joiner`` for the newcomer, its statistics for ``request`` as it came.

    A flat answer numbers its members in its rebalance's order (by member id), where the
    newcomer's place is not the joiner's: the numbers are put in the request's order.
    """
    result = answer.result
    rebalance = rebalance_of(request, answer.lag)
    flat = result.flat
    if flat is not None:
        position = {m.member_id: i for i, m in enumerate(rebalance.members)}
        order = np.asarray(
            [position[joiner if m == NEWCOMER else m] for m in flat.member_ids],
            dtype=flat.owner.dtype,
        )
        owner = np.where(flat.owner >= 0, order[np.maximum(flat.owner, 0)], flat.owner)
        flat = dataclasses.replace(
            flat, member_ids=tuple(m.member_id for m in rebalance.members), owner=owner
        )
    renamed = AssignmentResult(
        None if flat is not None else _renamed(result.assignment, joiner),
        _renamed(result.revoked, joiner),
        result.settled_by,
        flat=flat,
    )
    return dataclasses.replace(
        answer, rebalance=rebalance, result=renamed, stats=assignment_stats(rebalance, renamed)
    )
