"""The lag view without a broker: argument checks and a cluster that is not there."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from lagassign.lagview.errors import InvalidLagViewSettings
from lagassign.lagview.view import LagView
from tests.lagview.refresh_calls import CallOnRefresh

# Nothing listens on port 1 of the loopback: connections are refused at once.
NOWHERE = "127.0.0.1:1"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"default_reset_policy": "none"}, "reset policy 'none'"),
        ({"reset_policy": {"g": "smallest"}}, "reset policy 'smallest'"),
        ({"isolation": {"g": "committed"}}, "isolation 'committed'"),
        ({"client_kwargs": {"bootstrap_servers": "x"}}, "unknown Kafka client arguments"),
        ({"interval_s": 0}, "must be positive"),
        ({"request_timeout_s": -1}, "must be positive"),
        ({"concurrency": 0}, "at least 1"),
        ({"group_pattern": "[a-"}, "not a regex"),
    ],
)
def test_nonsense_is_refused_at_construction(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidLagViewSettings, match=message):
        LagView(NOWHERE, **kwargs)


def test_empty_bootstrap_is_refused() -> None:
    with pytest.raises(InvalidLagViewSettings, match="bootstrap"):
        LagView("")


def test_per_group_settings_with_defaults() -> None:
    view = LagView(
        NOWHERE,
        reset_policy={"a": "earliest"},
        isolation={"b": "read_committed"},
        default_reset_policy="latest",
    )
    assert (view.reset_policy_of("a"), view.reset_policy_of("b")) == ("earliest", "latest")
    assert (view.isolation_of("a"), view.isolation_of("b")) == (
        "read_uncommitted",
        "read_committed",
    )


def test_an_absent_cluster_is_recorded_never_raised() -> None:
    seen: list[tuple[float, bool]] = []

    async def scenario() -> LagView:
        view = LagView(
            NOWHERE,
            groups=["g"],
            request_timeout_s=1.0,
            listeners=[CallOnRefresh(lambda seconds, ok: seen.append((seconds, ok)))],
        )
        try:
            started = time.monotonic()
            assert not await view.refresh()
            assert not await view.refresh()
            assert time.monotonic() - started < 10
            assert await view.fetch_group("h", budget_s=0.5) is None
        finally:
            await view.stop()
        return view

    view = asyncio.run(scenario())
    assert not view.kafka_up
    assert not view.first_snapshot_loaded
    assert view.last_refresh_ok is None
    assert view.last_refresh_error is not None
    assert view.last_refresh_error.startswith("Kafka unreachable")
    assert view.refresh_errors_total == 2
    assert view.refreshes_total == 2
    assert view.last_refresh_seconds is not None
    assert [ok for _, ok in seen] == [False, False]
    assert view.snapshots() == {}
    assert not view.running


def test_the_loop_keeps_running_while_the_cluster_is_absent() -> None:
    async def scenario() -> None:
        view = LagView(NOWHERE, groups=["g"], interval_s=0.05, request_timeout_s=0.5)
        await view.start()
        try:
            deadline = time.monotonic() + 20
            while view.refreshes_total < 3 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert view.refreshes_total >= 3
            assert view.running
        finally:
            await view.stop()
        assert not view.running

    asyncio.run(scenario())
