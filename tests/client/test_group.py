"""The group as the leader sees it: partition counts from metadata, the request body."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lagassign_client.errors import IncompleteMetadata
from lagassign_client.wire import codec as wire
from lagassign_client.wire.group import GroupView, Subscriber, partition_counts
from lagassign_client.wire.userdata import SubscriptionUserData

METADATA = {"t0": {0, 1, 2}, "t1": {0, 1}}


def subscriber(
    member_id: str,
    *topics: str,
    owned: dict[str, tuple[int, ...]] | None = None,
    generation: int | None = None,
    instance_id: str | None = None,
    rack: str | None = None,
) -> Subscriber:
    user_data = SubscriptionUserData(owned or {}, generation, instance_id, rack)
    return Subscriber(member_id, tuple(topics), user_data)


def test_counts_come_from_the_leaders_metadata() -> None:
    assert partition_counts(["t1", "t0", "t0"], METADATA.get) == {"t0": 3, "t1": 2}


def test_a_topic_without_metadata_is_left_out() -> None:
    assert partition_counts(["t0", "new"], METADATA.get) == {"t0": 3}


def test_no_topic_with_metadata_is_incomplete() -> None:
    with pytest.raises(IncompleteMetadata, match="no subscribed topic"):
        partition_counts(["new"], METADATA.get)


def test_a_gap_in_partition_ids_is_incomplete() -> None:
    with pytest.raises(IncompleteMetadata, match="'t0'"):
        partition_counts(["t0"], {"t0": {0, 2}}.get)


def on_the_wire(body: dict[str, Any]) -> Any:
    """The request as the sidecar reads it."""
    return json.loads(wire.dumps(body))


def test_the_request_body_follows_the_http_contract() -> None:
    view = GroupView(
        group_id="orders",
        subscribers=(
            subscriber("c-2", "t1", "t0", owned={"t0": (0, 2)}, generation=7, rack="a"),
            subscriber("c-1", "t0", instance_id="web-1"),
        ),
        partitions={"t0": 3, "t1": 2},
    )
    assert on_the_wire(view.request_body("balanced")) == {
        "group_id": "orders",
        "subscriptions": [["t0", "t1"], ["t0"]],
        "members": [
            {
                "member_id": "c-2",
                "group_instance_id": None,
                "subscription": 0,
                "owned": {"t0": [0, 2]},
                "generation": 7,
                "rack": "a",
            },
            {
                "member_id": "c-1",
                "group_instance_id": "web-1",
                "subscription": 1,
                "owned": {},
                "generation": None,
                "rack": None,
            },
        ],
        "partitions": {"t0": 3, "t1": 2},
        "protocol": "eager",
        "answer_form": "packed",  # whatever is installed
        "strategy": "balanced",
    }


def test_members_with_one_subscription_share_it() -> None:
    view = GroupView(
        "g",
        (
            subscriber("c-1", "t1", "t0"),
            subscriber("c-2", "t2"),
            subscriber("c-3", "t0", "t1"),
            subscriber("c-4", "t0", "t1", "new"),
            subscriber("c-5", "t2"),
        ),
        {"t0": 3, "t1": 2, "t2": 1},
    )
    body = view.request_body(None)
    assert on_the_wire(body)["subscriptions"] == [["t0", "t1"], ["t2"]]
    assert [m["subscription"] for m in body["members"]] == [0, 1, 0, 0, 1]
    assert all("topics" not in m for m in body["members"])


def test_no_strategy_lets_the_sidecar_choose() -> None:
    view = GroupView("g", (subscriber("c-1", "t0"),), {"t0": 3})
    assert "strategy" not in view.request_body(None)


def test_the_library_reported_static_id_wins_over_the_user_data() -> None:
    s = Subscriber("c-1", ("t0",), SubscriptionUserData(instance_id="old"), "web-1")
    assert s.instance_id() == "web-1"


def test_owned_partitions_outside_the_metadata_are_not_sent() -> None:
    view = GroupView(
        "g",
        (subscriber("c-1", "t0", owned={"t0": (1, 5), "gone": (0,), "t1": (0,)}),),
        {"t0": 3, "t1": 2},
    )
    (member,) = on_the_wire(view.request_body(None))["members"]
    assert member["owned"] == {"t0": [1], "t1": [0]}


def test_a_member_whose_topics_have_no_metadata_is_not_sent() -> None:
    view = GroupView("g", (subscriber("c-1", "t0"), subscriber("c-2", "new")), {"t0": 3})
    body = view.request_body(None)
    assert [m["member_id"] for m in body["members"]] == ["c-1"]
    assert body["partitions"] == {"t0": 3}
    assert view.member_topics() == {"c-1": {"t0"}, "c-2": set()}
