"""Choosing and fitting the lags of an answer (pure, plus the bounded on-demand fetch)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from lagassign.assign.lag_sources import (
    LagSource,
    choose_lag_source,
    fitted_lags,
    subscribed_counts,
)
from lagassign.assign.request import AssignRequest, parse_assign_request
from lagassign.lagview.errors import GroupReadError
from lagassign.lagview.rules import ResetPolicy
from lagassign.lagview.snapshot import GroupSnapshot, PartitionLag
from tests.service.fake_lag_view import FakeLagView, snapshot_of


def request_of(**changes: Any) -> AssignRequest:
    body: dict[str, Any] = {
        "group_id": "orders",
        "members": [{"member_id": "c-1", "topics": ["t0", "t1"]}],
        "partitions": {"t0": 3, "t1": 2, "unread": 4},
    }
    return parse_assign_request(json.dumps({**body, **changes}))


def counted_blind(source: LagSource, partitions: int = 5) -> bool:
    """No lag known: source ``none`` with every subscribed partition counted unknown."""
    return (source.source, source.complete, source.unknown_partitions) == (
        "none",
        False,
        partitions,
    )


def test_the_docstring_example_cuts_extra_partitions_and_fills_unseen_ones() -> None:
    snapshot = snapshot_of("orders", {"t0": [5, 6, 7, 8], "t1": [None, 9]})
    lags, unknown = fitted_lags(snapshot, {"t0": 3, "t1": 2})
    assert lags == {"t0": [5, 6, 7], "t1": [0, 9]}
    assert unknown == 1


def test_only_subscribed_topics_are_fitted() -> None:
    assert subscribed_counts(request_of()) == {"t0": 3, "t1": 2}


def test_an_unknown_lag_takes_the_reset_policy_value() -> None:
    earliest = snapshot_of("orders", {"t0": [None, 4]}, reset_policy="earliest")
    # partition 0: committed, end unknown -> nothing better than 0; partition 2 not listed
    lags, unknown = fitted_lags(earliest, {"t0": 3})
    assert lags == {"t0": [0, 4, 0]}
    assert unknown == 2


def no_commit_snapshot(reset_policy: ResetPolicy = "latest") -> GroupSnapshot:
    """Partition 0: no committed offset, log start 100, end 600; partition 1: committed, lag 10."""
    no_commit = PartitionLag("t0", 0, None, 600, 100, None, None, None, None)
    committed = PartitionLag("t0", 1, 10, 20, 0, 10, None, None, None)
    return replace(
        snapshot_of("orders", {}, reset_policy=reset_policy), partitions=(no_commit, committed)
    )


@pytest.mark.parametrize("group_policy", ["latest", "earliest"])
def test_the_request_reset_policy_wins_over_the_groups(group_policy: ResetPolicy) -> None:
    """The snapshot holds the offsets of a partition without a committed offset: the
    consumer's policy turns them into its lag, whatever the group's setting."""
    snapshot = no_commit_snapshot(group_policy)
    assert fitted_lags(snapshot, {"t0": 2}, "earliest") == ({"t0": [500, 10]}, 0)
    assert fitted_lags(snapshot, {"t0": 2}, "latest") == ({"t0": [0, 10]}, 0)
    # none: the consumer would fail rather than guess, so the lag is unknown
    assert fitted_lags(snapshot, {"t0": 2}, "none") == ({"t0": [0, 10]}, 1)


def test_without_a_request_policy_the_groups_applies() -> None:
    assert fitted_lags(no_commit_snapshot("latest"), {"t0": 2}) == ({"t0": [0, 10]}, 0)
    assert fitted_lags(no_commit_snapshot("earliest"), {"t0": 2}) == ({"t0": [500, 10]}, 0)


def test_earliest_without_both_offsets_is_unknown_not_zero() -> None:
    start_unknown = PartitionLag("t0", 0, None, 600, None, None, None, None, None)
    end_unknown = PartitionLag("t0", 1, None, None, 100, None, None, None, None)
    snapshot = replace(snapshot_of("orders", {}), partitions=(start_unknown, end_unknown))
    assert fitted_lags(snapshot, {"t0": 2}, "earliest") == ({"t0": [0, 0]}, 2)
    # latest needs neither offset: the consumer starts at the end, whatever it is
    assert fitted_lags(snapshot, {"t0": 2}, "latest") == ({"t0": [0, 0]}, 0)


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

    assert counted_blind(await choose_lag_source(request_of(group_id="unknown"), view, None, 0.5))
    assert counted_blind(await choose_lag_source(request_of(), None, None, 0.5))


@pytest.mark.anyio
async def test_a_fetch_past_its_budget_or_failing_gives_no_lag() -> None:
    view = FakeLagView()
    view.on_demand["slow"] = snapshot_of("slow", {"t0": [1, 1, 1]})
    view.fetch_delay_s = 60.0
    assert counted_blind(await choose_lag_source(request_of(group_id="slow"), view, None, 0.1))
    assert view.fetches_abandoned == 1

    view.fetch_delay_s = 0.0
    view.fetch_error = GroupReadError("slow", "coordinator not available")
    assert counted_blind(await choose_lag_source(request_of(group_id="slow"), view, None, 0.1))


@pytest.mark.anyio
async def test_a_zero_budget_never_fetches() -> None:
    view = FakeLagView()
    assert counted_blind(await choose_lag_source(request_of(group_id="new"), view, None, 0.0))
    assert view.fetches == []


@pytest.mark.anyio
async def test_a_cached_snapshot_without_a_named_topic_is_read_again_with_the_topics() -> None:
    """A group's snapshot that lacks a topic the request names (a new group's empty one, or a
    topic the group starts subscribing to) is not answered from as if it were complete."""
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [1, 2, 3]})})
    view.on_demand["orders"] = snapshot_of("orders", {"t0": [1, 2, 3], "t1": [40, 50]})
    source = await choose_lag_source(request_of(), view, None, 0.5)
    assert view.fetches == [("orders", 0.5)]
    assert view.fetched_topics == [frozenset({"t0", "t1"})]
    assert (source.lags, source.complete) == ({"t0": [1, 2, 3], "t1": [40, 50]}, True)


@pytest.mark.anyio
async def test_when_the_read_fails_the_partial_cache_answers_and_says_so() -> None:
    view = FakeLagView({"orders": snapshot_of("orders", {"t0": [1, 2, 3]})})
    view.fetch_error = GroupReadError("orders", "coordinator not available")
    source = await choose_lag_source(request_of(), view, None, 0.5)
    assert source.source == "kafka"
    assert (source.lags, source.unknown_partitions) == ({"t0": [1, 2, 3], "t1": [0, 0]}, 2)
    assert not source.complete
