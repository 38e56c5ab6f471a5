"""Which groups the view reads, against the real broker: regex, on demand, group types, SASL."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Callable

import pytest

from harness.broker import KAFKA_SCRIPT, LocalKafka
from harness.builders import commit, create_topic, produce
from lagassign.lagview.view import LagView
from tests.lagview.test_lag_exact import read_once

pytestmark = pytest.mark.kafka


def test_regex_tracks_matching_groups_and_on_demand_adds_one(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic = kafka_names("t")
    prefix = kafka_names("family")
    matching = [f"{prefix}-orders", f"{prefix}-payments"]
    other = kafka_names("other")
    unanswered = kafka_names("unanswered")

    async def scenario() -> None:
        await create_topic(kafka_broker.bootstrap, topic, 2)
        await produce(kafka_broker.bootstrap, topic, [6, 9])
        for i, group in enumerate([*matching, other]):
            await commit(kafka_broker.bootstrap, group, {(topic, 0): i, (topic, 1): 2 * i})
        view = LagView(kafka_broker.bootstrap, group_pattern=f"{prefix}-.*", request_timeout_s=10)
        try:
            assert await view.refresh(), view.last_refresh_error
            assert sorted(view.snapshots()) == matching
            # The regex must match the whole id.
            assert view.snapshot(prefix) is None

            # A budget of zero never waits on Kafka: no answer, but the group is tracked.
            assert await view.fetch_group(unanswered, budget_s=0) is None

            fetched = await view.fetch_group(other, budget_s=10)
            assert fetched is not None
            assert [p.lag for p in fetched.partitions] == [6 - 2, 9 - 4]
            assert view.snapshot(other) is fetched
            # Cached from now on: a second call does not read Kafka again.
            assert await view.fetch_group(other, budget_s=0) is fetched

            assert await view.refresh(), view.last_refresh_error
            assert sorted(view.snapshots()) == sorted([*matching, other, unanswered])
            # A group the cluster does not know: read, with nothing in it.
            never = view.snapshot(unanswered)
            assert never is not None
            assert never.error is None
            assert never.partitions == ()
            assert never.state == "Dead"
        finally:
            await view.stop()

    asyncio.run(scenario())


def test_consumer_protocol_group_is_reported_as_such(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    asyncio.run(create_topic(kafka_broker.bootstrap, topic, 2))
    asyncio.run(produce(kafka_broker.bootstrap, topic, [5, 5]))
    # Kafka's own console consumer on the KIP-848 protocol leaves a `consumer` group behind.
    subprocess.run(
        [
            str(KAFKA_SCRIPT),
            "run",
            "org.apache.kafka.tools.consumer.ConsoleConsumer",
            "--bootstrap-server",
            kafka_broker.bootstrap,
            "--topic",
            topic,
            "--group",
            group,
            "--from-beginning",
            "--max-messages",
            "10",
            "--timeout-ms",
            "30000",
            "--consumer-property",
            "group.protocol=consumer",
        ],
        check=True,
        timeout=120,
        capture_output=True,
    )

    async def scenario() -> None:
        snapshot = (await read_once(kafka_broker.bootstrap, [group])).get(group)
        assert snapshot is not None
        assert snapshot.protocol_type == "consumer"
        assert snapshot.state == "Empty"
        assert [(p.current_offset, p.lag) for p in snapshot.partitions] == [(5, 0), (5, 0)]

    asyncio.run(scenario())


def test_sasl_scram_listener(kafka_broker: LocalKafka, kafka_names: Callable[[str], str]) -> None:
    topic, group = kafka_names("t"), kafka_names("g")
    sasl_bootstrap = kafka_broker.sasl_bootstrap
    assert sasl_bootstrap is not None
    password = kafka_broker.sasl_users["client"]

    async def scenario() -> None:
        await create_topic(kafka_broker.bootstrap, topic, 1)
        await produce(kafka_broker.bootstrap, topic, [7])
        await commit(kafka_broker.bootstrap, group, {(topic, 0): 1})
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            view = LagView(
                sasl_bootstrap,
                groups=[group],
                request_timeout_s=10,
                client_kwargs={
                    "security_protocol": "SASL_PLAINTEXT",
                    "sasl_mechanism": mechanism,
                    "sasl_plain_username": "client",
                    "sasl_plain_password": password,
                },
            )
            try:
                assert await view.refresh(), view.last_refresh_error
                snapshot = view.snapshot(group)
                assert snapshot is not None
                assert [p.lag for p in snapshot.partitions] == [6]
            finally:
                await view.stop()

        wrong = "not-the-password"
        view = LagView(
            sasl_bootstrap,
            groups=[group],
            request_timeout_s=3,
            client_kwargs={
                "security_protocol": "SASL_PLAINTEXT",
                "sasl_mechanism": "SCRAM-SHA-256",
                "sasl_plain_username": "client",
                "sasl_plain_password": wrong,
            },
        )
        try:
            assert not await view.refresh()
            assert not view.kafka_up
            assert view.last_refresh_error is not None
            assert wrong not in view.last_refresh_error
            assert view.snapshot(group) is None
        finally:
            await view.stop()

    asyncio.run(scenario())


def test_a_topic_new_to_a_group_is_read_in_the_same_refresh(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    first, second, group = kafka_names("first"), kafka_names("second"), kafka_names("g")

    async def scenario() -> None:
        for topic in (first, second):
            await create_topic(kafka_broker.bootstrap, topic, 1)
        await produce(kafka_broker.bootstrap, first, [5])
        await produce(kafka_broker.bootstrap, second, [9])
        await commit(kafka_broker.bootstrap, group, {(first, 0): 1})
        view = LagView(kafka_broker.bootstrap, groups=[group], request_timeout_s=10)
        try:
            assert await view.refresh(), view.last_refresh_error
            before = view.snapshot(group)
            assert before is not None
            assert [(p.topic, p.lag) for p in before.partitions] == [(first, 4)]
            await commit(kafka_broker.bootstrap, group, {(second, 0): 2})
            assert await view.refresh(), view.last_refresh_error
            after = view.snapshot(group)
            assert after is not None
            assert [(p.topic, p.lag) for p in after.partitions] == [(first, 4), (second, 7)]
            assert after.unknown_partitions == 0
        finally:
            await view.stop()

    asyncio.run(scenario())
