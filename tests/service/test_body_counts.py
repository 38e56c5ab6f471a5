"""A large ``POST /assign`` body is counted before it is decoded: over the caps, 413 at
little memory (``lagassign.assign.request_counts``)."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from lagassign.assign.request import parse_assign_request
from lagassign.assign.request_counts import COUNT_BODY_BYTES
from lagassign.errors import BadRequest, TooLarge
from lagassign.limits import RequestLimits

LIMITS = RequestLimits(max_members=100, max_partitions=1_000, max_body_bytes=64 * 1024 * 1024)


def filled(head: str, item: str, tail: str, count: int) -> bytes:
    return (head + ",".join([item] * count) + tail).encode()


def peak_of(call: Callable[[], Any]) -> int:
    """Peak bytes allocated by Python while ``call`` runs (its exception swallowed)."""
    tracemalloc.start()
    try:
        call()
    except (TooLarge, BadRequest):
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def tiny_members(count: int) -> bytes:
    return filled(
        '{"group_id":"g","partitions":{"t":1},"members":[',
        '{"member_id":"","topics":[]}',
        "]}",
        count,
    )


def test_too_many_members_are_refused_before_they_are_built() -> None:
    body = tiny_members(200_000)
    with pytest.raises(TooLarge, match=r"members: 200000 members exceed the limit of 100"):
        parse_assign_request(body, LIMITS)
    # Each member would cost hundreds of bytes decoded; counted, a few dozen at most.
    assert peak_of(lambda: parse_assign_request(body, LIMITS)) < 2 * len(body)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            filled(
                '{"group_id":"g","partitions":{"t":4},"members":[{"member_id":"a","topics":["t"],'
                '"owned":{"t":[',
                "0",
                "]}}]}",
                100_000,
            ),
            "members[*].owned",
        ),
        (
            filled(
                '{"group_id":"g","partitions":{"t":1},"members":[{"member_id":"a","topics":["t"]}],'
                '"partition_racks":{"t":[',
                "[]",
                "]}}",
                50_000,
            ),
            "partition_racks",
        ),
        (
            filled(
                '{"group_id":"g","partitions":{"t":1},"members":[{"member_id":"a","topics":["t"]}],'
                '"lags":{"u":[',
                "7",
                "]}}",
                100_000,
            ),
            "lags",
        ),
        (
            filled(
                '{"group_id":"g","partitions":{"t":1},"members":[{"member_id":"a","topics":[',
                '"t"',
                "]}]}",
                30_000,
            ),
            "members[*].topics",
        ),
        (
            filled(
                '{"group_id":"g","partitions":{"t":1},"subscriptions":[[',
                '"t"',
                ']],"members":[{"member_id":"a","subscription":0}]}',
                30_000,
            ),
            "members[*].topics",
        ),
    ],
)
def test_a_field_holding_more_than_the_caps_allow_is_refused_unbuilt(
    body: bytes, field: str
) -> None:
    assert len(body) > COUNT_BODY_BYTES
    with pytest.raises(TooLarge) as refused:
        parse_assign_request(body, LIMITS)
    assert refused.value.message.startswith(f"{field}: ")
    assert peak_of(lambda: parse_assign_request(body, LIMITS)) < 2 * len(body)


def test_a_large_request_within_the_caps_is_parsed() -> None:
    topics = [f"topic-{i}" for i in range(10)]
    body = {
        "group_id": "g",
        "members": [
            {
                "member_id": f"member-{i:03d}" + "x" * 600,
                "topics": topics,
                "owned": {topics[i % 10]: [i // 10]},
            }
            for i in range(100)
        ],
        "partitions": {t: 100 for t in topics},
        "lags": {t: list(range(100)) for t in topics},
    }
    raw = json.dumps(body).encode()
    assert len(raw) > COUNT_BODY_BYTES
    request = parse_assign_request(raw, LIMITS)
    assert len(request.members) == 100


def test_a_large_body_that_is_not_json_is_refused_without_the_slow_parser() -> None:
    body = tiny_members(10_000)[:-1]
    with pytest.raises(BadRequest, match="not valid JSON"):
        parse_assign_request(body, LIMITS)
