"""The broker plugin's next join is answered ahead after a refresh (assign/answer_prepared.py).

The use case runs as the sidecar runs it: the plugin's topic-id request resolved through
the member index, the lag view's snapshot (with the members' target assignments, as
``ConsumerGroupDescribe`` reports them), the real rate window and drain model, the lag
warmer as the refresh listener that prepares the join. The group starts away from
lagassign's layout (Kafka's fallback put it elsewhere), the case the preparing is for.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import numpy as np
import pytest
from prometheus_client import CollectorRegistry, generate_latest

from lagassign.assign.answer import compute_answer
from lagassign.assign.answer_log import AnswerLog
from lagassign.assign.answer_prepared import NEWCOMER, PreparedJoins, next_join
from lagassign.assign.lag_cache import LagCache, lag_inputs
from lagassign.assign.lag_sources import LagSource
from lagassign.assign.lag_warmer import LagWarmer
from lagassign.assign.rebalance import AssignParts, answer_rebalance
from lagassign.assign.request import AssignRequest, parse_assign_request
from lagassign.assign.topic_ids import resolve_topic_ids
from lagassign.lagview.listeners import Refresh
from lagassign.lagview.snapshot import GroupSnapshot, MemberDescription
from lagassign.metrics.prepared import PreparedJoinsCollector
from lagassign.rates.lag_models import DrainModel
from lagassign.rates.window import RateWindow
from tests.service.fake_lag_view import FakeLagView, snapshot_of
from tests.service.test_assign_lag_cache import Observed, light_turn, without_times

pytestmark = pytest.mark.anyio

GROUP = "orders"
TOPIC_IDS = {"t0": "id-t0", "t1": "id-t1"}
LAGS = {"t0": [9_000, 10, 10, 10, 10, 10], "t1": [5_000, 4_000, 10, 10]}
COUNTS = {t: len(v) for t, v in LAGS.items()}
MEMBERS = ["m-a", "m-b", "m-c"]
#: Where Kafka's own assignor left the group: m-a holds both hot partitions of t0 and t1.
FALLBACK = {
    "m-a": {"t0": [0, 1], "t1": [0, 1]},
    "m-b": {"t0": [2, 3], "t1": [2]},
    "m-c": {"t0": [4, 5], "t1": [3]},
}


def plugin_body(
    members: list[str], owned: dict[str, dict[str, list[int]]], rack: str | None = None
) -> bytes:
    """The broker plugin's request: topic ids, one shared subscription, owned, packed."""
    return json.dumps(
        {
            "topic_ids": True,
            "answer_form": "packed",
            "subscriptions": [[TOPIC_IDS["t0"], TOPIC_IDS["t1"]]],
            "members": [
                {
                    "member_id": m,
                    "group_instance_id": None,
                    "rack": rack,
                    "subscription": 0,
                    "owned": {TOPIC_IDS[t]: ps for t, ps in owned.get(m, {}).items()},
                }
                for m in members
            ],
            "partitions": {TOPIC_IDS[t]: n for t, n in COUNTS.items()},
        }
    ).encode()


def described(owned: dict[str, dict[str, list[int]]]) -> tuple[MemberDescription, ...]:
    """The members as ConsumerGroupDescribe reports them: ``owned`` is the target assignment."""
    return tuple(
        MemberDescription(
            m,
            None,
            "client",
            "/127.0.0.1",
            assignment={t: tuple(ps) for t, ps in given.items()},
            subscribed_topics=("t0", "t1"),
            member_epoch=5,
            owned={t: tuple(ps) for t, ps in given.items()},
        )
        for m, given in sorted(owned.items())
    )


