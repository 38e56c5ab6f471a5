"""Choosing and fitting the lags of an answer (pure, plus the bounded on-demand fetch)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from lagassign.assign.lag_sources import NO_LAG, choose_lag_source, fitted_lags, subscribed_counts
from lagassign.assign.request import AssignRequest
from lagassign.lagview.errors import GroupReadError
from lagassign.lagview.snapshot import PartitionLag
from tests.service.fake_lag_view import FakeLagView, snapshot_of


def request_of(**changes: Any) -> AssignRequest:
    body: dict[str, Any] = {
        "group_id": "orders",
        "members": [{"member_id": "c-1", "topics": ["t0", "t1"]}],
        "partitions": {"t0": 3, "t1": 2, "unread": 4},
    }
    return AssignRequest.model_validate({**body, **changes})


def test_the_docstring_example_cuts_extra_partitions_and_fills_unseen_ones() -> None:
    snapshot = snapshot_of("orders", {"t0": [5, 6, 7, 8], "t1": [None, 9]})
    lags, unknown = fitted_lags(snapshot, {"t0": 3, "t1": 2})
    assert lags == {"t0": [5, 6, 7], "t1": [0, 9]}
    assert unknown == 1


def test_only_subscribed_topics_are_fitted() -> None:
    assert subscribed_counts(request_of()) == {"t0": 3, "t1": 2}


def test_an_unknown_lag_takes_the_reset_policy_value() -> None:
    earliest = snapshot_of("orders", {"t0": [None, 4]}, reset_policy="earliest")
    # partition 0: lag unknown, log start 0 and end unknown -> nothing better than 0
    lags, unknown = fitted_lags(earliest, {"t0": 3})
    assert lags == {"t0": [0, 4, 0]}
    assert unknown == 2


def test_the_request_reset_policy_overrides_the_group_default() -> None:
    # partition 0 has no committed offset, log start 100 and end 600
    no_commit = PartitionLag("t0", 0, None, 600, 100, 0, None, None, None)
    committed = PartitionLag("t0", 1, 10, 20, 0, 10, None, None, None)
    snapshot = replace(snapshot_of("orders", {}), partitions=(no_commit, committed))
    assert fitted_lags(snapshot, {"t0": 2}) == ({"t0": [0, 10]}, 0)
    assert fitted_lags(snapshot, {"t0": 2}, "earliest") == ({"t0": [500, 10]}, 0)
    assert fitted_lags(snapshot, {"t0": 2}, "latest") == ({"t0": [0, 10]}, 0)
    # none: the consumer would fail rather than guess, so the lag is unknown
    assert fitted_lags(snapshot, {"t0": 2}, "none") == ({"t0": [0, 10]}, 1)


@pytest.mark.anyio
async def test_sources_in_order_request_then_cache_then_fetch_then_none() -> None:
    as_of = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    view = FakeLagView(
        {"orders": snapshot_of("orders", {"t0": [1, 2, 3], "t1": [4, 5]}, as_of=as_of)}
    )

    explicit = await choose_lag_source(
        request_of(lags={"t0": [9, 9, 9], "t1": [9, 9]}), view, None, 0.5
    )
    assert explicit.source == "request"

    cached = await choose_lag_source(request_of(), view, None, 0.5)
    assert (cached.source, cached.as_of, cached.complete) == ("kafka", as_of, True)
    assert cached.lags == {"t0": [1, 2, 3], "t1": [4, 5]}
    assert view.fetches == []

    view.on_demand["new"] = snapshot_of("new", {"t0": [7, 7, 7]})
    fetched = await choose_lag_source(request_of(group_id="new"), view, None, 0.5)
    assert fetched.source == "kafka"
    assert fetched.lags == {"t0": [7, 7, 7], "t1": [0, 0]}
    assert fetched.unknown_partitions == 2
    assert not fetched.complete
    assert view.fetches == [("new", 0.5)]

    assert await choose_lag_source(request_of(group_id="unknown"), view, None, 0.5) is NO_LAG
    assert await choose_lag_source(request_of(), None, None, 0.5) is NO_LAG


@pytest.mark.anyio
async def test_a_fetch_past_its_budget_or_failing_gives_no_lag() -> None:
    view = FakeLagView()
    view.on_demand["slow"] = snapshot_of("slow", {"t0": [1, 1, 1]})
    view.fetch_delay_s = 60.0
    assert await choose_lag_source(request_of(group_id="slow"), view, None, 0.1) is NO_LAG
    assert view.fetches_abandoned == 1

    view.fetch_delay_s = 0.0
    view.fetch_error = GroupReadError("slow", "coordinator not available")
    assert await choose_lag_source(request_of(group_id="slow"), view, None, 0.1) is NO_LAG


@pytest.mark.anyio
async def test_a_zero_budget_never_fetches() -> None:
    view = FakeLagView()
    assert await choose_lag_source(request_of(group_id="new"), view, None, 0.0) is NO_LAG
    assert view.fetches == []
