"""The broker plugin on a real broker, with real consumers (KIP-848): confluent-kafka and Java.

The consumers use ``group.protocol=consumer`` and ``group.remote.assignor=lagassign``;
the broker runs lagassign's assignor (``deploy/local-kafka/kafka start
--lagassign-url``), which asks the in-test answerer (answerer.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from harness.poll import eventually
from tests.broker.answerer import Fault
from tests.broker.conftest import DEADLINE_MS, SETTLE_S, SLOW_S, FreshTopic, PluginBroker
from tests.broker.consumers import (
    JavaMember,
    Ledger,
    Owned,
    consumers,
    create_topic,
    each_partition_once,
    poll_until,
    sizes,
)
from tests.client.answers import member_topics

pytestmark = [pytest.mark.kafka, pytest.mark.java]

PARTITIONS = 6
MEMBERS = 3
# What a loaded test machine may add to the deadline; far below the slow answerer's SLOW_S.
SLACK_MS = 700
# Records per partition produced before the group forms, and again once it has settled.
RECORDS_BEFORE = 20
RECORDS_AFTER = 10
# The bound on consuming every record once the group has settled.
DRAIN_S = 60


def lopsided_live(topic: str, members: int) -> Callable[[Owned], bool]:
    """The answerer's lopsided answer (1, 2, 3 partitions), which uniform never gives, is live."""
    return lambda s: (
        len(s) == members and each_partition_once(s, topic, PARTITIONS) and sizes(s) == [1, 2, 3]
    )


