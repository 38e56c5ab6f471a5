"""The topics a rebalance names, against the real broker: read on demand for a group
that has neither commits nor assignments on them, tracked by the refresh from then on,
and their offsets read once however many readers want them at the same time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from lagassign.lagview.view import LagView

pytestmark = pytest.mark.kafka

BACKLOG = [50, 7, 0]


def lags_of(view: LagView, group: str, topic: str) -> list[int | None]:
    snapshot = view.snapshot(group)
    assert snapshot is not None
    return [p.lag for p in snapshot.partitions if p.topic == topic]


def test_a_new_groups_named_topics_are_read_on_demand_then_refreshed(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    """Cold: a view just built, a group with no committed offset anywhere."""
    topic, group, other = kafka_names("t"), kafka_names("g"), kafka_names("other")

    async def scenario() -> None:
        await create_topic(kafka_broker.bootstrap, topic, len(BACKLOG))
        await produce(kafka_broker.bootstrap, topic, BACKLOG)
        # The broker's offsets topic exists, as it does once any consumer has joined a group.
        await commit(kafka_broker.bootstrap, kafka_names("elsewhere"), {(topic, 0): 0})
        view = LagView(
            kafka_broker.bootstrap,
            default_reset_policy="earliest",
            reset_policy={other: "latest"},
            request_timeout_s=10,
        )
        try:
            # Without the topics a new group has no partition to read.
            blind = await view.fetch_group(group, budget_s=10)
            assert blind is not None
            assert blind.partitions == ()

            fetched = await view.fetch_group(group, budget_s=10, topics={topic})
            assert fetched is not None
            assert [(p.partition, p.current_offset, p.lag) for p in fetched.partitions] == [
                (0, None, 50),
                (1, None, 7),
                (2, None, 0),
            ]
            # The cached snapshot lists the topic now: no second read, even with no budget.
            assert await view.fetch_group(group, budget_s=0, topics={topic}) is fetched

            latest = await view.fetch_group(other, budget_s=10, topics={topic})
            assert latest is not None
            assert [p.lag for p in latest.partitions] == [0, 0, 0]

            # The refresh reads the named topic for the group from now on.
            await produce(kafka_broker.bootstrap, topic, [5, 0, 0])
            assert await view.refresh(), view.last_refresh_error
            assert lags_of(view, group, topic) == [55, 7, 0]

            # Once the group commits, its committed offset decides.
            await commit(kafka_broker.bootstrap, group, {(topic, 0): 40})
            assert await view.refresh(), view.last_refresh_error
            assert lags_of(view, group, topic) == [15, 7, 0]
        finally:
            await view.stop()

    asyncio.run(scenario())


def test_a_topic_a_running_group_starts_to_read_is_read_on_demand(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    old, new, group = kafka_names("old"), kafka_names("new"), kafka_names("g")

    async def scenario() -> None:
        for topic in (old, new):
            await create_topic(kafka_broker.bootstrap, topic, len(BACKLOG))
            await produce(kafka_broker.bootstrap, topic, BACKLOG)
        await commit(kafka_broker.bootstrap, group, {(old, p): 0 for p in range(len(BACKLOG))})
        view = LagView(
            kafka_broker.bootstrap, groups=[group], default_reset_policy="earliest", interval_s=60
        )
        try:
            assert await view.refresh(), view.last_refresh_error
            cached = view.snapshot(group)
            assert cached is not None
            assert cached.topics() == {old}
            assert await view.fetch_group(group, budget_s=10, topics={old}) is cached

            wider = await view.fetch_group(group, budget_s=10, topics={old, new})
            assert wider is not None
            assert wider is not cached
            assert lags_of(view, group, new) == BACKLOG
            assert lags_of(view, group, old) == BACKLOG
        finally:
            await view.stop()

    asyncio.run(scenario())


def test_readers_of_the_same_topic_at_once_share_one_read(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, other = kafka_names("t"), kafka_names("u")

    async def scenario() -> None:
        for name in (topic, other):
            await create_topic(kafka_broker.bootstrap, name, 2)
            await produce(kafka_broker.bootstrap, name, [3, 4])
        view = LagView(kafka_broker.bootstrap, request_timeout_s=10, interval_s=60)
        clients = view.clients

        async def reads() -> None:  # on the view's loop, where its clients live
            opened = await clients.ensure()
            one = frozenset({topic})
            both = frozenset({topic, other})
            # The refresh's read (no age allowed) and an on-demand read, at the same time.
            first, second = await asyncio.gather(
                clients.read_offsets(opened, both, frozenset()),
                clients.read_offsets(opened, one, frozenset(), 60.0),
            )
            assert second[topic] is first[topic]
            assert set(second) == {topic}
            # A recent read serves an on-demand reader; the refresh always reads again.
            again = await clients.read_offsets(opened, one, frozenset(), 60.0)
            assert again[topic] is first[topic]
            fresh = await clients.read_offsets(opened, one, frozenset())
            assert fresh[topic] is not first[topic]
            assert fresh[topic] == first[topic]
            # Last stable offsets were not read: a read_committed reader reads the topic again.
            stable = await clients.read_offsets(opened, one, one, 60.0)
            assert stable[topic] is not fresh[topic]
            assert [o.last_stable for o in stable[topic].partitions.values()] == [3, 4]

        try:
            await view.own_loop.run(reads())
        finally:
            await view.stop()

    asyncio.run(scenario())
