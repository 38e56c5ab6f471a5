"""Rack awareness end to end: a two-node cluster in racks ``a`` and ``b``, members in both.

``deploy/local-kafka/kafka start --racks a,b`` starts node 1 (broker and controller,
``broker.rack=a``) and node 2 (broker, ``broker.rack=b``), both with lagassign's plugin
pointing at a real sidecar. The topic's replicas are placed by replica assignment:
even partitions on node 1 (rack a), odd ones on node 2 (rack b). The group has a Java
and a confluent-kafka member in each rack (``client.rack``). The plugin sends the
members' racks and the replicas' racks; the sidecar's ``balanced`` moves partitions onto
members in their replicas' racks where its rack rule allows (a swap that keeps the
group's worst lag within the slack and takes no partition from its previous owner).

Between the plugin and the sidecar sits a recording proxy (``answerer.py`` with
``forward``), so the test sees the request: it must carry every member's rack and every
partition's replica rack, and the live assignment must be exactly the pure core's
``balanced`` answer to that request (with the racks). The same request without racks,
and the same members on Kafka's ``uniform``, are shown beside it (``pytest -s``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer

from harness.poll import eventually
from lagassign.core.model import Member, make_rebalance
from lagassign.core.strategies import run_strategy
from tests.broker.answerer import Answerer, Exchange
from tests.broker.conftest import SETTLE_S, FreshTopic, PluginBroker, PluginSettings
from tests.broker.consumers import (
    JavaMember,
    Owned,
    consumers,
    each_partition_once,
    poll_until,
    produce_backlog,
    pump,
)
from tests.client.answers import member_topics, nested

pytestmark = [pytest.mark.kafka, pytest.mark.java]

RACKS = ("a", "b")
# The plugin's deadline at its maximum: this test is about racks (the proxy adds a hop).
DEADLINE_MS = 1_000
PARTITIONS = 8
# Even partitions on node 1 (rack a), odd ones on node 2 (rack b).
REPLICAS = [[1 if p % 2 == 0 else 2] for p in range(PARTITIONS)]
# Rack a's and rack b's partitions each hold 1,600 records, one hot partition each.
BACKLOG = [1_000, 1_000, 200, 200, 200, 200, 200, 200]


# The plugin calls the recording proxy; the proxy forwards to the sidecar.
PLUGIN_SETTINGS = PluginSettings(timeout_ms=DEADLINE_MS, sidecar=(), proxy=True, racks=RACKS)


def replica_racks(broker: PluginBroker, partition: int) -> set[str]:
    racks = {broker.kafka.node_racks[node] for node in REPLICAS[partition]}
    return {r for r in racks if r is not None}


def complete(topic: str, members: int) -> Callable[[Owned], bool]:
    return lambda s: len(s) == members and each_partition_once(s, topic, PARTITIONS)


def member_lags(state: Owned) -> dict[str, int]:
    return {m: sum(BACKLOG[p] for _, p in held) for m, held in state.items()}


def local_partitions(rc: PluginBroker, state: Owned, rack_of: dict[str, str]) -> set[int]:
    """The partitions owned by a member in one of their replicas' racks."""
    return {p for m, held in state.items() for _, p in held if rack_of[m] in replica_racks(rc, p)}


def rack_members(
    bootstrap: str, group: str, topic: str, assignor: str
) -> tuple[list[JavaMember], Callable[[], Any]]:
    """A Java member in each rack, started (the confluent-kafka ones come from ``consumers``)."""
    java = [JavaMember(bootstrap, group, topic, assignor, SETTLE_S * 3, rack) for rack in RACKS]

    def close() -> None:
        for member in java:
            member.close()

    return java, close


def last_answer(proxy: Answerer, member_ids: set[str]) -> Exchange | None:
    """The latest 200 the sidecar gave through the proxy for exactly these members."""
    for exchange in reversed(list(proxy.exchanges)):
        if (
            exchange.status == 200
            and {m["member_id"] for m in exchange.request["members"]} == member_ids
        ):
            return exchange
    return None


def racks_by_member(java: list[JavaMember], python: dict[str, list[Consumer]]) -> dict[str, str]:
    rack_of = {m.member_id: rack for m, rack in zip(java, RACKS, strict=True)}
    for rack, members in python.items():
        rack_of |= {c.memberid(): rack for c in members}
    return rack_of


def core_balanced(request: dict[str, Any], with_racks: bool) -> Owned:
    """The pure core's ``balanced`` answer to the plugin's request (lags: the backlog)."""
    members = [
        Member(
            member_id=m["member_id"],
            topics=tuple(member_topics(request)[m["member_id"]]),
            group_instance_id=m.get("group_instance_id"),
            owned={t: tuple(ps) for t, ps in m.get("owned", {}).items()},
            rack=m.get("rack") if with_racks else None,
        )
        for m in request["members"]
    ]
    (topic_id,) = request["partitions"]
    rebalance = make_rebalance(
        members,
        request["partitions"],
        {topic_id: BACKLOG},
        request.get("partition_racks") if with_racks else None,
    )
    answer = run_strategy("balanced", rebalance).assignment
    return {m: {(topic_id, p) for t, ps in a.items() for p in ps} for m, a in answer.items()}


