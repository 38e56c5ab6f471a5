"""The broker plugin calling a REAL ``lagassign serve``: lag-balanced consumer-protocol groups.

A real broker started with the plugin (``deploy/local-kafka/kafka start
--lagassign-url``) points at a real sidecar process on the same broker. The
topic has a skewed backlog the consumers never commit (so the lag stays what
was produced; the sidecar measures it with the ``earliest`` reset policy).

Each group starts cold: the sidecar does not know its members yet, so the first
assignment is Kafka's own ``uniform`` (the sidecar answers 404). Once a refresh
has described the group (``ConsumerGroupDescribe``) and indexed its members, the
next epoch (one more member joining) gets lagassign's ``balanced`` answer. The
figures (worst member lag under lagassign and under ``uniform``, how long the
indexing took) are printed (``pytest -s``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer

from harness.poll import eventually, eventually_async
from tests.broker.conftest import SETTLE_S, FreshTopic, PluginBroker, PluginSettings
from tests.broker.consumers import (
    JavaMember,
    Ledger,
    Owned,
    consumers,
    each_partition_once,
    poll_until,
    produce_backlog,
    pump,
    reported_owned,
)
from tests.client.member import Membership
from tests.client.python_members import AiokafkaMember
from tests.lagview.test_kafka_tool import parse_describe

pytestmark = [pytest.mark.kafka, pytest.mark.java]

# Generous for a loaded test machine: the sidecar answers from its cache in milliseconds.
DEADLINE_MS = 500
PARTITIONS = 12
# Three hot partitions, spaced so that neither contiguous ranges nor round robin spread them.
BACKLOG = [3_000 if p in (0, 3, 6) else 100 for p in range(PARTITIONS)]


PLUGIN_SETTINGS = PluginSettings(timeout_ms=DEADLINE_MS, sidecar=())


def worst_member_lag(state: Owned) -> int:
    return max(sum(BACKLOG[p] for _, p in held) for held in state.values())


def settled(topic: str, members: int) -> Callable[[Owned], bool]:
    """Every member holds its share: each partition once, counts within one of each other.

    Both ``uniform`` and ``balanced`` balance counts; the first member of a new group
    holds everything until the others' assignments arrive, which is not settled.
    """

    def done(state: Owned) -> bool:
        counts = [len(held) for held in state.values()]
        return (
            len(state) == members
            and each_partition_once(state, topic, PARTITIONS)
            and max(counts) - min(counts) <= 1
        )

    return done


def indexed(sb: PluginBroker, group: str, member_ids: set[str]) -> bool:
    """The sidecar's snapshot lists exactly these members (so its index knows them)."""
    body = sb.group(group)
    return body is not None and {m["member_id"] for m in body["members"]} == member_ids


def uniform_worst(bootstrap: str, group: str, topic: str, members: int) -> int:
    """The worst member lag of a group of ``members`` on ``uniform`` (Kafka's own), live."""
    with consumers(bootstrap, group, topic, members, "uniform") as python:
        state = poll_until(python, settled(topic, members), SETTLE_S, "uniform settled")
        return worst_member_lag(state)


def run_cold_group(
    sb: PluginBroker, group: str, topic: str, later_java: int, later_python: int
) -> tuple[Owned, dict[str, Any], float]:
    """One Java member starts the group cold (uniform), then more members join.

    Returns the live assignment once they all hold the sidecar's answer, the
    sidecar's /groups report of it, and how long after the cold-start assignment
    the sidecar knew the group (its index held the first member).
    """
    bootstrap = sb.kafka.bootstrap
    seconds = SETTLE_S * 3
    java = [JavaMember(bootstrap, group, topic, "lagassign", seconds)]
    try:
        first = poll_until([], settled(topic, 1), SETTLE_S, "the cold start", java=java)
        assigned_at = time.monotonic()
        eventually(lambda: indexed(sb, group, set(first)), 60, "the sidecar indexes the member")
        indexed_after_s = time.monotonic() - assigned_at
        cold = sb.group(group)
        assert cold is not None
        # The cold start got Kafka's own assignment: the sidecar answered 404, recorded nothing.
        assert cold["last_answers"] == [], cold["last_answers"]

        java += [
            JavaMember(bootstrap, group, topic, "lagassign", seconds) for _ in range(later_java)
        ]
        total = 1 + later_java + later_python
        with consumers(bootstrap, group, topic, later_python, "lagassign") as python:

            def answered_and_live() -> dict[str, Any] | None:
                state = pump(python, java)
                if not settled(topic, total)(state):
                    return None
                body = sb.group(group)
                if body is None or body["header"]["members"] != total:
                    return None
                if body["live_vs_last_answer"]["status"] != "matches":
                    return None
                if body["last_answers"][0]["members"] != total:
                    return None
                return {"state": state, "body": body}

            found = eventually(answered_and_live, SETTLE_S, "the sidecar's answer is live")
            state, body = found["state"], found["body"]
            # The consumers' own view, the sidecar's view of the group and its last answer agree.
            assert reported_owned(body) == state
            return state, body, indexed_after_s
    finally:
        for member in java:
            member.close()