def test_the_plugins_answer_reaches_the_consumers(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    topic, topic_id = fresh_topic.topic, fresh_topic.topic_id
    answerer = plugin_broker.answerer
    answerer.fault = "none"
    asked_before = len(answerer.requests)
    with consumers(
        fresh_topic.bootstrap, fresh_topic.group, topic, MEMBERS, "lagassign"
    ) as members:
        state = poll_until(
            members, lopsided_live(topic, MEMBERS), SETTLE_S, "the lopsided answer live"
        )
        last = answerer.answer_for(set(state))
        assert last is not None
        assert {m: {(topic, p) for p in last[m].get(topic_id, [])} for m in last} == state

    requests = answerer.requests[asked_before:]
    assert requests, "the plugin never asked"
    final = requests[-1]
    # The topic-id form: no group id, topics named by their Kafka topic id.
    assert final["topic_ids"] is True
    assert "group_id" not in final
    assert final["partitions"] == {topic_id: PARTITIONS}
    assert sorted(m["member_id"] for m in final["members"]) == sorted(state)
    # The compact form: each topic list once, a packed answer asked for.
    assert final["answer_form"] == "packed"
    assert final["subscriptions"] == [[topic_id]]
    assert all(t == [topic_id] for t in member_topics(final).values())
    assert all(t[0] == "lagassign" for t in plugin_broker.assignor_times_ms(fresh_topic.group))


FAULTS: list[Fault | str] = [
    "stopped",
    "slow",
    "status-500",
    "unknown-group",
    "malformed-json",
    "missing-partition",
    "partition-twice",
]
REASON = {
    "stopped": "unreachable",
    "slow": "timeout",
    "status-500": "status",
    "unknown-group": "unknown_group",
    "malformed-json": "malformed",
    "missing-partition": "invalid",
    "partition-twice": "invalid",
}


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_gives_the_group_uniform_within_the_deadline(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic, fault: str
) -> None:
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    answerer = plugin_broker.answerer
    log_before = len(plugin_broker.log())
    if fault == "stopped":
        answerer.stop()
    else:
        answerer.fault = fault  # type: ignore[assignment]
    ledger = Ledger()
    ledger.produce(bootstrap, topic, PARTITIONS, RECORDS_BEFORE)
    try:
        with consumers(bootstrap, group, topic, MEMBERS, "lagassign") as members:
            # Kafka's own uniform answer: two partitions each, every partition owned once.
            state = poll_until(
                members,
                lambda s: each_partition_once(s, topic, PARTITIONS) and sizes(s) == [2, 2, 2],
                SETTLE_S,
                "uniform's two partitions each",
                ledger=ledger,
            )
            # More records once the group settled on the fallback: each is consumed exactly
            # once, by the member that owns its partition; none of either batch is lost.
            after = ledger.produce(bootstrap, topic, PARTITIONS, RECORDS_AFTER)
            drained = poll_until(
                members,
                lambda _: not ledger.missing(),
                DRAIN_S,
                "every record consumed",
                ledger=ledger,
            )
            assert drained == state, "the assignment moved while the group drained"
    finally:
        answerer.fault = "none"
        if fault == "stopped":
            answerer.start()
    times = plugin_broker.assignor_times_ms(group)
    assert times, "the coordinator computed no assignment"
    assert all(assignor == "lagassign" for assignor, _ in times)
    # The coordinator's thread was held no longer than the deadline (not SLOW_S).
    assert max(ms for _, ms in times) < DEADLINE_MS + SLACK_MS, times
    assert f"gets 'uniform' ({REASON[fault]})" in plugin_broker.log()[log_before:]
    assert not ledger.foreign, ledger.foreign[:5]
    owner = {p: m for m, tps in state.items() for _, p in tps}
    for value in after:
        assert ledger.consumed[value] == [owner[ledger.produced[value]]], (value, ledger.consumed)


def test_a_slow_sidecar_delays_no_other_group_beyond_the_deadline(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic, kafka_names: Callable[[str], str]
) -> None:
    bootstrap, slow_topic, slow_group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    other_topic, other_group = kafka_names("topic"), kafka_names("group")
    create_topic(bootstrap, other_topic, PARTITIONS)
    plugin_broker.answerer.fault = "slow"
    try:
        with consumers(bootstrap, slow_group, slow_topic, MEMBERS, "lagassign") as slow:
            poll_until(
                slow,
                lambda s: each_partition_once(s, slow_topic, PARTITIONS),
                SETTLE_S,
                "the slow group formed",
            )
            # Another member joins the lagassign group (another assignment that times out)
            # while the other group forms on uniform.
            with (
                consumers(bootstrap, slow_group, slow_topic, 1, "lagassign") as joiner,
                consumers(bootstrap, other_group, other_topic, MEMBERS, "uniform") as other,
            ):

                def settled(s: dict[str, set[tuple[str, int]]]) -> bool:
                    other_ids = {c.memberid() for c in other}
                    mine = {m: tps for m, tps in s.items() if m in other_ids}
                    theirs = {m: tps for m, tps in s.items() if m not in other_ids}
                    return (
                        len(mine) == MEMBERS
                        and each_partition_once(mine, other_topic, PARTITIONS)
                        and each_partition_once(theirs, slow_topic, PARTITIONS)
                    )

                poll_until([*slow, *joiner, *other], settled, SETTLE_S, "both groups settled")
    finally:
        plugin_broker.answerer.fault = "none"
    slow_times = plugin_broker.assignor_times_ms(slow_group)
    other_times = plugin_broker.assignor_times_ms(other_group)
    assert slow_times
    assert other_times
    # Each lagassign assignment held the coordinator thread at most about the deadline, far
    # below the answerer's delay; uniform's own took next to nothing.
    assert max(ms for _, ms in slow_times) < DEADLINE_MS + SLACK_MS, slow_times
    assert max(ms for _, ms in slow_times) < SLOW_S * 1000 / 2, slow_times
    assert all(assignor == "uniform" for assignor, _ in other_times)
    assert max(ms for _, ms in other_times) < SLACK_MS, other_times


def test_java_and_python_members_get_the_plugins_answer(
    plugin_broker: PluginBroker, fresh_topic: FreshTopic
) -> None:
    bootstrap, topic, group = fresh_topic.bootstrap, fresh_topic.topic, fresh_topic.group
    answerer = plugin_broker.answerer
    answerer.fault = "none"
    java = [JavaMember(bootstrap, group, topic, "lagassign", SETTLE_S + 60) for _ in range(2)]
    try:
        with consumers(bootstrap, group, topic, 1, "lagassign") as python:
            state = poll_until(
                python,
                lopsided_live(topic, MEMBERS),
                SETTLE_S,
                "the lopsided answer live",
                java=java,
            )
            last = answerer.answer_for(set(state))
            assert last is not None
            topic_id = fresh_topic.topic_id
            assert {m: {(topic, p) for p in last[m].get(topic_id, [])} for m in last} == state
    finally:
        for member in java:
            member.close()


WARMED = re.compile(
    r"the plugin's code warmed up on a made-up group of 50 members and 10000 partitions"
    r" .*: (\d+) rounds in \d+ ms, the first ([\d.]+) ms, the last ([\d.]+) ms"
)


def test_the_plugins_code_runs_once_on_a_made_up_group_when_the_broker_starts(
    plugin_broker: PluginBroker,
) -> None:
    """A started broker runs every step of a call but the exchange on a large made-up group,
    off the coordinator's thread, and says so once: its first rebalances then run compiled
    code (the rounds' times are the broker's own to show, not asserted)."""
    found = eventually(
        lambda: WARMED.findall(plugin_broker.log()) or None, SETTLE_S, "the warm-up's line"
    )
    # Once per start of the broker (its first settings), though Kafka configures it 8-9 times.
    assert len(found) == plugin_broker.log().count("lagassign: assignor 'lagassign' asks"), found
    rounds, first_ms, last_ms = found[-1]
    assert int(rounds) == 25
    assert float(first_ms) > 0
    assert float(last_ms) > 0
    assert "the warm-up of the plugin's code failed" not in plugin_broker.log()
