"""A broker outage during refreshes: the view goes stale, never crashes, and recovers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from harness.broker import LocalKafka
from harness.builders import commit, create_topic, produce
from harness.poll import eventually_async
from lagassign.lagview.view import LagView
from tests.lagview.refresh_calls import CallOnRefresh

pytestmark = pytest.mark.kafka

DEADLINE_S = 90.0


def test_broker_stopped_and_started_during_refreshes(
    kafka_outage_broker: LocalKafka, kafka_names: Callable[[str], str]
) -> None:
    broker = kafka_outage_broker
    topic, group = kafka_names("t"), kafka_names("g")
    refreshes: list[bool] = []

    async def scenario() -> None:
        await create_topic(broker.bootstrap, topic, 2)
        await produce(broker.bootstrap, topic, [8, 3])
        await commit(broker.bootstrap, group, {(topic, 0): 2, (topic, 1): 3})
        view = LagView(
            broker.bootstrap,
            groups=[group],
            interval_s=0.3,
            request_timeout_s=1.0,
            listeners=[CallOnRefresh(lambda _seconds, ok: refreshes.append(ok))],
        )
        await view.start()
        try:
            await eventually_async(lambda: view.first_snapshot_loaded, DEADLINE_S, "first snapshot")
            before = view.snapshot(group)
            assert before is not None
            assert before.error is None
            assert not before.stale
            assert [p.lag for p in before.partitions] == [6, 0]
            assert view.kafka_up
            assert view.last_refresh_ok is not None

            bootstrap, pid = broker.bootstrap, broker.pid
            await asyncio.to_thread(broker.stop)
            stopped_at = datetime.now(UTC)
            assert not await asyncio.to_thread(broker.is_running)
            await eventually_async(lambda: not view.kafka_up, DEADLINE_S, "view notices the outage")
            failed_so_far = len(refreshes)
            await eventually_async(
                lambda: len(refreshes) >= failed_so_far + 3, DEADLINE_S, "refreshes go on"
            )
            during = view.snapshot(group)
            assert during is not None
            assert during.stale
            assert during.error is not None
            assert all(p.stale for p in during.partitions)
            # The last good values are kept.
            assert [p.lag for p in during.partitions] == [6, 0]
            # ... as they were read before the broker stopped.
            assert before.as_of <= during.as_of < stopped_at
            assert view.last_refresh_error is not None
            assert view.refresh_errors_total >= 3
            assert view.running

            await asyncio.to_thread(broker.start)
            # The same broker: same directory and address, a new process.
            assert broker.bootstrap == bootstrap
            assert broker.pid != pid
            assert await asyncio.to_thread(broker.is_running)
            await produce(broker.bootstrap, topic, [0, 4])

            def recovered() -> bool:
                now = view.snapshot(group)
                return view.kafka_up and now is not None and now.error is None and not now.stale

            await eventually_async(recovered, DEADLINE_S, "view recovers by itself")
            after = view.snapshot(group)
            assert after is not None

            def new_lag() -> bool:
                now = view.snapshot(group)
                return now is not None and [p.lag for p in now.partitions] == [6, 4]

            await eventually_async(new_lag, DEADLINE_S, "new lag")
            assert after.as_of > before.as_of
            assert view.last_refresh_error is None
            assert view.running
        finally:
            await view.stop()
        assert not view.running

    asyncio.run(scenario())
    assert refreshes[0] is True
    assert refreshes[-1] is True
    assert False in refreshes
