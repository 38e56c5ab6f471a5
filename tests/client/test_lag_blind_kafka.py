"""A lag-blind answer on a real group: logged at WARNING, counted, and noted for the member.

The shim is given the wrong ``group_id`` (a mistake users make): the sidecar
answers for a group it has no lag for. The answer is used (it is valid), but the
leader says it was blind, counts it, and the member's note carries the reason.

The consumer's real group is one the sidecar does not track: when it does, and has
described the leader as a member of it, the request is refused instead
(``wrong_group``, ``test_sidecar_reads_the_group_kafka``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import pytest
from aiokafka import AIOKafkaConsumer  # type: ignore[import-untyped]

from harness.broker import LocalKafka
from harness.sidecar import SidecarProcess
from lagassign_client import LagAssignor
from tests.client.backlog import GROUP_PREFIX, skewed_backlog

pytestmark = [pytest.mark.kafka, pytest.mark.anyio]

SETTLE_S = 60.0
# Outside the sidecar's group pattern: it never describes the consumer's real group.
UNTRACKED_PREFIX = "untracked."


async def test_the_wrong_group_id_gives_a_blind_answer_that_is_said(
    kafka_broker: LocalKafka,
    sidecar: SidecarProcess,
    kafka_names: Callable[[str], str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    group = UNTRACKED_PREFIX + kafka_names("group")
    topic = kafka_names("topic")
    lags = await skewed_backlog(kafka_broker.bootstrap, group, [topic])
    wrong = GROUP_PREFIX + kafka_names("group") + ".typo"
    # Under "latest" or "earliest" the sidecar reads the mistyped group's topics as a new
    # group's and knows their lag by the rule (0, or the whole log); under "none" the lag
    # of a partition without a committed offset is unknown, and the answer says so.
    assignor = LagAssignor(url=sidecar.url, group_id=wrong, reset_policy="none")
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=kafka_broker.bootstrap,
        group_id=group,
        enable_auto_commit=False,
        partition_assignment_strategy=(assignor,),
    )
    with caplog.at_level(logging.INFO, logger="lagassign_client"):
        await consumer.start()
        try:
            for _ in range(int(SETTLE_S / 0.5)):
                if assignor.assigned_by is not None and consumer.assignment():
                    break
                with contextlib.suppress(asyncio.TimeoutError):
                    await consumer.getmany(timeout_ms=500)
        finally:
            await consumer.stop()
            assignor.close()
    note = assignor.assigned_by
    decision = assignor.last_decision
    assert note is not None
    assert decision is not None
    # No lag at all (lag.source none) or every partition's lag unknown (no commits
    # under "none"): the sidecar says which, and the shim passes it on.
    assert note.by == "sidecar"
    assert note.reason in ("lag_blind", "lag_partial")
    assert assignor.blind_answers == {note.reason: 1}
    assert assignor.fallbacks == {}
    ours = [r for r in caplog.records if r.name == "lagassign_client"]
    warnings = [r.getMessage() for r in ours if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    said = note.reason.replace("_", "-")
    assert f"group {wrong} uses the sidecar's answer, but it is {said}" in warnings[0]
    if note.reason == "lag_partial":
        assert f"assumed the lag of {len(lags)} partition(s)" in warnings[0]
    infos = [r.getMessage() for r in ours if r.levelno == logging.INFO]
    source = f"lag_source={decision.lag_source}"
    assert any("assigned by the sidecar" in m and source in m for m in infos), infos
