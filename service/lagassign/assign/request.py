"""Parsing a ``POST /assign`` request, and its size caps.

:func:`parse_assign_request` turns raw JSON bytes into an :class:`AssignRequest`
(the schema: :mod:`lagassign.assign.request_schema`) with the fast decoder
(:mod:`lagassign.assign.request_wire`). A body it refuses is run through the
pydantic schema for the error, which becomes :class:`~lagassign.errors.BadRequest`
with a message that names the first bad field as ``members[2].topics``.
:func:`check_request_limits` then applies the size caps (413).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from lagassign.assign.request_counts import Body, check_body_counts
from lagassign.assign.request_schema import AssignRequest, MemberIn
from lagassign.assign.request_wire import DecodeFailure, decode_request, wire_problem
from lagassign.errors import BadRequest, InvalidJson, TooLarge
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
        request = decode_request(raw)
    except DecodeFailure as exc:
        raise refusal(raw, wire_problem(exc)) from None
    if not request.group_id and not request.topic_ids:
        problem = "required and not empty (only a topic-id request, topic_ids: true, omits it)"
        raise BadRequest(f"group_id: {problem}", [{"field": "group_id", "problem": problem}])
    return request


def refusal(raw: Body | str, fallback: dict[str, str]) -> BadRequest:
    """The error of a body the fast decoder refused, in the schema's words.

    The pydantic schema names every problem (up to 20); when it finds none, the
    decoder's own ``fallback`` problem is the answer (the decoder is never more
    lenient than the schema).
    """
    try:
        AssignRequest.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_context=False, include_input=False)
        if errors and errors[0]["type"] == "json_invalid":
            return InvalidJson(f"the body is not valid JSON: {errors[0]['msg']}")
        details: list[dict[str, Any]] = [
            {"field": field_path(tuple(e["loc"])), "problem": e["msg"]} for e in errors[:20]
        ]
        first = details[0]
        return BadRequest(f"{first['field']}: {first['problem']}", details)
    return BadRequest(f"{fallback['field']}: {fallback['problem']}", [fallback])


def distinct_subscriptions(request: AssignRequest) -> list[list[str]]:
    """Each topic list of the request's members once (members of the compact form share one)."""
    return list({id(m.topics): m.topics for m in request.members}.values())


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
        cost += len(member.topics)
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