def check_balanced_beats_uniform(
    sb: PluginBroker, group: str, topic: str, state: Owned, body: dict[str, Any]
) -> tuple[int, int]:
    last = body["last_answers"][0]
    assert last["strategy"] == "balanced"
    assert last["lag_source"] == "kafka-drain"
    ours = worst_member_lag(state)
    assert last["max_lag"] == ours
    assert body["header"]["protocol_type"] == "consumer"
    assert body["header"]["assignment_strategy"] == "lagassign"
    uniform = uniform_worst(sb.kafka.bootstrap, f"{group}-uniform", topic, len(state))
    assert ours < uniform, (ours, uniform)
    return ours, uniform


@pytest.mark.parametrize(
    ("later_java", "later_python"),
    [pytest.param(2, 0, id="java"), pytest.param(1, 1, id="java-and-confluent-kafka")],
)
def test_a_group_is_balanced_by_lag_after_a_cold_start(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic, later_java: int, later_python: int
) -> None:
    topic, group = fresh_topic.topic, fresh_topic.group
    produce_backlog(fresh_topic.bootstrap, topic, BACKLOG)
    state, body, indexed_after_s = run_cold_group(
        plugin_broker, group, topic, later_java, later_python
    )
    ours, uniform = check_balanced_beats_uniform(plugin_broker, group, topic, state, body)
    print(
        f"\n{later_java + 1} Java, {later_python} confluent-kafka members: worst member lag "
        f"{ours} with lagassign, {uniform} with uniform; "
        f"indexed {indexed_after_s:.1f} s after the cold-start assignment"
    )


def test_groups_page_of_a_consumer_protocol_group_matches_kafka_consumer_groups(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    produce_backlog(bootstrap, topic, BACKLOG)
    with consumers(bootstrap, group, topic, 3, "uniform") as members:
        state = poll_until(members, settled(topic, 3), SETTLE_S, "uniform settled")

        def stable_in_the_sidecar() -> bool:
            body = plugin_broker.group(group)
            return (
                body is not None
                and body["header"]["state"] == "Stable"
                and reported_owned(body) == state
            )

        eventually(stable_in_the_sidecar, 60, "the sidecar sees the group stable")
        described = plugin_broker.kafka.consumer_groups("--describe", "--group", group)
        body = plugin_broker.group(group)
        for member in members:
            member.poll(0.05)
    assert body is not None
    kafka_rows = parse_describe(described, group)
    assert len(kafka_rows) == PARTITIONS, described
    ours = {
        (p["topic"], p["partition"]): (
            p["current_offset"],
            p["log_end_offset"],
            p["lag"] if p["current_offset"] is not None else None,
            p["consumer_id"],
            p["host"],
            p["client_id"],
        )
        for p in body["partitions"]
    }
    assert ours == kafka_rows
    # Nothing committed: Kafka prints "-"; the sidecar's earliest policy counts the backlog.
    assert [p["lag"] for p in sorted(body["partitions"], key=lambda p: p["partition"])] == BACKLOG
    header = body["header"]
    assert header["protocol_type"] == "consumer"
    assert header["assignment_strategy"] == "uniform"
    assert header["state"] == "Stable"
    assert header["group_epoch"] is not None
    assert "group.remote.assignor=lagassign" in header["protocol_note"]
    # What lagassign would change: balanced now beats the live uniform assignment.
    now = body["skew"]["default_strategy_now"]
    assert now["max_lag"] < body["skew"]["max_member_lag"]


UPGRADE_REFUSED = "Cannot upgrade classic group {group} to consumer group"
ONLINE_MIN_S = 10.0


def join_online(
    bootstrap: str, group: str, topic: str, refused: Callable[[], bool]
) -> tuple[set[tuple[str, int]], list[str]]:
    """A consumer-protocol member tries to join ``group``: what it got, and its errors.

    It keeps trying for at least ``ONLINE_MIN_S`` and until ``refused()`` (the broker
    logged its refusal), at most ``SETTLE_S`` (then :class:`TimeoutError`).
    """
    errors: list[str] = []
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "group.protocol": "consumer",
            "group.remote.assignor": "lagassign",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "error_cb": lambda error: errors.append(str(error)),
        }
    )
    got: set[tuple[str, int]] = set()
    started = time.monotonic()

    def tried_long_enough_and_refused() -> bool:
        consumer.poll(0.2)
        got.update((tp.topic, tp.partition) for tp in consumer.assignment())
        return time.monotonic() > started + ONLINE_MIN_S and refused()

    try:
        consumer.subscribe([topic])
        eventually(
            tried_long_enough_and_refused, SETTLE_S, "the broker refuses the online upgrade", 0
        )
    finally:
        consumer.close()
    return got, errors


