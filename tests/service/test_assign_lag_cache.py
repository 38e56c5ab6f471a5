"""The lag an answer balances is kept per group between two refreshes (assign/lag_cache.py)
and made ready after each refresh (assign/lag_warmer.py); the group's last answer is
served again for the same body over the same lag (assign/answer_reuse.py).

The use case runs over a lag view holding real snapshots, the real rate window, the
sidecar's drain model and the route's turn at heavy work; only the model is counted,
by a wrapper around it, to see when it ran.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from lagassign.assign import lag_cache
from lagassign.assign.answer import Answer
from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.answer_reuse import AnswerReuse, Asked
from lagassign.assign.lag_cache import LagCache, LagInputs
from lagassign.assign.lag_sources import LagSource
from lagassign.assign.lag_warmer import LagWarmer
from lagassign.assign.rebalance import AssignParts, answer_rebalance
from lagassign.assign.request import AssignRequest, parse_assign_request
from lagassign.http.heavy import HeavyWork
from lagassign.http.turn import Turn
from lagassign.lagview.listeners import Refresh
from lagassign.rates.lag_models import DrainModel
from lagassign.rates.window import RateWindow
from tests.service.fake_lag_view import FakeLagView, snapshot_of

pytestmark = pytest.mark.anyio

GROUP = "orders"
LAGS = {"t0": [9_000, 10, 10, 10], "t1": [5_000, 4_000]}


class Observed:
    def __init__(self) -> None:
        self.answers: list[Answer] = []

    def observe_answer(self, answer: Answer, seconds: float) -> None:
        self.answers.append(answer)


class CountedModel:
    """The drain model, with the calls that reached it counted."""

    def __init__(self, model: DrainModel) -> None:
        self.model = model
        self.calls = 0

    def __call__(self, lag: LagSource, request: AssignRequest) -> LagSource:
        self.calls += 1
        return self.model(lag, request)

    def inputs(self, group_id: str) -> object:
        return self.model.inputs(group_id)


class Group:
    """One group's lag view and rate window, refreshed by hand."""

    def __init__(self) -> None:
        self.view = FakeLagView()
        self.rates = RateWindow(refresh_interval_s=10)
        self.at = datetime.now(UTC) - timedelta(seconds=60)
        self.refresh(LAGS)
        self.model = CountedModel(DrainModel(self.rates, self.view, None))
        self.cache = LagCache()
        self.reuse: AnswerReuse | None = None
        self.answers = AnswerLog()
        self.sent = b""

    def refresh(self, lags: dict[str, list[int]]) -> Refresh:
        """A new snapshot (the lag view replaces it) and its point in the rate window."""
        self.at += timedelta(seconds=10)
        snapshot = snapshot_of(GROUP, lags, as_of=self.at)
        self.view.cached[GROUP] = snapshot
        self.rates.record(snapshot)
        return Refresh(duration_s=0.1, ok=True, fresh=[snapshot])

    async def answer(self, count: int = 2, **changes: Any) -> dict[str, Any]:
        body = json.dumps(body_of(GROUP, count, **changes)).encode()
        parts = AssignParts(
            default_strategy="balanced",
            on_demand_budget_s=0.0,
            lag_view=self.view,
            forecast=None,
            answers=self.answers,
            observer=Observed(),
            lag_model=self.model,
            lag_cache=self.cache,
            answer_reuse=self.reuse,
        )
        self.sent = await answer_rebalance(
            parse_assign_request(body), parts, light_turn(), started=time.perf_counter(), raw=body
        )
        answer: dict[str, Any] = json.loads(self.sent)
        return answer


def light_turn() -> Turn:
    """The route's worker for a light request: the work runs on the event loop."""
    return Turn(HeavyWork(limit=1, wait_s=1.0))


def body_of(group_id: str, count: int = 2, **changes: Any) -> dict[str, Any]:
    """A request of ``count`` members subscribed to t0 and t1 (``changes`` replace fields)."""
    return {
        "group_id": group_id,
        "members": [{"member_id": f"m-{i}", "topics": ["t0", "t1"]} for i in range(count)],
        "partitions": {"t0": 4, "t1": 2},
        **changes,
    }


def without_times(answer: dict[str, Any]) -> dict[str, Any]:
    """The answer less what differs between two computations of it (times)."""
    lag = {k: v for k, v in answer["lag"].items() if k != "age_seconds"}
    stats = {k: v for k, v in answer["stats"].items() if k != "compute_ms"}
    return {**answer, "lag": lag, "stats": stats}


async def test_a_cold_cache_answers_as_no_cache_would_and_keeps_the_lag() -> None:
    group = Group()
    cold = await group.answer()
    group.cache = None  # type: ignore[assignment]
    uncached = await group.answer()
    assert without_times(cold) == without_times(uncached)
    assert cold["lag"]["source"] == "kafka-drain"
    assert group.model.calls == 2


async def test_the_same_inputs_reuse_the_lag_without_running_the_model() -> None:
    group = Group()
    first = await group.answer()
    again = await group.answer()
    assert group.model.calls == 1
    assert (group.cache.hits, group.cache.misses) == (1, 1)
    assert without_times(again) == without_times(first)


