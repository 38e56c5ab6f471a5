"""A corpus of hostile and careless ``POST /assign`` bodies, run through the CLI and the app.

Each case is a body (bytes) and what both must answer: an HTTP status and the
error ``code`` (the CLI exits 2 with the same error JSON), or 200 with a valid
assignment. Built from what an attacker and a careless client tried: numbers
past Kafka's widths, coerced numbers, strings past Kafka's string limit, huge
partition counts, malformed JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lagassign.assign.answer import rebalance_of
from lagassign.assign.lag_sources import request_lag_source
from lagassign.assign.request import parse_assign_request
from lagassign.core.model import AssignmentResult
from lagassign.core.validity import check_assignment
from lagassign.limits import INT32_MAX, INT64_MAX, KAFKA_STRING_MAX

LONG = "x" * (KAFKA_STRING_MAX + 1)
LONGEST = "y" * KAFKA_STRING_MAX


def request(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "group_id": "orders",
        "members": [{"member_id": "c-1", "topics": ["t0"]}, {"member_id": "c-2", "topics": ["t0"]}],
        "partitions": {"t0": 3},
        "lags": {"t0": [100, 60, 50]},
    }
    body.update(changes)
    return body


def member(**changes: Any) -> dict[str, Any]:
    return {"member_id": "c-1", "topics": ["t0"], **changes}


@dataclass(frozen=True)
class Case:
    name: str
    body: bytes
    status: int
    code: str | None = None  # the error code when status is not 200

    def __str__(self) -> str:
        return self.name


def case(name: str, body: dict[str, Any] | str, status: int, code: str | None = None) -> Case:
    raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return Case(name, raw, status, code)


BAD = "invalid_request"
CORPUS: list[Case] = [
    # Numbers past Kafka's widths (issue 13, item 1).
    case("lag 2^1024", request(lags={"t0": [2**1024, 1, 1]}), 400, BAD),
    case("lag 2^63", request(lags={"t0": [2**63, 1, 1]}), 400, BAD),
    case("lags at int64 max", request(lags={"t0": [INT64_MAX] * 3}), 200),
    case("partition count 2^63", request(partitions={"t0": 2**63}, lags=None), 400, BAD),
    case("partition count 2^31", request(partitions={"t0": 2**31}, lags=None), 400, BAD),
    case("partition count -1", request(partitions={"t0": -1}, lags=None), 400, BAD),
    case("generation 2^31", request(members=[member(generation=2**31)]), 400, BAD),
    case("generation -1 (Kafka's none)", request(members=[member(generation=-1)]), 200),
    case("owned partition 2^31", request(members=[member(owned={"t0": [2**31]})]), 400, BAD),
    # A partition count within Kafka's width but past the service's cap (item 2).
    case(
        "a billion partitions",
        request(partitions={"t0": 1_000_000_000}, lags=None),
        413,
        "too_large",
    ),
    case(
        "int32 max partitions", request(partitions={"t0": INT32_MAX}, lags=None), 413, "too_large"
    ),
    # Coerced numbers (item 3).
    case("partition count true", request(partitions={"t0": True}, lags=None), 400, BAD),
    case("partition count '4'", request(partitions={"t0": "4"}, lags=None), 400, BAD),
    case(
        "partition count 2.0",
        '{"group_id":"g","members":[{"member_id":"a","topics":["t0"]}],"partitions":{"t0":2.0}}',
        400,
        BAD,
    ),
    case(
        "partition count 1e2",
        '{"group_id":"g","members":[{"member_id":"a","topics":["t0"]}],"partitions":{"t0":1e2}}',
        400,
        BAD,
    ),
    case("lag '7'", request(lags={"t0": ["7", 1, 1]}), 400, BAD),
    case("lag true", request(lags={"t0": [True, 1, 1]}), 400, BAD),
    case("lag 1.5", request(lags={"t0": [1.5, 1, 1]}), 400, BAD),
    case("generation true", request(members=[member(generation=True)]), 400, BAD),
    case("generation '7'", request(members=[member(generation="7")]), 400, BAD),
    case("owned partition '0'", request(members=[member(owned={"t0": ["0"]})]), 400, BAD),
    case("owned partition false", request(members=[member(owned={"t0": [False]})]), 400, BAD),
    case("member id 7", request(members=[member(member_id=7)]), 400, BAD),
    case("group id true", request(group_id=True), 400, BAD),
    # Strings past Kafka's string limit (item 6), and at it.
    case("group id too long", request(group_id=LONG), 400, BAD),
    case("member id too long", request(members=[member(member_id=LONG)]), 400, BAD),
    case("instance id too long", request(members=[member(group_instance_id=LONG)]), 400, BAD),
    case("rack too long", request(members=[member(rack=LONG)]), 400, BAD),
    case(
        "topic too long",
        request(members=[member(topics=[LONG])], partitions={LONG: 1}, lags=None),
        400,
        BAD,
    ),
    case("group id at the limit", request(group_id=LONGEST), 200),
    # Malformed bodies.
    case("empty body", "", 400, "invalid_json"),
    case("not JSON", "group_id=orders", 400, "invalid_json"),
    case(
        "NaN lag",
        '{"group_id":"g","members":[{"member_id":"a","topics":["t"]}],'
        '"partitions":{"t":1},"lags":{"t":[NaN]}}',
        400,
        None,
    ),
    case("deep nesting", "[" * 100_000, 400, "invalid_json"),
    case("an array", "[]", 400, BAD),
    case("no members", request(members=[]), 400, BAD),
    case("unknown field", request(extra=1), 400, BAD),
    case("null group id", request(group_id=None), 400, BAD),
    case(
        "unicode ids",
        request(group_id="ordres-é-\u2603", members=[member(member_id="\u00e9\0")]),
        200,
    ),
]


def check_valid_answer(body: bytes, answer: dict[str, Any]) -> None:
    """Fail unless ``answer`` is a valid assignment for ``body`` (the core's checker)."""
    request = parse_assign_request(body)
    rebalance = rebalance_of(request, request_lag_source(request))
    result = AssignmentResult(assignment=answer["assignment"], revoked=answer["revoked"])
    check_assignment(rebalance, result)
