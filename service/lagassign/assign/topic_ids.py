"""The topic-id form of ``POST /assign``: what lagassign's broker plugin sends.

The broker's assignor (KIP-848) is not told which group it assigns and names
topics by Kafka topic id. Such a request (``topic_ids: true``, usually no
``group_id``) is turned into an ordinary one, from the lag view's cached state
only (the coordinator thread that sent it waits on the answer, so nothing here
calls Kafka):

- the group: through the member index (:mod:`lagassign.lagview.consumer_index`);
  members not indexed yet follow the ones that are; none known -> 404
  ``unknown_group``; known members in two groups -> 409 ``ambiguous_group``;
- every topic id -> its name (cluster metadata); an unknown id -> 404 ``unknown_topic``.

The answer is computed exactly as for an ordinary request, then keyed back by
topic id (:func:`keyed_by_topic_id`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from lagassign.assign.request import AssignRequest, MemberIn, distinct_subscriptions, topics_of
from lagassign.errors import AmbiguousGroup, UnknownTopicId, UnresolvedGroup
from lagassign.lagview.consumer_index import ConsumerGroupIndex


@dataclass(frozen=True, slots=True)
class NamedRequest:
    """A topic-id request with its group and topic names filled in, and the way back."""

    request: AssignRequest
    topic_ids: Mapping[str, str]  # topic name -> topic id


def resolve_topic_ids(request: AssignRequest, index: ConsumerGroupIndex | None) -> NamedRequest:
    """The ordinary request a topic-id request stands for (see the module docstring)."""
    group_id = request.group_id
    if not group_id:
        group_id = resolve_group(request, index)
    names: dict[str, str] = {}
    for topic_id in _topic_ids_in(request):
        name = index.topic_name(topic_id) if index is not None else None
        if name is None:
            raise UnknownTopicId(
                f"topic id {topic_id!r} is not known to the lag view yet",
                {"topic_id": topic_id, "group_id": group_id},
            )
        names[topic_id] = name
    named = msgspec.structs.replace(
        request,
        group_id=group_id,
        topic_ids=False,
        members=_named_members(request.members, names),
        subscriptions=(
            None
            if request.subscriptions is None
            else [[names[t] for t in topics] for topics in request.subscriptions]
        ),
        partitions={names[t]: n for t, n in request.partitions.items()},
        partition_racks=(
            None
            if request.partition_racks is None
            else {names[t]: r for t, r in request.partition_racks.items()}
        ),
        lags=None if request.lags is None else {names[t]: v for t, v in request.lags.items()},
    )
    return NamedRequest(named, {name: topic_id for topic_id, name in names.items()})


def resolve_group(request: AssignRequest, index: ConsumerGroupIndex | None) -> str:
    member_ids = [m.member_id for m in request.members]
    if index is None:
        raise UnresolvedGroup(
            "no lag view: a topic-id request cannot be resolved to a group",
            {"members": len(member_ids)},
        )
    found = index.resolve(member_ids)
    if found.group_id is not None:
        return found.group_id
    if not found.groups:
        raise UnresolvedGroup(
            f"none of the {len(member_ids)} members is known to the lag view yet",
            {"members": len(member_ids)},
        )
    raise AmbiguousGroup(
        f"the members belong to {len(found.groups)} groups: {', '.join(found.groups)}",
        {"groups": list(found.groups)},
    )


def keyed_by_topic_id(payload: dict[str, Any], topic_ids: Mapping[str, str]) -> dict[str, Any]:
    """An answer's ``assignment`` and ``revoked`` keyed by topic id instead of name."""
    out = dict(payload)
    for key in ("assignment", "revoked"):
        by_member = payload.get(key)
        if isinstance(by_member, Mapping):
            out[key] = {
                member: {topic_ids.get(t, t): ps for t, ps in topics.items()}
                for member, topics in by_member.items()
            }
    return out


def _topic_ids_in(request: AssignRequest) -> list[str]:
    found = set(request.partitions)
    for topics in distinct_subscriptions(request):
        found.update(topics)
    for m in request.members:
        found.update(m.owned)
    found.update(request.partition_racks or {})
    found.update(request.lags or {})
    return sorted(found)


def _named_members(members: list[MemberIn], names: Mapping[str, str]) -> list[MemberIn]:
    """The members with topic names; members sharing one topic list still share one."""
    shared: dict[int, list[str]] = {}
    out = []
    for member in members:
        topics = shared.get(id(member.topics))
        if topics is None:
            topics = shared[id(member.topics)] = [names[t] for t in topics_of(member)]
        out.append(
            msgspec.structs.replace(
                member, topics=topics, owned={names[t]: ps for t, ps in member.owned.items()}
            )
        )
    return out
