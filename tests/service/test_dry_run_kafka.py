"""``POST /assign?dry_run=true`` on a real group: answered, never the group's last answer.

From a cold ``lagassign serve`` on the real broker, two aiokafka consumers through
the Python shim settle on the sidecar's answer (``lagassign_live_assignment_matches``
1). A hand-made what-if for the same group (the README's kind of request, with its own
lags and made-up members) with ``?dry_run=true`` is answered in full, and the group
still matches, its last answer unchanged, the metric still 1. The same request
without ``dry_run`` becomes the last answer and the metric drops to 0: the check can
fail. A ``dry_run`` value that is neither true nor false is refused (400).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.broker import LocalKafka
from harness.poll import eventually_async
from harness.sidecar import start_sidecar
from tests.client.backlog import GROUP_PREFIX, SKEW
from tests.client.group_waits import settled
from tests.client.member import Membership
from tests.client.python_members import AiokafkaMember
from tests.client.test_sidecar_reads_the_group_kafka import backlog, metric

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

TIMEOUT_S = 1.5
SEEN_S = 60.0


def answers_counted(url: str, group: str) -> float:
    """``lagassign_assign_requests_total`` of ``group``, summed over its strategies."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    prefix = "lagassign_assign_requests_total{"
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(prefix) and f'group="{group}"' in line
    )


def refresh_count(url: str) -> float:
    """How many lag refreshes the sidecar has made (its refresh histogram's count)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith("lagassign_lag_refresh_duration_seconds_count "):
            return float(line.split()[1])
    return 0.0


def what_if(group: str, topic: str) -> dict[str, Any]:
    """A hand-made request: two made-up members, the topic's partitions, explicit lags."""
    return {
        "group_id": group,
        "members": [
            {"member_id": "what-if-a", "topics": [topic]},
            {"member_id": "what-if-b", "topics": [topic]},
        ],
        "partitions": {topic: len(SKEW)},
        "lags": {topic: [100 * (i + 1) for i in range(len(SKEW))]},
    }


async def test_a_dry_run_leaves_the_last_answer_and_the_live_match_alone(
    kafka_broker: LocalKafka, kafka_names: Callable[[str], str], tmp_path: Path
) -> None:
    group = GROUP_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    await backlog(kafka_broker.bootstrap, group, [topic])
    sidecar = start_sidecar(
        {
            "LAGASSIGN_BOOTSTRAP_SERVERS": kafka_broker.bootstrap,
            "LAGASSIGN_REFRESH_INTERVAL_S": "1",
            "LAGASSIGN_GROUPS": group,
        },
        tmp_path / "sidecar.log",
    )
    members = [
        AiokafkaMember(
            f"m-{i}", Membership(kafka_broker.bootstrap, group, [topic], sidecar.url, TIMEOUT_S)
        )
        for i in range(2)
    ]
    try:
        for member in members:
            await member.start()
        await settled(members, {(topic, p) for p in range(len(SKEW))})

        async def report() -> dict[str, Any] | None:
            return await asyncio.to_thread(sidecar.group, group)

        async def value(name: str, **labels: str) -> float | None:
            return await asyncio.to_thread(metric, sidecar, name, **labels)

        async def matching() -> dict[str, Any] | None:
            found = await report()
            ok = found and found["live_vs_last_answer"]["status"] == "matches"
            return found if ok else None

        before = await eventually_async(matching, SEEN_S, f"{group} matches the sidecar's answer")
        assert await value("lagassign_live_assignment_matches", group=group) == 1.0
        answers_before = await asyncio.to_thread(answers_counted, sidecar.url, group)
        assert answers_before >= 1

        url = f"{sidecar.url}/assign"
        async with httpx.AsyncClient(timeout=10) as client:
            dry = await client.post(url, params={"dry_run": "true"}, json=what_if(group, topic))
            assert dry.status_code == 200, dry.text
            assert set(dry.json()["assignment"]) == {"what-if-a", "what-if-b"}
            assert dry.json()["lag"]["source"] == "request"
            refused = await client.post(
                url, params={"dry_run": "maybe"}, json=what_if(group, topic)
            )
            assert refused.status_code == 400, refused.text

            # Two refreshes later the group still matches its last real answer.
            refreshes = await asyncio.to_thread(refresh_count, sidecar.url)

            async def refreshed_twice() -> bool:
                return await asyncio.to_thread(refresh_count, sidecar.url) >= refreshes + 2

            await eventually_async(refreshed_twice, SEEN_S, "two more refreshes")
            after = await report()
            assert after is not None
            assert after["last_answers"] == before["last_answers"]
            assert after["live_vs_last_answer"]["status"] == "matches"
            assert await value("lagassign_live_assignment_matches", group=group) == 1.0
            assert await asyncio.to_thread(answers_counted, sidecar.url, group) == answers_before

            # The same request for real becomes the last answer: the live assignment differs.
            real = await client.post(url, json=what_if(group, topic))
            assert real.status_code == 200, real.text

        async def differs() -> bool:
            return await value("lagassign_live_assignment_matches", group=group) == 0.0

        await eventually_async(
            differs, SEEN_S, "lagassign_live_assignment_matches 0 after a real hand-made answer"
        )
    finally:
        for member in members:
            await member.stop()
        sidecar.stop()
