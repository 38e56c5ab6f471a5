"""The catch-up benchmark's consumer-protocol group (KIP-848) on the real broker.

Java consumers with ``group.protocol=consumer`` and the broker's ``uniform`` drain a tiny
backlog, the group formed first by a paused scout that leaves once both members have
joined: the run is caught up, not before its bound, and every record of the backlog is
processed by the measured members. Here the group is known when Kafka's own
``ConsumerGroupDescribe`` lists its members (no sidecar: ``uniform`` needs none; the
benchmark asks the sidecar).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from bench.catchup.java_groups import ConsumerProtocolGroup, java_available
from bench.catchup.run import backlog_topics, run_one
from harness.broker import LocalKafka
from tests.bench.tiny_backlog import TINY

pytestmark = [pytest.mark.kafka, pytest.mark.java]


def test_a_consumer_protocol_group_formed_by_a_scout_drains_a_tiny_backlog(
    kafka_broker: LocalKafka, tmp_path: Path
) -> None:
    assert java_available() is None, java_available()
    bootstrap = kafka_broker.bootstrap
    group_id = "bench-catchup-kip848"
    admin = AdminClient({"bootstrap.servers": bootstrap})

    def members_now() -> list[str]:
        (future,) = admin.describe_consumer_groups([group_id]).values()
        return [m.member_id for m in future.result(timeout=30).members]

    async def describe() -> dict[str, Any] | None:
        members = await asyncio.to_thread(members_now)
        if not members:
            return None
        return {
            "members": members,
            "last_answers": [],
            "live_vs_last_answer": {"status": "no_answer"},
        }

    async def run() -> dict[str, Any]:
        result = await run_one(
            bootstrap=bootstrap,
            scenario=TINY,
            topics=await backlog_topics(bootstrap, TINY, "bench-catchup-kip848."),
            group_id=group_id,
            assignor="uniform",
            start="existing-group",
            make_group=lambda spec: ConsumerProtocolGroup(spec, "uniform", tmp_path, describe),
            cap_s=120.0,
            consumer_protocol=True,
        )
        return result.line

    line = asyncio.run(run())
    assert line["catch_up_s"] is not None, line
    assert line["catch_up_s"] >= 0.9 * line["lower_bound_s"]
    records = line["records_per_member"]
    assert len(records) == 2
    assert sum(records) >= 0.99 * TINY.total_backlog
    # The members joined once the scout was in the group; the scout left once they were.
    assert line["staggered_s"] is not None
    assert line["scout_s"] is not None
    assert line["scout_s"] < ConsumerProtocolGroup.KNOWN_TIMEOUT_S
    assert line["live_vs_last_answer"] == "no_answer"
    # The members' assignments were read (ConsumerGroupDescribe): the hot partition's
    # 600 records sat with one member at the start.
    assert line["worst_member_lag_max"] >= 600
