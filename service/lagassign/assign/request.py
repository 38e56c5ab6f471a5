"""Parsing a ``POST /assign`` request, and its size caps.

:func:`parse_assign_request` turns raw JSON bytes into an :class:`AssignRequest`
(the schema: :mod:`lagassign.assign.request_schema`), decoded by msgspec in one
pass; a body it refuses becomes :class:`~lagassign.errors.BadRequest` naming the
bad field as ``members[2].topics`` (:mod:`lagassign.assign.request_errors`). The
compact form is resolved here: a member's ``subscription`` is replaced by the
topic list it points at in ``subscriptions`` (one list shared by every member that
names it, never copied), so the rest of the service reads ``topics`` only.
:func:`check_request_limits` then applies the size caps (413).
"""

from __future__ import annotations

from typing import cast

from lagassign.assign.request_counts import Body, check_body_counts
from lagassign.assign.request_errors import DecodeFailure, bad_field, refusal
from lagassign.assign.request_schema import DECODER, AssignRequest, MemberIn
from lagassign.errors import TooLarge
from lagassign.limits import RequestLimits

__all__ = [
    "AssignRequest",
    "MemberIn",
    "check_request_limits",
    "distinct_subscriptions",
    "parse_assign_request",
    "partition_total",
    "request_cost",
    "subscribed_topic_names",
    "topics_of",
]


def field_path(loc: tuple[int | str, ...]) -> str:
    """``("members", 2, "topics")`` -> ``members[2].topics``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "body"


def parse_assign_request(raw: Body | str, limits: RequestLimits | None = None) -> AssignRequest:
    """Parse and type-check a request; raise BadRequest naming the first bad field.

    With ``limits``, a large body's counts are checked first, before anything is
    built from it (:mod:`lagassign.assign.request_counts`): 413 for a body that
    holds more than the caps allow, whatever its fields decode to.
    """
    if limits is not None and not isinstance(raw, str):
        check_body_counts(raw, limits)
    try:
        request = DECODER.decode(raw)
    except DecodeFailure as exc:
        raise refusal(exc, raw) from None
    subscriptions = request.subscriptions or []
    for i, member in enumerate(request.members):
        resolve_subscription(i, member, subscriptions)
    if not request.group_id and not request.topic_ids:
        raise bad_field(
            "group_id",
            "required and not empty (only a topic-id request, topic_ids: true, omits it)",
        )
    return request


def resolve_subscription(i: int, member: MemberIn, subscriptions: list[list[str]]) -> None:
    """Member ``i`` given its topics: its own, or the list its ``subscription`` names."""
    index = member.subscription
    given = isinstance(member.topics, list)
    if index is None:
        if not given:
            raise bad_field(
                f"members[{i}].topics",
                "Field required (or `subscription`, an index into `subscriptions`)",
            )
        return
    if given:
        raise bad_field(f"members[{i}].subscription", "give `topics` or `subscription`, not both")
    if index >= len(subscriptions):
        raise bad_field(
            f"members[{i}].subscription",
            f"{index} is out of range: `subscriptions` has {len(subscriptions)} lists",
        )
    member.topics = subscriptions[index]


def topics_of(member: MemberIn) -> list[str]:
    """A parsed member's topics (parsing gave every member its list)."""
    return cast(list[str], member.topics)


def distinct_subscriptions(request: AssignRequest) -> list[list[str]]:
    """Each topic list of the request's members once (members of the compact form share one)."""
    return list({id(m.topics): topics_of(m) for m in request.members}.values())


def subscribed_topic_names(request: AssignRequest) -> set[str]:
    """Every topic some member subscribes to."""
    found: set[str] = set()
    for topics in distinct_subscriptions(request):
        found.update(topics)
    return found


def partition_total(request: AssignRequest) -> int:
    """Partitions of every topic the request lists, in all."""
    return sum(request.partitions.values())


def request_cost(request: AssignRequest) -> int:
    """The work a request asks for, in units of about a microsecond of Python each.

    Not the partition count alone: a compact request of 5,000 members sharing 2,000
    one-partition topics has 2,000 partitions but 10 million (member, topic) pairs
    for a strategy to walk. Counts partitions, every member's listed topics (a
    shared list once per member that names it), owned partition numbers, rack
    entries and lag values. Reads each member once, never a partition.
    """
    cost = partition_total(request) + len(request.members)
    for member in request.members:
        cost += len(topics_of(member))
        for owned in member.owned.values():
            cost += len(owned)
    for lists in (request.partition_racks or {}).values():
        cost += len(lists)
    for values in (request.lags or {}).values():
        cost += len(values)
    return cost


def check_request_limits(request: AssignRequest, limits: RequestLimits) -> None:
    """TooLarge (413) for a request over ``limits``' members or partitions."""
    members = len(request.members)
    if members > limits.max_members:
        raise TooLarge(
            f"members: {members} members exceed the limit of {limits.max_members} "
            "(LAGASSIGN_MAX_MEMBERS)"
        )
    partitions = partition_total(request)
    if partitions > limits.max_partitions:
        raise TooLarge(
            f"partitions: {partitions} partitions exceed the limit of "
            f"{limits.max_partitions} (LAGASSIGN_MAX_PARTITIONS)"
        )
