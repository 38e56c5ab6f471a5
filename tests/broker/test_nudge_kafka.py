"""A stable consumer-protocol group whose lag turns skewed is rebalanced by the sidecar's nudge.

A real broker started with lagassign's plugin calls a real ``lagassign serve``
(``LAGASSIGN_NUDGE_CONSUMER_GROUPS=true``), which starts cold, before the group
exists. Two confluent-kafka members (``group.protocol=consumer``,
``group.remote.assignor=lagassign``) form a group on an empty topic and settle.
Then a backlog lands on both partitions of one member only (nobody commits, so
the lag stays; the sidecar counts it with the ``earliest`` reset policy). Nothing
in the clients changes, so Kafka would keep the assignment for ever; the advice
says a rebalance would pay, and the sidecar's own member joins and leaves the
group: the group epoch moves twice, the plugin answers, the live assignment
becomes the sidecar's last answer (one hot partition each), the members keep
consuming, and one nudge joined (an attempt just before it may find the group's epochs
moved a moment ago and not join: counted by its outcome).

Two more tests call the nudge directly (:func:`lagassign.lagview.kafka.nudge.nudge`, through
the lag view's own clients) on a stable group with no lag (the sidecar's advice never
nudges it): two replicas' nudgers, each with what its last refresh saw of the group,
and only the first joins; and a nudge that joins while the group's
``consumer.assignment.interval.ms`` (a group config, 15 s) has not passed since the
broker's last computation, so the broker does not recompute within the nudge's wait
(``not_recomputed``) and never computes the join's epoch at all.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import (  # type: ignore[attr-defined]  # re-exported, not declared
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ResourceType,
)

from harness.poll import eventually
from lagassign.groups.nudger import Epochs, EpochWatch
from lagassign.lagview.kafka.clients import KafkaClients
from lagassign.lagview.kafka.groups import GroupReader
from lagassign.lagview.kafka.nudge import NudgeResult, nudge
from tests.broker.conftest import SETTLE_S, FreshTopic, PluginBroker, PluginSettings
from tests.broker.consumers import (
    Owned,
    consumers,
    each_partition_once,
    owned,
    poll_until,
    pump,
    reported_owned,
)

pytestmark = [pytest.mark.kafka]

DEADLINE_MS = 500
PARTITIONS = 4
HOT = 2_000


PLUGIN_SETTINGS = PluginSettings(
    timeout_ms=DEADLINE_MS,
    sidecar=(
        ("LAGASSIGN_LAG_MODEL", "backlog"),
        ("LAGASSIGN_NUDGE_CONSUMER_GROUPS", "true"),
        ("LAGASSIGN_ADVICE_HOLD_S", "2"),
        ("LAGASSIGN_ADVICE_COOLDOWN_S", "5"),
    ),
)


class Reading:
    """The members, polled in turn; every record they return is kept by (member, partition)."""

    def __init__(self, members: list[Consumer]) -> None:
        self.members = members
        self.read: dict[bytes, list[tuple[str, int]]] = {}

    def pump(self, seconds: float) -> Owned:
        """Poll every member for about ``seconds`` (a bounded number of rounds), then
        what each owns."""
        rounds = max(1, int(seconds / (0.05 * len(self.members))))
        for _ in range(rounds):
            for consumer in self.members:
                for message in consumer.consume(500, 0.05):
                    if message.error() is not None:
                        continue
                    value, partition = message.value(), message.partition()
                    assert isinstance(value, bytes)
                    assert partition is not None
                    self.read.setdefault(value, []).append((consumer.memberid(), partition))
        return owned(self.members)


def produce(bootstrap: str, topic: str, counts: dict[int, int], tag: str) -> set[bytes]:
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    values: set[bytes] = set()
    for partition, count in counts.items():
        for n in range(count):
            value = f"{tag}:{partition}:{n}".encode()
            producer.produce(topic, value=value, partition=partition)
            values.add(value)
        producer.poll(0)
    assert producer.flush(60) == 0
    return values


def nudges_metric(text: str, group: str) -> dict[str, float]:
    pattern = re.compile(
        r'^lagassign_nudges_total\{group="' + re.escape(group) + r'",outcome="([a-z_]+)"\} (\S+)$',
        re.MULTILINE,
    )
    return {outcome: float(value) for outcome, value in pattern.findall(text)}


def test_a_stable_group_whose_lag_turns_skewed_is_rebalanced_by_the_nudge(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    with consumers(bootstrap, group, topic, 2, "lagassign") as members:
        reading = Reading(members)

        def settled() -> Owned | None:
            state = reading.pump(0.5)
            counts = [len(held) for held in state.values()]
            if (
                len(state) == 2
                and each_partition_once(state, topic, PARTITIONS)
                and counts == [2, 2]
            ):
                return state
            return None

        state = eventually(settled, SETTLE_S, "the group settles, two partitions each")

        def stable_in_sidecar() -> dict[str, Any] | None:
            now = reading.pump(0.3)
            body = plugin_broker.group(group)
            if body is None or body["header"]["state"] != "Stable" or now != state:
                return None
            return body if reported_owned(body) == state else None

        before = eventually(stable_in_sidecar, 60, "the sidecar sees the stable group")
        epoch_before = before["header"]["group_epoch"]
        assert before["header"]["assignment_strategy"] == "lagassign"
        assert before["advice"]["nudges"] == 0
        assert nudges_metric(plugin_broker.metrics(), group) == {}

        # The backlog lands on both partitions of one member: it now holds all the lag.
        hot_member = next(m for m, held in state.items() if (topic, 0) in held)
        hot = sorted(p for _, p in state[hot_member])
        produce(bootstrap, topic, {p: HOT for p in hot}, "hot")

        def rebalanced() -> dict[str, Any] | None:
            now = reading.pump(0.5)
            body = plugin_broker.group(group)
            if body is None or body["header"]["group_epoch"] < epoch_before + 2:
                return None
            if body["header"]["state"] != "Stable" or reported_owned(body) != now:
                return None
            if any(len({p for _, p in held} & set(hot)) != 1 for held in now.values()):
                return None
            if body["live_vs_last_answer"]["status"] != "matches":
                return None
            return body

        after = eventually(rebalanced, SETTLE_S, "the nudge rebalances the group by lag")
        epoch_after = after["header"]["group_epoch"]
        advice = after["advice"]
        print(
            f"\nnudge: group epoch {epoch_before} -> {epoch_after}; "
            f"last nudge: {advice['last_nudge']}; answers: {after['last_answers'][:3]}"
        )
        # One nudge joined. An attempt before it may have found the group's epochs moved a
        # moment ago (the members settling from a cold start; seen: "recomputed_recently in
        # 0.0 s: its epochs moved 4.9 s ago") and not joined; `nudges` counts every attempt.
        metric = nudges_metric(plugin_broker.metrics(), group)
        assert metric.get("nudged") == 1.0, metric
        assert set(metric) <= {"nudged", "recomputed_recently"}, metric
        assert advice["nudges"] == sum(metric.values()), (advice, metric)
        assert advice["last_nudge"].startswith("nudged")
        # The sidecar's last answer is the live assignment: two members, one hot partition each.
        last = after["last_answers"][0]
        assert last["members"] == 2
        assert last["max_lag"] == HOT
        # Every epoch the nudge caused was computed by lagassign's plugin.
        computed = dict(plugin_broker.assignments(group))
        assert all(
            computed.get(e) == "lagassign" for e in range(epoch_before + 1, epoch_after + 1)
        ), computed

        # The members keep consuming: new records on every partition reach their owners.
        live = owned(members)
        owner = {p: m for m, held in live.items() for _, p in held}
        fresh = produce(bootstrap, topic, dict.fromkeys(range(PARTITIONS), 10), "after")

        def consumed() -> bool:
            reading.pump(0.5)
            return all(v in reading.read for v in fresh)

        eventually(consumed, SETTLE_S, "the records produced after the nudge are consumed")
        for value in fresh:
            partition = int(value.split(b":")[1])
            assert {m for m, p in reading.read[value]} == {owner[partition]}, value

        # Balanced now: the advice says so at a later refresh, and no second nudge followed.
        def calm() -> dict[str, Any] | None:
            reading.pump(0.3)
            body = plugin_broker.group(group)
            if body is None or body["advice"]["as_of"] <= advice["as_of"]:
                return None
            return body if not body["advice"]["advised"] else None

        quiet = eventually(calm, 60, "the advice no longer advises a rebalance")
        assert quiet["advice"]["nudges"] == advice["nudges"]
        assert quiet["header"]["group_epoch"] == epoch_after


T = TypeVar("T")
#: The group config that spaces the broker's computations of a group's target assignment.
ASSIGNMENT_INTERVAL = "consumer.assignment.interval.ms"


def with_groups(bootstrap: str, step: Callable[[GroupReader], Awaitable[T]]) -> T:
    """``step`` on the group reader of a lag view's own clients, opened for it."""
    clients = KafkaClients(bootstrap, request_timeout_s=5.0)

    async def go() -> T:
        try:
            return await step((await clients.ensure()).groups)
        finally:
            await clients.drop()

    return asyncio.run(go())