def by_topic_id(state: Owned, topic: str, topic_id: str) -> Owned:
    return {m: {(topic_id, p) for t, p in held if t == topic} for m, held in state.items()}


def describe(state: Owned, rack_of: dict[str, str]) -> str:
    lags = member_lags(state)
    return ", ".join(
        f"{rack_of[m]}:{sorted(p for _, p in state[m])}={lags[m]}"
        for m in sorted(state, key=lambda m: (rack_of[m], sorted(state[m])))
    )


def test_partitions_go_to_members_in_their_replicas_racks(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    topic_id = fresh_topic.topic_id
    assert plugin_broker.kafka.node_racks == {1: "a", 2: "b"}
    produce_backlog(bootstrap, topic, BACKLOG)
    total = 2 * len(RACKS)

    # lagassign: a Java member in rack a starts the group cold (uniform: the sidecar does
    # not know it yet); once the sidecar has indexed it, the three others join.
    first = JavaMember(bootstrap, group, topic, "lagassign", SETTLE_S * 3, RACKS[0])
    java = [first]
    try:
        alone = poll_until([], complete(topic, 1), SETTLE_S, "the cold start", java=java)

        def indexed() -> bool:
            body = plugin_broker.sidecar.group(group)
            return body is not None and {m["member_id"] for m in body["members"]} == set(alone)

        eventually(indexed, 60, "the sidecar indexes the first member")
        java.append(JavaMember(bootstrap, group, topic, "lagassign", SETTLE_S * 3, RACKS[1]))
        with (
            consumers(bootstrap, group, topic, 1, "lagassign", RACKS[0]) as in_a,
            consumers(bootstrap, group, topic, 1, "lagassign", RACKS[1]) as in_b,
        ):

            def answered_and_live() -> dict[str, Any] | None:
                state = pump([*in_a, *in_b], java)
                if not complete(topic, total)(state):
                    return None
                exchange = last_answer(plugin_broker.answerer, set(state))
                if exchange is None:
                    return None
                answer = nested(json.loads(exchange.reply))
                given = {m: {(t, p) for t, ps in a.items() for p in ps} for m, a in answer.items()}
                if given != by_topic_id(state, topic, topic_id):
                    return None
                return {"state": state, "exchange": exchange, "answer": given}

            try:
                found = eventually(answered_and_live, SETTLE_S, "the sidecar's answer is live")
            except TimeoutError as late:
                seen = [
                    (e.status, len(e.request["members"]), e.reply[:120])
                    for e in plugin_broker.answerer.exchanges
                ]
                raise TimeoutError(f"{late}; the proxy saw {seen}") from None
            ours: Owned = found["state"]
            exchange: Exchange = found["exchange"]
            rack_of = racks_by_member(java, {"a": in_a, "b": in_b})
            body = plugin_broker.sidecar.group(group)
    finally:
        for member in java:
            member.close()
    assert body is not None
    assert body["last_answers"][0]["strategy"] == "balanced"
    # The plugin sent every member's rack (Java and librdkafka alike) and the replica racks.
    request = exchange.request
    assert {m["member_id"]: m.get("rack") for m in request["members"]} == rack_of
    assert request["partition_racks"] == {
        topic_id: [sorted(replica_racks(plugin_broker, p)) for p in range(PARTITIONS)]
    }
    # What the sidecar answered, now live, is the core's balanced answer with the racks.
    assert found["answer"] == core_balanced(request, with_racks=True)
    without = core_balanced(request, with_racks=False)
    without_local = local_partitions(
        plugin_broker, {m: {(topic, p) for _, p in held} for m, held in without.items()}, rack_of
    )
    our_local = local_partitions(plugin_broker, ours, rack_of)
    our_worst = max(member_lags(ours).values())

    # The same members on Kafka's own uniform, beside it.
    uniform_group = f"{group}-uniform"
    java, close = rack_members(bootstrap, uniform_group, topic, "uniform")
    try:
        with (
            consumers(bootstrap, uniform_group, topic, 1, "uniform", RACKS[0]) as in_a,
            consumers(bootstrap, uniform_group, topic, 1, "uniform", RACKS[1]) as in_b,
        ):

            def uniform_settled(s: Owned) -> bool:
                counts = [len(held) for held in s.values()]
                return complete(topic, total)(s) and max(counts) - min(counts) <= 1

            theirs = poll_until(
                [*in_a, *in_b], uniform_settled, SETTLE_S, "uniform settled", java=java
            )
            uniform_rack_of = racks_by_member(java, {"a": in_a, "b": in_b})
    finally:
        close()
    their_local = local_partitions(plugin_broker, theirs, uniform_rack_of)
    their_worst = max(member_lags(theirs).values())

    print(
        f"\nracks: lagassign {len(our_local)}/{PARTITIONS} partitions in a replica's rack, "
        f"worst member lag {our_worst} [{describe(ours, rack_of)}]"
        f"\nracks: balanced on the same request without racks {len(without_local)}/{PARTITIONS}"
        f"\nracks: uniform   {len(their_local)}/{PARTITIONS} partitions in a replica's rack, "
        f"worst member lag {their_worst} [{describe(theirs, uniform_rack_of)}]"
    )
    assert len(our_local) >= len(without_local)
    assert our_worst <= their_worst