def test_a_shim_group_moves_to_the_consumer_protocol_offline_not_online(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    """The Python shim sends subscription user data: Kafka refuses the online upgrade.

    Stopping the classic members (the group empties, its committed offsets stay) and
    starting consumer-protocol members with ``group.remote.assignor=lagassign`` works:
    they resume from the committed offsets and the group is then assigned by lagassign.
    """
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    produce_backlog(bootstrap, topic, BACKLOG)
    everything = {(topic, p) for p in range(PARTITIONS)}
    log_path = plugin_broker.kafka.directory / "kafka.log"

    def refusals() -> list[str]:
        text = log_path.read_text(errors="replace")
        return [line for line in text.splitlines() if UPGRADE_REFUSED.format(group=group) in line]

    def refused() -> bool:
        return bool(refusals())

    def committed_everything() -> bool:
        body = plugin_broker.group(group)
        return (
            body is not None
            and [
                p["current_offset"]
                for p in sorted(body["partitions"], key=lambda p: p["partition"])
            ]
            == BACKLOG
        )

    async def classic_phase() -> tuple[int, tuple[set[tuple[str, int]], list[str]]]:
        member = AiokafkaMember(
            "classic-0", Membership(bootstrap, group, [topic], plugin_broker.sidecar.url, 5.0)
        )
        await member.start()
        try:
            await eventually_async(
                lambda: len(member.consumed()) >= sum(BACKLOG), SETTLE_S, "the backlog consumed"
            )
            assert member.partitions() == everything
            await eventually_async(
                lambda: asyncio.to_thread(committed_everything), 60, "the last batch committed"
            )
            # Online: a consumer-protocol member asks to join the running classic group.
            online = await asyncio.to_thread(join_online, bootstrap, group, topic, refused)
            assert member.partitions() == everything  # the classic group went on untouched
            return len(member.consumed()), online
        finally:
            await member.stop()

    consumed, (online, errors) = asyncio.run(classic_phase())
    assert consumed == sum(BACKLOG)
    assert online == set()
    lines = refusals()
    print("\nonline upgrade refused:", *lines[:2], "client errors:", *errors[:3], sep="\n")
    assert lines, "the broker never logged the refused upgrade"

    # Offline: the classic members are gone; consumer-protocol members take the group over.
    # Nothing is produced to this ledger: every record a member reads lands in its foreign list.
    read_again = Ledger()
    with consumers(bootstrap, group, topic, 2, "lagassign") as members:
        poll_until(
            members, settled(topic, 2), SETTLE_S, "the consumer-protocol group", ledger=read_again
        )

        def converted() -> dict[str, Any] | None:
            body = plugin_broker.group(group)
            if body is None or body["header"]["protocol_type"] != "consumer":
                return None
            return body

        body = eventually(converted, 60, "the sidecar sees the converted group")
        # A bounded while longer (20 rounds): still nothing to read.
        for _ in range(20):
            pump(members, ledger=read_again)
    # They resumed from the classic group's committed offsets: nothing was read again.
    assert read_again.foreign == []
    assert all(p["current_offset"] == BACKLOG[p["partition"]] for p in body["partitions"])
