"""The view agrees with Kafka's own ``kafka-consumer-groups --describe``, row for row."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from aiokafka import TopicPartition  # type: ignore[import-untyped]

from harness.broker import LocalKafka
from harness.builders import create_topic, members, produce
from lagassign.lagview.snapshot import GroupSnapshot
from tests.lagview.test_lag_exact import read_once

pytestmark = pytest.mark.kafka

Row = tuple[int | None, int | None, int | None, str | None, str | None, str | None]


def parse_describe(output: str, group: str) -> dict[tuple[str, int], Row]:
    """``kafka-consumer-groups --describe`` rows of ``group``: (topic, partition) -> values."""
    found: dict[tuple[str, int], Row] = {}
    for line in output.splitlines():
        fields = line.split()
        if len(fields) != 9 or fields[0] != group:
            continue
        _group, topic, partition, current, end, lag, consumer, host, client = fields

        def number(text: str) -> int | None:
            return None if text == "-" else int(text)

        def name(text: str) -> str | None:
            return None if text == "-" else text

        found[(topic, int(partition))] = (
            number(current),
            number(end),
            number(lag),
            name(consumer),
            name(host),
            name(client),
        )
    return found


def test_every_partition_matches_kafka_consumer_groups(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    group = kafka_names("g")
    topics = {kafka_names("a"): [12, 0, 30], kafka_names("b"): [5, 9], kafka_names("c"): [40]}

    async def scenario() -> tuple[GroupSnapshot, str]:
        for topic, counts in topics.items():
            await create_topic(kafka_broker.bootstrap, topic, len(counts))
            await produce(kafka_broker.bootstrap, topic, counts)
        async with members(kafka_broker.bootstrap, group, sorted(topics), 2, group) as live:
            # Each member commits a known offset on every partition it holds but one
            # (that one shows the "no commit" row, with Kafka's "-").
            for member in live:
                held = sorted(member.assignment())
                offsets = {tp: topics[tp.topic][tp.partition] * 2 // 3 for tp in held[1:]}
                await member.commit(offsets)
            snapshot = (await read_once(kafka_broker.bootstrap, [group])).get(group)
            described = await asyncio.to_thread(
                kafka_broker.consumer_groups, "--describe", "--group", group
            )
            assert {
                TopicPartition(t, p) for t, counts in topics.items() for p in range(len(counts))
            } == set().union(*(m.assignment() for m in live))
        assert snapshot is not None
        return snapshot, described

    snapshot, described = asyncio.run(scenario())
    kafka_rows = parse_describe(described, group)
    assert len(kafka_rows) == sum(len(c) for c in topics.values())
    ours = {
        (p.topic, p.partition): (
            p.current_offset,
            p.log_end_offset,
            p.lag if p.current_offset is not None else None,
            p.consumer_id,
            p.host,
            p.client_id,
        )
        for p in snapshot.partitions
    }
    assert ours == kafka_rows
    # Without a commit Kafka prints "-"; the view applies the reset policy (latest -> 0).
    uncommitted = [p for p in snapshot.partitions if p.current_offset is None]
    assert len(uncommitted) == 2
    assert all(p.lag == 0 for p in uncommitted)
    assert snapshot.state == "Stable"
    assert snapshot.protocol_type == "classic"
    assert snapshot.assignment_strategy == "roundrobin"
    assert len(snapshot.members) == 2
    assert {m.client_id for m in snapshot.members} == {f"{group}-0", f"{group}-1"}