def epochs_of(bootstrap: str, group: str) -> Epochs:
    async def describe(groups: GroupReader) -> Epochs:
        epochs = Epochs.of(await groups.describe_consumer_group(group))
        assert epochs is not None
        return epochs

    return with_groups(bootstrap, describe)


@contextmanager
def stable_group(fresh_topic: FreshTopic) -> Iterator[list[Consumer]]:
    """Two members on ``uniform`` holding two partitions each, no lag: the sidecar's advice
    never nudges them; their heartbeats run in librdkafka's threads meanwhile."""
    topic = fresh_topic.topic
    with consumers(fresh_topic.bootstrap, fresh_topic.group, topic, 2, "uniform") as members:

        def settled(state: Owned) -> bool:
            return len(state) == 2 and each_partition_once(state, topic, PARTITIONS)

        poll_until(members, settled, SETTLE_S, "the group settles")
        yield members


def test_of_two_replicas_nudging_one_group_only_the_first_joins(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, group = fresh_topic.bootstrap, fresh_topic.group
    with stable_group(fresh_topic):
        # Each replica's last refresh saw the same epochs; both are advised now.
        seen = epochs_of(bootstrap, group)
        replicas = [EpochWatch(), EpochWatch()]
        for watch in replicas:
            watch.saw(group, seen, time.monotonic())

        def replica_nudges(watch: EpochWatch) -> NudgeResult:
            unless = watch.before_nudge(group, 30.0, time.monotonic)
            result = with_groups(bootstrap, lambda groups: nudge(groups, group, unless=unless))
            watch.nudged(group, result)
            return result

        first = replica_nudges(replicas[0])
        assert first.outcome == "nudged", first
        after_first = epochs_of(bootstrap, group)
        second = replica_nudges(replicas[1])
        print(f"\nfirst: {first}\nsecond: {second}")
        assert second.outcome == "recomputed_recently", second
        assert second.detail.startswith(
            f"its epochs moved since the last refresh (group epoch {seen.group} -> "
        ), second.detail
        assert second.epoch_joined is None
        # The second never joined: the group epoch is where the first's leave put it.
        assert after_first.group == seen.group + 2
        assert epochs_of(bootstrap, group).group == after_first.group


def test_a_nudge_within_the_groups_assignment_interval_is_not_recomputed(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, group = fresh_topic.bootstrap, fresh_topic.group
    admin = AdminClient({"bootstrap.servers": bootstrap})
    interval = ConfigEntry(
        ASSIGNMENT_INTERVAL, "15000", incremental_operation=AlterConfigOpType.SET
    )
    resource = ConfigResource(ResourceType.GROUP, group, incremental_configs=[interval])
    with stable_group(fresh_topic) as members:
        for future in admin.incremental_alter_configs([resource]).values():
            future.result(timeout=60)

        def in_force() -> bool:
            (described,) = admin.describe_configs(
                [ConfigResource(ResourceType.GROUP, group)]
            ).values()
            return bool(described.result(timeout=60)[ASSIGNMENT_INTERVAL].value == "15000")

        eventually(in_force, 60, f"the group's {ASSIGNMENT_INTERVAL} is 15000")

        # The first nudge waits past the interval, so its join's epoch is computed...
        first = with_groups(bootstrap, lambda groups: nudge(groups, group, wait_s=20.0))
        assert first.outcome == "nudged", first
        assert first.epoch_joined is not None
        # ...and the second joins at once, well within 15 s of that computation: the
        # broker keeps the last target until the interval has passed, past its 2 s wait.
        second = with_groups(bootstrap, lambda groups: nudge(groups, group, wait_s=2.0))
        print(f"\nfirst: {first}\nsecond: {second}")
        assert second.outcome == "not_recomputed", second
        assert second.detail == "no new target assignment within 2 s", second.detail
        assert second.epoch_joined is not None
        assert second.epoch_joined == first.epoch_joined + 2

        # Once the interval has passed, a member's heartbeat has the broker compute the
        # epoch of the second nudge's leave: the epoch of its join was never computed.
        final = second.epoch_joined + 1

        def recomputed() -> bool:
            pump(members)
            epochs = epochs_of(bootstrap, group)
            return epochs.assignment == epochs.group == final

        eventually(recomputed, 60, "the group's target assignment at the last leave's epoch")
        computed = [epoch for epoch, _ in plugin_broker.assignments(group)]
        assert first.epoch_joined in computed, computed
        assert final in computed, computed
        assert second.epoch_joined not in computed, computed
