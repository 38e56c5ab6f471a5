"""The lag of every partition, exactly, against the real broker (docs/lag-rules.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import pytest
from aiokafka import AIOKafkaProducer  # type: ignore[import-untyped]

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, delete_records, produce
from lagassign.lagview.rules import Isolation, ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag
from lagassign.lagview.view import LagView

pytestmark = pytest.mark.kafka


async def read_once(
    bootstrap: str,
    groups: list[str],
    reset: Mapping[str, ResetPolicy] | None = None,
    isolation: Mapping[str, Isolation] | None = None,
) -> dict[str, GroupSnapshot]:
    view = LagView(
        bootstrap, groups=groups, reset_policy=reset, isolation=isolation, request_timeout_s=10
    )
    try:
        assert await view.refresh(), view.last_refresh_error
        return {g: s for g, s in view.snapshots().items() if g in groups}
    finally:
        await view.stop()


def rows(snapshot: GroupSnapshot) -> dict[int, PartitionLag]:
    return {p.partition: p for p in snapshot.partitions}


def test_known_records_and_commits_give_exact_lags(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, latest, earliest = kafka_names("t"), kafka_names("latest"), kafka_names("earliest")
    counts = [10, 20, 5, 7]
    committed = {(topic, 0): 3, (topic, 1): 20, (topic, 3): 0}  # partition 2: no commit

    async def scenario() -> dict[str, GroupSnapshot]:
        await create_topic(kafka_broker.bootstrap, topic, len(counts))
        await produce(kafka_broker.bootstrap, topic, counts)
        await commit(kafka_broker.bootstrap, latest, committed)
        await commit(kafka_broker.bootstrap, earliest, committed)
        return await read_once(
            kafka_broker.bootstrap, [latest, earliest], reset={earliest: "earliest"}
        )

    snapshots = asyncio.run(scenario())
    for group, no_commit_lag in ((latest, 0), (earliest, 5)):
        snapshot = snapshots[group]
        assert snapshot.error is None
        assert not snapshot.stale
        assert snapshot.state == "Empty"
        assert snapshot.protocol_type == "classic"
        assert snapshot.unknown_partitions == 0
        by_partition = rows(snapshot)
        assert sorted(by_partition) == [0, 1, 2, 3]
        expected = {0: (3, 7), 1: (20, 0), 2: (None, no_commit_lag), 3: (0, 7)}
        for p, (current, lag) in expected.items():
            row = by_partition[p]
            assert row.topic == topic
            assert row.current_offset == current
            assert row.log_end_offset == counts[p]
            assert row.log_start_offset == 0
            assert row.lag == lag
            assert (row.out_of_range, row.stale) == (False, False)
            assert (row.consumer_id, row.host, row.client_id) == (None, None, None)
        assert snapshot.lags_by_topic() == {topic: [expected[p][1] for p in range(4)]}


def test_committed_below_log_start_is_out_of_range(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic, group = kafka_names("t"), kafka_names("g")

    async def scenario() -> GroupSnapshot:
        await create_topic(kafka_broker.bootstrap, topic, 3)
        await produce(kafka_broker.bootstrap, topic, [10, 10, 10])
        await commit(kafka_broker.bootstrap, group, {(topic, 0): 2, (topic, 1): 8, (topic, 2): 5})
        await delete_records(kafka_broker.bootstrap, topic, {0: 6, 1: 6})
        return (await read_once(kafka_broker.bootstrap, [group]))[group]

    by_partition = rows(asyncio.run(scenario()))
    # partition 0: committed 2 is below the new log start 6 -> end - log_start.
    assert (by_partition[0].log_start_offset, by_partition[0].current_offset) == (6, 2)
    assert (by_partition[0].lag, by_partition[0].out_of_range) == (4, True)
    # partition 1: committed 8 is above the log start -> end - committed.
    assert (by_partition[1].log_start_offset, by_partition[1].lag) == (6, 2)
    assert by_partition[1].out_of_range is False
    assert (by_partition[2].log_start_offset, by_partition[2].lag) == (0, 5)


def test_open_transaction_read_committed_lag_stops_at_last_stable_offset(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    topic = kafka_names("t")
    uncommitted_group, committed_group = kafka_names("ru"), kafka_names("rc")

    async def scenario() -> dict[str, GroupSnapshot]:
        await create_topic(kafka_broker.bootstrap, topic, 1)
        await produce(kafka_broker.bootstrap, topic, [10])
        for group in (uncommitted_group, committed_group):
            await commit(kafka_broker.bootstrap, group, {(topic, 0): 4})
        producer = AIOKafkaProducer(
            bootstrap_servers=kafka_broker.bootstrap, transactional_id=kafka_names("tx")
        )
        await producer.start()
        try:
            await producer.begin_transaction()
            for i in range(5):
                await producer.send_and_wait(topic, f"open-{i}".encode(), partition=0)
            return await read_once(
                kafka_broker.bootstrap,
                [uncommitted_group, committed_group],
                isolation={committed_group: "read_committed"},
            )
        finally:
            await producer.abort_transaction()
            await producer.stop()

    snapshots = asyncio.run(scenario())
    uncommitted = rows(snapshots[uncommitted_group])[0]
    committed = rows(snapshots[committed_group])[0]
    assert (uncommitted.log_end_offset, uncommitted.lag) == (15, 11)  # high watermark
    assert (committed.log_end_offset, committed.lag) == (10, 6)  # last stable offset
    assert snapshots[committed_group].isolation == "read_committed"