class Sidecar:
    """The sidecar's parts for one consumer-protocol group, refreshed by hand."""

    def __init__(self) -> None:
        self.view = FakeLagView()
        self.rates = RateWindow(refresh_interval_s=10)
        self.at = datetime.now(UTC) - timedelta(seconds=60)
        self.model = DrainModel(self.rates, self.view, None)
        self.cache = LagCache()
        self.joins = PreparedJoins()
        self.warmer = LagWarmer(self.cache, self.view, self.joins, "balanced")
        self.answers = AnswerLog()

    def snapshot(self, owned: dict[str, dict[str, list[int]]]) -> GroupSnapshot:
        self.at += timedelta(seconds=10)
        snapshot = snapshot_of(GROUP, LAGS, as_of=self.at)
        return dataclasses.replace(snapshot, protocol_type="consumer", members=described(owned))

    async def refresh(self, owned: dict[str, dict[str, list[int]]]) -> None:
        """A refresh that read the group with these target assignments; its listeners."""
        snapshot = self.snapshot(owned)
        self.view.cached[GROUP] = snapshot
        self.view.consumer_index.rebuild({GROUP: list(owned)}, {i: t for t, i in TOPIC_IDS.items()})
        self.rates.record(snapshot)
        await self.warmer.refreshed(Refresh(duration_s=0.1, ok=True, fresh=[snapshot]))
        await self.warmer.ready()

    async def answer(self, body: bytes) -> dict[str, Any]:
        parts = AssignParts(
            default_strategy="balanced",
            on_demand_budget_s=0.0,
            lag_view=self.view,
            forecast=None,
            answers=self.answers,
            observer=Observed(),
            lag_model=self.model,
            lag_cache=self.cache,
            prepared_joins=self.joins,
        )
        sent = await answer_rebalance(
            parse_assign_request(body), parts, light_turn(), started=time.perf_counter(), raw=body
        )
        answer: dict[str, Any] = json.loads(sent)
        return answer

    def named(self, body: bytes) -> AssignRequest:
        return resolve_topic_ids(parse_assign_request(body), self.view.consumer_index).request


async def on_fallback_layout() -> Sidecar:
    """A sidecar that answered the group once, then saw Kafka's fallback layout in a refresh."""
    sidecar = Sidecar()
    await sidecar.refresh({m: {} for m in MEMBERS})
    await sidecar.answer(plugin_body(MEMBERS, {}))
    assert sidecar.joins.last(GROUP) is not None
    await sidecar.refresh(FALLBACK)
    return sidecar


def given(answer: dict[str, Any]) -> dict[str, dict[str, list[int]]]:
    """A packed answer as member -> topic name -> partitions (topics it gets none of left out)."""
    names = {i: t for t, i in TOPIC_IDS.items()}
    topics = [names[i] for i in answer["topics"]]
    out: dict[str, dict[str, list[int]]] = {}
    for member, packed in answer["assignment"].items():
        indices = np.frombuffer(base64.b64decode(packed["topic_indices"]), dtype="<u4")
        numbers = np.frombuffer(base64.b64decode(packed["partitions"]), dtype="<u4")
        mine: dict[str, list[int]] = out.setdefault(member, {})
        for t, p in zip(indices.tolist(), numbers.tolist(), strict=True):
            mine.setdefault(topics[t], []).append(p)
    return out


def lag_of(sidecar: Sidecar, request: AssignRequest) -> LagSource:
    """The lag the warmer kept for ``request``."""
    inputs = lag_inputs(request, sidecar.view, sidecar.model)
    assert inputs is not None
    lag = sidecar.cache.get(GROUP, inputs, counted=False)
    assert lag is not None
    return lag