async def test_a_refresh_makes_the_next_answer_read_the_new_lag() -> None:
    group = Group()
    before = await group.answer()
    group.refresh({"t0": [10, 10, 10, 10], "t1": [5_000, 90_000]})
    after = await group.answer()
    assert group.model.calls == 2
    assert after["stats"]["max_lag"] != before["stats"]["max_lag"]
    # The new snapshot's lag, as an uncached answer reads it.
    group.cache = None  # type: ignore[assignment]
    assert without_times(await group.answer()) == without_times(after)


async def test_after_a_refresh_the_lag_is_ready_for_the_next_request() -> None:
    group = Group()
    warmer = LagWarmer(group.cache, group.view)
    await warmer.refreshed(group.refresh(LAGS))
    await warmer.ready()
    assert warmer.warmed == 0  # nothing kept yet: nothing to make ready
    await group.answer(count=3)
    assert group.model.calls == 1
    await warmer.refreshed(group.refresh({"t0": [10, 10, 10, 10], "t1": [5_000, 90_000]}))
    await warmer.ready()
    # The last request's member count, one more (a join) and one fewer (a leave).
    assert (warmer.warmed, group.model.calls) == (3, 4)
    ready = {count: await group.answer(count=count) for count in (2, 3, 4)}
    assert group.model.calls == 4  # every request found its lag ready
    assert group.cache.hits == 3
    group.cache = None  # type: ignore[assignment]
    for count, answer in ready.items():
        assert without_times(await group.answer(count=count)) == without_times(answer)


async def test_a_group_not_asked_lately_is_not_made_ready(monkeypatch: pytest.MonkeyPatch) -> None:
    group = Group()
    warmer = LagWarmer(group.cache, group.view)
    await group.answer()
    monkeypatch.setattr(lag_cache, "WARM_FOR_S", -1.0)  # its last request is past the bound
    await warmer.refreshed(group.refresh({"t0": [10, 10, 10, 10], "t1": [5_000, 90_000]}))
    await warmer.ready()
    assert (warmer.warmed, group.model.calls) == (0, 1)


async def test_another_member_count_or_partition_count_is_computed_anew() -> None:
    group = Group()
    await group.answer(count=2)
    await group.answer(count=3)  # the drain horizon reads the member count
    await group.answer(count=3, partitions={"t0": 3, "t1": 2})
    assert group.model.calls == 3
    assert group.cache.hits == 0


async def test_lags_of_the_request_itself_are_never_kept() -> None:
    group = Group()
    own = {"t0": [1, 1, 1, 1], "t1": [1, 100]}
    first = await group.answer(lags=own)
    second = await group.answer(lags=own)
    assert first["lag"]["source"] == second["lag"]["source"] == "request"
    assert len(group.cache) == 0
    assert (group.cache.hits, group.cache.misses) == (0, 0)


def test_the_least_recently_used_lag_is_dropped_past_the_bound() -> None:
    cache = LagCache(max_groups=1)  # three lags: one group's three member counts
    snapshot = snapshot_of(GROUP, LAGS)
    lag = LagSource(source="kafka")
    kept = [LagInputs(snapshot, None, (), members=n) for n in (1, 2, 3, 4)]
    for inputs in kept:
        cache.put(GROUP, inputs, lag)
    assert len(cache) == 3
    assert cache.get(GROUP, kept[0]) is None
    assert cache.get(GROUP, kept[3]) is lag


async def test_the_same_body_over_the_same_lag_is_answered_with_the_last_bytes() -> None:
    group = Group()
    group.reuse = AnswerReuse()
    owned = [{"member_id": "m-0", "topics": ["t0", "t1"], "owned": {"t0": [0, 1]}}]
    await group.answer(members=owned)
    sent = group.sent
    await group.answer(members=owned)
    assert group.sent == sent  # byte for byte, compute_ms included: not computed again
    assert group.reuse.reused == 1
    assert len(group.answers.recent(GROUP)) == 2  # still the group's answer, twice


async def test_a_changed_body_or_a_refresh_is_answered_anew() -> None:
    group = Group()
    group.reuse = AnswerReuse()
    await group.answer()
    before = json.loads(group.sent)
    await group.answer(members=[{"member_id": "m-0", "topics": ["t0", "t1"], "owned": {"t1": [0]}}])
    assert group.reuse.reused == 0
    await group.answer()
    assert group.reuse.reused == 0  # the last answer kept is the changed body's
    group.refresh({"t0": [10, 10, 10, 10], "t1": [5_000, 90_000]})
    after = await group.answer()
    assert group.reuse.reused == 0
    assert after["stats"]["max_lag"] != before["stats"]["max_lag"]


def test_answers_are_kept_within_their_bytes() -> None:
    reuse = AnswerReuse(max_groups=8, max_bytes=1_000)
    inputs = LagInputs(snapshot_of(GROUP, LAGS), None, (), members=2)
    answer: Any = object()
    for group_id in ("a", "b", "c"):
        reuse.put(Asked(b"x" * 300, group_id, None, "balanced"), inputs, answer, b"y" * 100)
    assert len(reuse) == 2
    assert reuse.bytes == 800
    assert reuse.get(Asked(b"x" * 300, "a", None, "balanced"), inputs) is None
    assert reuse.get(Asked(b"x" * 300, "c", None, "balanced"), inputs) == (answer, b"y" * 100)
    reuse.put(Asked(b"x" * 2_000, "d", None, "balanced"), inputs, answer, b"")
    assert reuse.get(Asked(b"x" * 2_000, "d", None, "balanced"), inputs) is None