async def test_a_join_on_a_fallback_layout_is_served_the_answer_prepared_for_it() -> None:
    sidecar = await on_fallback_layout()
    assert sidecar.joins.prepared == 1
    answer = await sidecar.answer(plugin_body([*MEMBERS, "m-new"], FALLBACK))
    assert sidecar.joins.served == 1
    # Exactly what the sidecar computed for the predicted request, the newcomer renamed.
    predicted = next_join(sidecar.named(plugin_body(MEMBERS, {})), sidecar.view.cached[GROUP])
    assert predicted is not None
    expected = compute_answer(predicted, lag_of(sidecar, predicted), "balanced")
    renamed = {
        ("m-new" if m == NEWCOMER else m): {t: ps for t, ps in topics.items() if ps}
        for m, topics in expected.result.assignment.items()
    }
    assert given(answer) == renamed
    assert sum(len(ps) for topics in renamed.values() for ps in topics.values()) == 10
    assert renamed["m-new"]
    # Its figures are the request's own: the joiner named, the moves counted from FALLBACK.
    assert set(answer["stats"]["member_lag"]) == {*MEMBERS, "m-new"}
    assert answer["stats"]["members"] == 4
    moved = sum(
        1
        for m, topics in renamed.items()
        for t, ps in topics.items()
        for p in ps
        if p not in FALLBACK.get(m, {}).get(t, [])
    )
    assert answer["stats"]["moved"] == moved > 0
    # As good as a sidecar without it computes for the same request.
    cold = Sidecar()
    cold.view, cold.rates, cold.model = sidecar.view, sidecar.rates, sidecar.model
    computed = await cold.answer(plugin_body([*MEMBERS, "m-new"], FALLBACK))
    assert cold.joins.served == 0
    assert answer["stats"]["max_lag"] == computed["stats"]["max_lag"]
    # What an operator scrapes.
    registry = CollectorRegistry()
    registry.register(PreparedJoinsCollector(sidecar.joins))
    text = generate_latest(registry).decode()
    assert 'lagassign_prepared_joins_total{outcome="prepared"} 1.0' in text
    assert 'lagassign_prepared_joins_total{outcome="served"} 1.0' in text


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(plugin_body(MEMBERS[:-1], FALLBACK), id="a leave"),
        pytest.param(plugin_body([*MEMBERS, "m-new", "m-new-2"], FALLBACK), id="two joins"),
        pytest.param(
            plugin_body([*MEMBERS, "m-new"], {**FALLBACK, "m-c": {"t0": [4, 5]}}),
            id="an owned partition less",
        ),
        pytest.param(plugin_body([*MEMBERS, "m-new"], FALLBACK, rack="eu-1a"), id="another rack"),
    ],
)
async def test_anything_but_the_prepared_join_is_computed_as_always(body: bytes) -> None:
    sidecar = await on_fallback_layout()
    answer = await sidecar.answer(body)
    assert sidecar.joins.served == 0
    cold = Sidecar()
    cold.view, cold.rates, cold.model = sidecar.view, sidecar.rates, sidecar.model
    assert without_times(answer) == without_times(await cold.answer(body))


async def test_a_refresh_prepares_the_join_again_over_its_lag() -> None:
    sidecar = await on_fallback_layout()
    first = sidecar.joins.prepared
    await sidecar.refresh(FALLBACK)  # a new snapshot: new lag inputs
    assert sidecar.joins.prepared == first + 1
    await sidecar.answer(plugin_body([*MEMBERS, "m-new"], FALLBACK))
    assert sidecar.joins.served == 1


async def test_nothing_is_prepared_for_a_group_the_plugin_never_asked_about() -> None:
    sidecar = Sidecar()
    await sidecar.refresh(FALLBACK)
    await sidecar.refresh(FALLBACK)
    assert sidecar.joins.prepared == 0
    assert len(sidecar.joins) == 0
    await sidecar.answer(plugin_body([*MEMBERS, "m-new"], FALLBACK))  # cold: computed
    assert sidecar.joins.served == 0


def test_a_member_the_last_request_did_not_have_leaves_the_next_join_unknown() -> None:
    sidecar = Sidecar()
    sidecar.view.consumer_index.rebuild({GROUP: MEMBERS}, {i: t for t, i in TOPIC_IDS.items()})
    last = sidecar.named(plugin_body(MEMBERS, {}))
    now = sidecar.snapshot({**FALLBACK, "m-d": {}})
    assert next_join(last, now) is None
    predicted = next_join(last, sidecar.snapshot(FALLBACK))
    assert predicted is not None
    assert [m.member_id for m in predicted.members] == [*MEMBERS, NEWCOMER]
    assert [m.owned for m in predicted.members] == [*FALLBACK.values(), {}]


def test_the_groups_kept_are_bounded_by_count_and_partitions() -> None:
    sidecar = Sidecar()
    sidecar.view.consumer_index.rebuild({GROUP: MEMBERS}, {i: t for t, i in TOPIC_IDS.items()})
    last = sidecar.named(plugin_body(MEMBERS, {}))  # 10 partitions
    joins = PreparedJoins(max_groups=3, max_partitions=25)
    for group in ["a", "b", "c"]:
        joins.asked(msgspec.structs.replace(last, group_id=group))
    assert [g for g in "abc" if joins.last(g) is not None] == ["b", "c"]  # 30 > 25
    joins.asked(msgspec.structs.replace(last, group_id="b"))  # asked again: the newest
    joins.asked(msgspec.structs.replace(last, group_id="d"))
    assert [g for g in "abcd" if joins.last(g) is not None] == ["b", "d"]
